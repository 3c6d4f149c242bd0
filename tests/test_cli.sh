#!/bin/sh
# Command-line conventions: help, version, dispatch, exit codes.
set -u
RVE=${RVE:-./rve}
pass=0
fail=0
check() { # description, expected status, command...
    desc=$1; want=$2; shift 2
    "$@" >/tmp/rve-cli-out.$$ 2>/tmp/rve-cli-err.$$
    got=$?
    if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL: $desc: exit $got, wanted $want"; cat /tmp/rve-cli-err.$$; fi
}
grep_out() { # description, pattern, file
    if grep -q -- "$2" "$3"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; cat "$3"; fi
}

check "--help" 0 "$RVE" --help
for sub in fit gen reg mesh run tess raster stat compare convert dist contact pack; do
    grep_out "--help lists $sub" "^  $sub " /tmp/rve-cli-out.$$
done
check "--version" 0 "$RVE" --version
grep_out "--version prints the version" "^rve [0-9]" /tmp/rve-cli-out.$$
check "unknown subcommand" 2 "$RVE" nosuch
grep_out "unknown subcommand is named" "no subcommand 'nosuch'" /tmp/rve-cli-err.$$
check "help fit" 0 "$RVE" help fit
grep_out "help fit shows usage" "Usage: rve fit" /tmp/rve-cli-out.$$
check "help of unknown" 2 "$RVE" help nosuch
check "no arguments" 2 "$RVE"
rm -f /tmp/rve-cli-out.$$ /tmp/rve-cli-err.$$
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
