# common/lesson-setting.sh - sourced by the scripts that read a lesson's lesson.conf
# (bench, sanitize, profile and gpu-report beside it, plots/plot.sh), run from the top
# of the repository.

# Lesson 09's LAUNCH and PROFILE_LAUNCH start Open MPI ranks. Open MPI refuses
# to start them as root unless told twice (a lab container runs as root). Open
# MPI 5 prints "Unable to find reachable pairing between local and remote
# interfaces" on every rank of a machine with IPv6 addresses: its TCP transport
# keeps to IPv4 unless the caller chose otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_disable_family="${OMPI_MCA_btl_tcp_disable_family:-6}"

# lesson_setting lesson01 KEY: the value of "KEY = value" in its lesson.conf;
# nothing for a program that is not a lesson
lesson_setting() {
    case $1 in
        lesson[0-9][0-9]) sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" \
                              lessons/"${1#lesson}"-*/lesson.conf 2>/dev/null ;;
    esac
}
