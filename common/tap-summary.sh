#!/bin/sh
# common/tap-summary.sh - the closing line of make test, from the Bats TAP log:
#     tests: 57 passed, 0 failed, 3 skipped
awk '
    /^ok .* # skip/ { skipped++; next }
    /^ok /          { passed++ }
    /^not ok /      { failed++ }
    END { printf "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped }
' "$1"
