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
# issue 17: subnormal numbers are numbers, overflowing ones are not; extreme
# magnitudes; the flat-polytope example (oracle: 1.6067e-12, 100 eps L = 1.5e-10)
printf 'point -3.4789792395435477e-309 0 0 point 0 0 0\n' >"$tmp/sub.txt"
expect_status "subnormal" 0 "$RVE" dist "$tmp/sub.txt"
[ "$(cut -d' ' -f1 "$tmp/out")" = "3.4789792395435477e-309" ] && ok || ko "subnormal distance: $(cat "$tmp/out")"
printf 'point 1e400 0 0 point 0 0 0\n' >"$tmp/big.txt"
expect_status "overflowing number" 1 "$RVE" dist "$tmp/big.txt"
printf 'point 1e155 0 0 point -1e155 0 0\npoint 1e300 0 0 point -1e300 0 0\n' >"$tmp/huge.txt"
expect_status "huge" 0 "$RVE" dist "$tmp/huge.txt"
awk 'NR == 1 && $1 != 2e155 { exit 1 } NR == 2 && $1 != 2e300 { exit 1 }' "$tmp/out" && ok || ko "huge distances: $(cat "$tmp/out")"
printf 'point 1e308 0 0 point -1e308 0 0\n' >"$tmp/range.txt"
expect_status "beyond the range" 0 "$RVE" dist "$tmp/range.txt"
grep -q "^inf " "$tmp/out" && grep -q "double range" "$tmp/err" && ok || ko "range: $(cat "$tmp/out" "$tmp/err")"
printf 'poly 12 5798.9030974364869 -4415.0886906844062 521.91081214438907 5959.4113310679113 -2784.1263808630374 521.91081077935621 4543.206635127427 -4042.049443116975 521.91081146719989 6237.1174115416279 -4334.696043180058 521.91081202910618 5613.503490572075 -2830.7780281149035 521.91081095439029 5258.6916073113152 -3068.415305456273 521.91081149747947 4520.4226872855725 -5095.6319448284721 521.91081079794026 5781.4720187671801 -4766.1777458883953 521.9108118653528 4425.5197979888217 -4898.9608873682891 521.91081088355611 6660.6681983072167 -4591.8540805772336 521.91080861048033 6452.3269816312059 -4686.1621875711435 521.91081153757875 5526.1183420146444 -4357.7103886822406 521.91081218284057  point 5564.7801331289102 -4155.9709264748408 521.91081205968658\n' >"$tmp/flat.txt"
expect_status "flat example" 0 "$RVE" dist "$tmp/flat.txt"
awk '{ e = $1 - 1.6066732581833106e-12; if (e < 0) e = -e; exit !(e <= 1.5e-10) }' "$tmp/out" && ok || ko "flat example: $(cat "$tmp/out")"
# empty input: no queries, no output
printf '# nothing\n' >"$tmp/empty.txt"
expect_status "empty" 0 "$RVE" dist "$tmp/empty.txt"
# a vertex count the text cannot hold is refused before allocating
# (found by the fuzzer: "poly 092780190" asked for 2 GB)
printf 'poly 092780190 0 0 0  point 1 1 1\n' >"$tmp/bigpoly.txt"
expect_status "poly count larger than its text" 1 "$RVE" dist "$tmp/bigpoly.txt"
grep -q "vertices announced" "$tmp/err" && ok || ko "poly count message: $(cat "$tmp/err")"
# compound bodies: unit spheres at x = 0 and 3 vs a point at
# x = 6 (d = 2, p = (4,0,0)); two boxes [-1,1]^3 and [4,6]x[-1,1]^2 vs a
# sphere of radius 1 at (2.5, 0, 0) (d = 0.5); two compounds, the closest
# pieces 1 apart along y (d = 1); a compound overlapping a point (d = 0)
cat >"$tmp/comp.txt" <<'Q'
compound 2 sphere 0 0 0 1 sphere 3 0 0 1   point 6 0 0
compound 2 box 0 0 0 1 1 1 1 0 0 0 box 5 0 0 1 1 1 1 0 0 0   sphere 2.5 0 0 1
compound 2 point 0 0 0 point 10 0 0   compound 3 point 5 5 0 point 10 1 0 point -3 4 0
point 3.5 0 0   compound 2 sphere 0 0 0 1 sphere 3 0 0 1
Q
expect_status "compound" 0 "$RVE" dist "$tmp/comp.txt"
awk 'NR == 1 { if ($1 != 2 || $2 != 4 || $5 != 6) exit 1 }
     NR == 2 { e = $1 - 0.5; if (e < 0) e = -e; if (e > 1e-15) exit 1 }
     NR == 3 { if ($1 != 1 || $2 != 10 || $6 != 1) exit 1 }
     NR == 4 { if ($1 != 0) exit 1 }
     END { if (NR != 4) exit 1 }' "$tmp/out" && ok || ko "compound distances: $(cat "$tmp/out")"
printf 'compound 0 point 0 0 0  point 1 1 1\n' >"$tmp/comp0.txt"
expect_status "compound of 0 pieces" 1 "$RVE" dist "$tmp/comp0.txt"
grep -q "piece count" "$tmp/err" && ok || ko "compound count message: $(cat "$tmp/err")"
printf 'compound 3 point 0 0 0 point 1 0 0\n' >"$tmp/comp1.txt"
expect_status "compound cut short" 1 "$RVE" dist "$tmp/comp1.txt"
[ ! -s "$tmp/out" ] && ok || ko "compound cut short printed something"
# rve contact reads the same compounds: the separated ones at the same
# distances; the point 0.5 inside the sphere at x = 3: s = -0.5
expect_status "compound in rve contact" 0 "$RVE" contact "$tmp/comp.txt"
awk 'NR == 1 { if ($1 != 2) exit 1 } NR == 2 { e = $1 - 0.5; if (e < 0) e = -e; if (e > 1e-15) exit 1 }
     NR == 3 { if ($1 != 1) exit 1 } NR == 4 { e = $1 + 0.5; if (e < 0) e = -e; if (e > 1e-15) exit 1 }
     END { if (NR != 4) exit 1 }' "$tmp/out" && ok || ko "contact compound signed distances: $(cat "$tmp/out")"
rm -rf "$tmp"
echo "dist_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
