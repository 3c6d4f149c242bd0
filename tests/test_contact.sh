#!/bin/sh
# rve contact: output format, methods, volume, errors and exit codes.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init contact-cli
tmp=$T
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
if "$RVE" contact --json "$tmp/q.txt" | grep -q '"method":"auto"'; then ok; else ko "--json"; fi
if "$RVE" contact --json --method epa "$tmp/q.txt" | grep -q '"kernel":"epa"'; then ok; else ko "--json kernel"; fi

# --- superquadric pairs: Peng & Hanley (poly/box + superquadric) and Wellmann (two
# superquadrics) by default, against closed forms.
# A sphere written as a superquadric (n1 = n2 = 2) and the box [-1,1]^3: the
# signed distance is |c - clamp(c)| - r outside the box; in the face regions
# (|y|, |z| < 1, x > 1) the contact is a face contact, depth r - (x - 1), normal +x
# (a separated pair there: distance x - 1 - r along +x).
awk 'BEGIN { srand(4); for (i = 0; i < 40; i++) {
    r = 0.2 + rand(); y = 1.8 * rand() - 0.9; z = 1.8 * rand() - 0.9;
    if (i % 2) { x = 1 + r - r * rand() } else { x = 1 + r + rand() }   # overlapping / separated
    printf "box 0 0 0 1 1 1 1 0 0 0  superquadric %.17g %.17g %.17g %.17g %.17g %.17g 2 2 0.6 0.8 0 0\n", x, y, z, r, r, r
    printf "%.17g %d\n", x - 1 - r, i % 2 ? 1 : 2 >"/dev/stderr"
  } }' >"$tmp/sq.txt" 2>"$tmp/sq.ref"
# corners and edges: separated spheres at |c - clamp(c)| - r
awk 'BEGIN { srand(5); for (i = 0; i < 20; i++) {
    r = 0.1 + 0.4 * rand(); x = 1.1 + rand(); y = 1.1 + rand(); z = (i % 2) ? 1.1 + rand() : 1.8 * rand() - 0.9;
    dz = z > 1 ? z - 1 : 0; d = sqrt((x - 1)^2 + (y - 1)^2 + dz^2);
    if (d <= r) { x += r; y += r; d = sqrt((x - 1)^2 + (y - 1)^2 + dz^2) }
    printf "box 0 0 0 1 1 1 1 0 0 0  superquadric %.17g %.17g %.17g %.17g %.17g %.17g 2 2 1 0 0 0\n", x, y, z, r, r, r
    printf "%.17g 0\n", d - r >"/dev/stderr"
  } }' >>"$tmp/sq.txt" 2>>"$tmp/sq.ref"
if "$RVE" contact "$tmp/sq.txt" >"$tmp/out" 2>"$tmp/err" && paste -d' ' "$tmp/out" "$tmp/sq.ref" | awk '
    { e = $1 - $11; if (e < 0) e = -e; if (e > 1e-12) bad++;
      if ($12 == 1 && ($2 != 1 || $3 != 0 || $4 != 0)) bad++          # face contact: the face normal
      if ($12 == 2 && ($2 < 1 - 1e-12 || $3 * $3 + $4 * $4 > 1e-18)) bad++ }  # separated: the GJK normal
    END { exit bad > 0 || NR != 60 }'; then ok; else ko "peng-hanley: sphere superquadric vs box (closed form)"; paste -d' ' "$tmp/out" "$tmp/sq.ref" | head -5; fi
if "$RVE" contact --json "$tmp/sq.txt" | grep -q '"kernel":"peng-hanley"'; then ok; else ko "poly/box + superquadric goes to peng-hanley"; fi
# superquadric first: same depth, normal and points swapped
printf 'superquadric 1.7 0.2 -0.1 1 1 1 2 2 1 0 0 0  box 0 0 0 1 1 1 1 0 0 0\n' | "$RVE" contact >"$tmp/out" 2>"$tmp/err"
if awk '{ e = $1 + 0.3; exit !(e < 1e-15 && e > -1e-15 && $2 == -1 && $5 < 0.7000000001 && $5 > 0.6999999999 && $8 == 1) }' "$tmp/out"; then ok; else ko "peng-hanley with the superquadric first"; cat "$tmp/out"; fi
# Wellmann: spheres as superquadrics (centre distance - radii), and n = 4 bodies on
# their x axis (B turned 90 degrees about x: same extent, common normal +x)
cat >"$tmp/we.txt" <<'EOT'
superquadric 0 0 0 1 1 1 2 2 1 0 0 0  superquadric 1.5 0 0 1 1 1 2 2 1 0 0 0
superquadric 0 0 0 1 1 1 2 2 1 0 0 0  superquadric 0.3 1.2 0.4 0.5 0.5 0.5 2 2 1 0 0 0
superquadric 0 0 0 1 0.5 0.5 4 4 1 0 0 0  superquadric 1.9 0 0 1 0.7 0.6 4 4 0.7071067811865476 0.7071067811865476 0 0
superquadric 0 0 0 1 0.5 0.5 4 4 1 0 0 0  superquadric 2.5 0 0 1 0.7 0.6 4 4 0.7071067811865476 0.7071067811865476 0 0
EOT
if "$RVE" contact "$tmp/we.txt" >"$tmp/out" 2>"$tmp/err" && awk '
    function chk(v, r) { e = v - r; if (e < 0) e = -e; if (e > 1e-12) bad++ }
    NR == 1 { chk($1, -0.5); chk($2, 1) }
    NR == 2 { chk($1, sqrt(0.09 + 1.44 + 0.16) - 1.5) }
    NR == 3 { chk($1, -0.1); chk($2, 1) }
    NR == 4 { chk($1, 0.5); chk($2, 1) }
    END { exit bad > 0 || NR != 4 }' "$tmp/out"; then ok; else ko "wellmann: superquadric pairs (closed form)"; cat "$tmp/out"; fi
