#!/bin/sh
# common/tap-summary.sh - the closing line of make test, from the Bats TAP log:
#     tests: 57 passed, 0 failed, 3 skipped
export LC_ALL=C # as every script of the course that runs awk: the same in every locale
awk '
    /^ok .* # skip/ { skipped++; next }
    /^ok /          { passed++ }
    /^not ok /      { failed++ }
    END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped }
' "$1"
