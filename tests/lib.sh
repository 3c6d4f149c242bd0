# tests/lib.sh - the helpers every tests/test_*.sh shares.  Source it first:
#
#   . "${RVE_SRCDIR:-..}/tests/lib.sh"
#   lib_init name          # temp folder $T, counters, removal on exit
#   check "help" 0 "$RVE" tess --help
#   grep_f "help has an example" "Example" "$T/out"
#   ...
#   lib_finish             # prints "name: N passed, N failed", exit status
#
# RVE (the program), SRC (the source tree) and BUILD (the build tree) come
# from the environment `make check` sets.  RVE_KEEP=1 keeps the temp folder.
set -u
RVE=${RVE:-./rve}
SRC=${RVE_SRCDIR:-..}
BUILD=${RVE_BUILDDIR:-.}
pass=0
fail=0
lib_name=test
T=

lib_init() { # name (the first word of the summary line)
    lib_name=$1
    T=$(mktemp -d "${TMPDIR:-/tmp}/rve-$1.XXXXXX") || { echo "$1: no temporary folder" >&2; exit 1; }
    [ -n "${RVE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
}

# a passed check with no arguments; `ok description condition`: evaluates the
# shell condition and counts a pass or a failure named by the description
ok() {
    if [ $# -eq 0 ]; then pass=$((pass + 1)); return 0; fi
    if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
ko() { # description: a failure
    fail=$((fail + 1)); echo "FAIL: $1"
}
check() { # description, expected exit status, command... (output in $T/out, $T/err)
    lib_desc=$1; lib_want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err"
    lib_got=$?
    if [ "$lib_got" -eq "$lib_want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: $lib_desc: exit $lib_got, wanted $lib_want"; cat "$T/err"; fi
}
grep_f() { # description, pattern, file
    if grep -q -- "$2" "$3"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; cat "$3"; fi
}
absent() { # description, file
    if [ ! -e "$2" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1 ($2 exists)"; fi
}
same() { # description, file a, file b
    if cmp -s "$2" "$3"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: $2 and $3 differ"; fi
}
one_line() { # description: $T/err is exactly one line
    if [ "$(wc -l <"$T/err")" -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: not one line"; cat "$T/err"; fi
}

lib_finish() { # the summary line; exit status 0 only without failures
    echo "$lib_name: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# lib_python NAME "MOD1, MOD2": sets PY to the first Python (python3, then
# Debian's /usr/bin/python3, which has the Debian-packaged modules) that
# imports the modules; without one the test is skipped (exit 77).
# lib_mpi NAME: the distributed tests.  make check of an MPI build
# (configure --with-mpi) sets RVE_MPIRUN; without it the test is skipped (77):
# a serial rve under mpirun would run P serial copies (and a serial build's
# make check-long lists every test that reads RVE_TEST_LONG).  By hand:
# RVE_MPIRUN=mpirun RVE=build-mpi/rve sh tests/test_mpi_x.sh.  OpenMPI refuses
# root unless told (CI runs as root); `mpi NP ARGS...` runs rve on NP ranks,
# oversubscribed (2 cores here).
lib_mpi() {
    MPIRUN=${RVE_MPIRUN:-}
    [ -n "$MPIRUN" ] || { echo "SKIP $1: not an MPI build (RVE_MPIRUN unset)"; exit 77; }
    command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP $1: no $MPIRUN"; exit 77; }
    if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
}
mpi() { # np, rve arguments...
    np=$1; shift
    "$MPIRUN" --quiet --oversubscribe -np "$np" "$RVE" "$@"
}

lib_python() {
    PY=
    for p in python3 /usr/bin/python3; do
        if "$p" -c "import $2" 2>/dev/null; then PY=$p; break; fi
    done
    if [ -z "$PY" ]; then
        echo "SKIP $1: no Python with $2"
        exit 77
    fi
}
