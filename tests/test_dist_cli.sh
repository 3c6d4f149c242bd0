#!/bin/sh
# rve dist: output format, exact answers, --sub, --repeat, --json, errors.
set -u
RVE=${RVE:-./rve}
pass=0
fail=0
tmp=$(mktemp -d /tmp/rve-dist-cli.XXXXXX)
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
expect_status() { # description, status, command...
    d=$1; want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else ko "$d: exit $got, wanted $want"; cat "$tmp/err"; fi
}

cat >"$tmp/q.txt" <<'Q'
# sphere vs point: d = 2, p = (1,0,0), q = (3,0,0)
sphere 0 0 0 1  point 3 0 0
# unit box vs box 3 away along x (rotated 90 degrees about x)
box 0 0 0 0.5 0.5 0.5 1 0 0 0   box 4 0 0 0.5 0.5 0.5 0.70710678118654757 0.70710678118654757 0 0
# overlapping spheres: d = 0
sphere 0 0 0 1 sphere 0.5 0 0 1
# tetrahedron vs point above its slanted face: d = (3 - 1)/sqrt(3)
poly 4 0 0 0 1 0 0 0 1 0 0 0 1   point 1 1 1
# ellipsoid vs superquadric along z
ellipsoid 0 0 0 1 2 3 1 0 0 0   superquadric 0 0 10 1 1 2 4 4 1 0 0 0
Q
expect_status "batch" 0 "$RVE" dist "$tmp/q.txt"
lines=$(wc -l <"$tmp/out")
[ "$lines" -eq 5 ] && ok || ko "5 output lines, got $lines"
awk 'NR==1 { if ($1 == 2 && $2 == 1 && $5 == 3) exit 0; exit 1 }' "$tmp/out" && ok || ko "sphere-point line: $(sed -n 1p "$tmp/out")"
awk 'NR==2 { d = $1 - 3; if (d < 0) d = -d; if (d < 1e-14) exit 0; exit 1 }' "$tmp/out" && ok || ko "box-box distance 3: $(sed -n 2p "$tmp/out")"
awk 'NR==3 { if ($1 == 0 && $2 == $5 && $3 == $6 && $4 == $7) exit 0; exit 1 }' "$tmp/out" && ok || ko "overlap gives 0 and a common point: $(sed -n 3p "$tmp/out")"
awk 'NR==4 { d = $1 - 2 / sqrt(3); if (d < 0) d = -d; if (d < 1e-15) exit 0; exit 1 }' "$tmp/out" && ok || ko "tetra-point: $(sed -n 4p "$tmp/out")"
awk 'NR==5 { d = $1 - 5; if (d < 0) d = -d; if (d < 1e-13) exit 0; exit 1 }' "$tmp/out" && ok || ko "ellipsoid-superquadric 5: $(sed -n 5p "$tmp/out")"
# 17 significant digits
awk 'NR==4 { if (length($1) >= 17) exit 0; exit 1 }' "$tmp/out" && ok || ko "%.17g output"
cp "$tmp/out" "$tmp/sv.out"
# stdin and Johnson
expect_status "stdin, johnson" 0 sh -c "\"$RVE\" dist --sub johnson - <\"$tmp/q.txt\""
awk 'NR==1 { if ($1 == 2) exit 0; exit 1 }' "$tmp/out" && ok || ko "johnson sphere-point"
# --repeat prints the mean time on stderr
expect_status "repeat" 0 "$RVE" dist --repeat 10 "$tmp/q.txt"
grep -q "ns per query" "$tmp/err" && ok || ko "--repeat prints ns per query"
cmp -s "$tmp/out" "$tmp/sv.out" && ok || ko "--repeat output identical"
# --json
expect_status "json" 0 "$RVE" dist --json "$tmp/q.txt"
grep -q '"queries": *5' "$tmp/out" && ok || ko "json query count"
# errors: query index and offending token, exit 1, no output
printf 'sphere 0 0 0 1 point 3 0 0\nsphere 1 1 1 oops point 0 0 0\n' >"$tmp/bad.txt"
expect_status "bad token" 1 "$RVE" dist "$tmp/bad.txt"
grep -q "query 2" "$tmp/err" && grep -q "'oops'" "$tmp/err" && ok || ko "error names query 2 and 'oops': $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] && ok || ko "no partial output on error"
printf 'sphere 0 0 0 1 point 3 0\n' >"$tmp/bad2.txt"
expect_status "truncated" 1 "$RVE" dist "$tmp/bad2.txt"
grep -q "query 1" "$tmp/err" && ok || ko "truncated query named"
printf 'sphere 0 0 0 1\n' >"$tmp/bad3.txt"
expect_status "odd shape count" 1 "$RVE" dist "$tmp/bad3.txt"
printf 'box 0 0 0 1 1 1 2 0 0 0 point 0 0 0\n' >"$tmp/bad4.txt"
expect_status "non-unit quaternion" 1 "$RVE" dist "$tmp/bad4.txt"
printf 'sphere 0 0 0 nan point 0 0 0\n' >"$tmp/bad5.txt"
expect_status "NaN" 1 "$RVE" dist "$tmp/bad5.txt"
expect_status "missing file" 1 "$RVE" dist "$tmp/none.txt"
expect_status "bad --sub" 2 "$RVE" dist --sub foo "$tmp/q.txt"
expect_status "bad --repeat" 2 "$RVE" dist --repeat 0 "$tmp/q.txt"
expect_status "help" 0 "$RVE" dist --help
grep -q "Usage: rve dist" "$tmp/out" && ok || ko "help text"
# empty input: no queries, no output
printf '# nothing\n' >"$tmp/empty.txt"
expect_status "empty" 0 "$RVE" dist "$tmp/empty.txt"
rm -rf "$tmp"
echo "dist_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