if "$RVE" contact --json "$tmp/we.txt" | grep -q '"kernel":"wellmann"'; then ok; else ko "two superquadrics go to wellmann"; fi
# EPA on the same pairs agrees (within its tolerance on curved shapes)
if "$RVE" contact --method epa "$tmp/we.txt" >"$tmp/out2" && paste -d' ' "$tmp/out" "$tmp/out2" | awk '
    { e = $1 - $11; if (e < 0) e = -e; if (e > 1e-8) bad++ } END { exit bad > 0 }'; then ok; else ko "epa agrees with wellmann"; fi
printf 'sphere 0 0 0 1  sphere 1 0 0 1\n' | "$RVE" contact --method peng-hanley >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "query 1: peng-hanley needs" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok; else ko "peng-hanley on two spheres: exit 1"; cat "$tmp/err"; fi
printf 'box 0 0 0 1 1 1 1 0 0 0  sphere 1 0 0 1\n' | "$RVE" contact --method wellmann >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "wellmann needs" "$tmp/err"; then ok; else ko "wellmann on a box: exit 1"; cat "$tmp/err"; fi
printf 'box 0 0 0 1 1 1 1 0 0 0  sphere 1.5 0 0 1\n' | "$RVE" contact --method peng-hanley >"$tmp/out" 2>"$tmp/err"
if awk '{ exit !($1 == -0.5 && $2 == 1) }' "$tmp/out"; then ok; else ko "--method peng-hanley on a box and a sphere"; cat "$tmp/out"; fi
# --- compound (non-convex) bodies: the deepest piece-pair contact, against
# closed forms that the convex hull of the pieces would get wrong.
# Two unit cubes at y = 0 and y = 2 (a gap between them) and a sphere of
# radius 0.6 at y = 1: it overlaps each cube by 0.1 (the hull: by 1.1).
printf 'compound 2 box 0 0 0 0.5 0.5 0.5 1 0 0 0 box 0 2 0 0.5 0.5 0.5 1 0 0 0  sphere 0 1 0 0.6\n' >"$tmp/c1.txt"
if "$RVE" contact "$tmp/c1.txt" >"$tmp/out" 2>"$tmp/err" && awk '{ d = $1 + 0.1; if (d < 0) d = -d
    ny = $3 < 0 ? -$3 : $3; exit !(d < 1e-12 && ny == 1 && $2 == 0 && $4 == 0) }' "$tmp/out"; then ok
else ko "compound: depth 0.1 between the pieces, not the hull's"; cat "$tmp/out" "$tmp/err"; fi
if "$RVE" contact --json "$tmp/c1.txt" | grep -q '"kernel":"compound"'; then ok; else ko "--json kernel compound"; fi
# a bar of k unit cubes along x (from -0.5 to k - 0.5) against a cube at
# x = k - 0.5 + 0.5 - o: overlap o along +x; swapped, the normal flips;
# a sphere beyond the bar end at distance g: separated by g
awk 'BEGIN { srand(7); for (i = 0; i < 20; i++) { k = 1 + int(6 * rand()); o = 0.05 + 0.4 * rand(); g = 0.1 + rand()
    line = "compound " k; for (j = 0; j < k; j++) line = line sprintf(" box %d 0 0 0.5 0.5 0.5 1 0 0 0", j)
    printf "%s  box %.17g 0.2 -0.1 0.5 0.5 0.5 1 0 0 0\n", line, k - o
    printf "box %.17g 0.2 -0.1 0.5 0.5 0.5 1 0 0 0  %s\n", k - o, line
    printf "%s  sphere %.17g 0.1 0.1 0.3\n", line, k - 0.5 + g + 0.3
    printf "%.17g %.17g\n", o, g >"/dev/stderr" } }' >"$tmp/c2.txt" 2>"$tmp/c2.ref"
if "$RVE" contact "$tmp/c2.txt" >"$tmp/out" 2>"$tmp/err" && awk 'NR == FNR { o[NR] = $1; g[NR] = $2; next }
    { i = int((FNR - 1) / 3) + 1; m = (FNR - 1) % 3
      if (m == 0) { e = $1 + o[i]; n = $2 - 1 } else if (m == 1) { e = $1 + o[i]; n = $2 + 1 } else { e = $1 - g[i]; n = $2 - 1 }
      if (e < 0) e = -e; if (n < 0) n = -n; if (e > 1e-12 || n > 1e-12) bad++ }
    END { exit bad > 0 || FNR != 60 }' "$tmp/c2.ref" "$tmp/out"; then ok
else ko "compound bars: depth, normal, separation (closed forms)"; head -3 "$tmp/out"; cat "$tmp/err"; fi
head -1 "$tmp/c1.txt" | "$RVE" contact --method cundall >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "query 1: compound bodies take --method auto or epa" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok
else ko "compound with --method cundall: exit 1"; cat "$tmp/err"; fi
if "$RVE" contact --help | grep -q "Usage: rve contact"; then ok; else ko "--help"; fi

lib_finish
