#!/bin/sh
# rve contact: output format, methods, volume, errors and exit codes.
set -u
RVE=${RVE:-./rve}
pass=0
fail=0
tmp=${TMPDIR:-/tmp}/rve-contact-test.$$
mkdir -p "$tmp"
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
# two unit-half-extent boxes overlapping by 0.5 along x
printf 'box 0 0 0 1 1 1 1 0 0 0  box 1.5 0 0 1 1 1 1 0 0 0\n# comment\nsphere 0 0 0 1 point 3 0 0\n' >"$tmp/q.txt"
if "$RVE" contact "$tmp/q.txt" >"$tmp/out" 2>"$tmp/err"; then ok; else ko "contact exit status"; fi
if [ "$(wc -l <"$tmp/out")" -eq 2 ]; then ok; else ko "one line per query"; fi
if awk 'NR==1 { exit !($1 == -0.5 && $2 == 1 && $3 == 0 && $4 == 0 && NF == 10) }' "$tmp/out"; then ok; else ko "box depth and normal"; cat "$tmp/out"; fi
if awk 'NR==2 { exit !($1 == 2 && $2 == 1 && $5 == 1 && $8 == 3) }' "$tmp/out"; then ok; else ko "separated sphere-point"; cat "$tmp/out"; fi
for m in cundall nezami epa; do
    if head -1 "$tmp/q.txt" | "$RVE" contact --method $m --volume >"$tmp/out" 2>"$tmp/err"; then ok; else ko "--method $m"; cat "$tmp/err"; fi
    if awk '{ exit !($1 < -0.4999999 && $1 > -0.5000001 && $11 > 1.9999999 && $11 < 2.0000001) }' "$tmp/out"; then ok; else ko "$m depth and volume"; cat "$tmp/out"; fi
done
"$RVE" contact --method nezami "$tmp/q.txt" >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "query 2" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok; else ko "non-polytope with nezami: exit 1, no output"; fi
printf 'box 0 0 0 1 1 1 1 0 0 0 sphere 1 x 0 1\n' | "$RVE" contact >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "rve contact: <stdin>: query 1" "$tmp/err"; then ok; else ko "malformed query"; cat "$tmp/err"; fi
"$RVE" contact --method foo "$tmp/q.txt" >/dev/null 2>&1
if [ $? -eq 2 ]; then ok; else ko "bad --method is a usage error"; fi
"$RVE" contact "$tmp/nosuch" >/dev/null 2>&1
if [ $? -eq 1 ]; then ok; else ko "missing file exit 1"; fi
if "$RVE" contact --json "$tmp/q.txt" | grep -q '"method":"epa"'; then ok; else ko "--json"; fi
if "$RVE" contact --help | grep -q "Usage: rve contact"; then ok; else ko "--help"; fi
rm -rf "$tmp"
echo "contact-cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
