# common/lesson-setting.sh - sourced by the scripts that read a lesson's lesson.conf
# (bench, sanitize, profile and gpu-report beside it, plots/plot.sh), run from the top
# of the repository.

# lesson_setting lesson01 KEY: the value of "KEY = value" in its lesson.conf;
# nothing for a program that is not a lesson
lesson_setting() {
    case $1 in
        lesson[0-9][0-9]) sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" \
                              lessons/"${1#lesson}"-*/lesson.conf 2>/dev/null ;;
    esac
}
