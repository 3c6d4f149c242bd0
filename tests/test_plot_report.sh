#!/bin/sh
# The pictures of rve fit --report and rve gen --plot, read back by an
# independent PNG decoder (tests/pngcheck.py: zlib and struct): sizes from
# the documented layout, void voxels black where the map has them, the fit
# grey where it agrees, every stage's colour in the convergence plots, and
# librve free of cairo and libpng (pictures are the program's).
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init plot_report
lib_python plot_report "zlib, struct"

# a 24 x 20 x 12 map of three box grains (split at x = 12 below y = 10) and
# a void box x in [2, 6), y in [12, 16) through every z
"$PY" - "$T/m.raw" <<'EOF'
import sys
NX, NY, NZ = 24, 20, 12
out = bytearray()
for k in range(NZ):
    for j in range(NY):
        for i in range(NX):
            lab = 3 if j >= 10 else (1 if i < 12 else 2)
            if 2 <= i < 6 and 12 <= j < 16:
                lab = 0
            out.append(lab)
open(sys.argv[1], "wb").write(out)
EOF
check "fit with report" 0 "$RVE" fit -q "$T/m.raw" --raw 24,20,12,1 -o "$T/f.tess" --report "$T/rep"
for f in slice_x slice_y slice_z convergence accuracy; do
    ok "report has $f.png" "[ -s '$T/rep/$f.png' ]"
done

# slice_z: W = 24, H = 20, s = 13 (13 x 24 <= 320 < 14 x 24), panels at
# x = 56 + p (13 W + 44), y = 48; width 56 + 3 x 312 + 2 x 44 + 20 = 1100,
# height 48 + 260 + 70 = 378 (fit_report.h)
"$PY" - "$SRC/tests" "$T/rep" "$T/f.csv" <<'EOF' >"$T/py.out" 2>&1
import sys
sys.path.insert(0, sys.argv[1])
import pngcheck
rep = sys.argv[2]
W, H, s, L, TOP, GAP = 24, 20, 13, 56, 48, 44
fails = []
w, h, rows = pngcheck.read_png(rep + "/slice_z.png")
if (w, h) != (1100, 378):
    fails.append("slice_z.png is %d x %d, expected 1100 x 378" % (w, h))
def centre(p, u, v):
    return L + p * (s * W + GAP) + u * s + s // 2, TOP + (H - 1 - v) * s + s // 2
black, white, grey = (0, 0, 0), (255, 255, 255), (200, 200, 200)
for u in range(W):
    for v in range(H):
        void = 2 <= u < 6 and 12 <= v < 16
        for p in (0, 1, 2):  # the fit panel (1) shows the cells, also over void
            x, y = centre(p, u, v)
            c = pngcheck.pixel(rows, x, y)
            if void and p != 1 and c != black:
                fails.append("panel %d voxel (%d, %d): void but %s" % (p, u, v, c))
            if (p == 1 or not void) and c in (black, white):
                fails.append("panel %d voxel (%d, %d): grain but %s" % (p, u, v, c))
        # away from grain boundaries the fit of three boxes agrees
        inner = not void and u not in (11, 12) and v not in (9, 10) and not (1 <= u <= 6 and 11 <= v <= 16)
        if inner and pngcheck.pixel(rows, *centre(2, u, v)) != grey:
            fails.append("misassigned panel voxel (%d, %d) not grey" % (u, v))
# the panel frames (axes) are drawn in black just outside the image
for p in (0, 1, 2):
    x0 = L + p * (s * W + GAP)
    if pngcheck.pixel(rows, x0 - 1, TOP + 100) != black:
        fails.append("panel %d has no frame at its left" % p)
# the key: a black swatch (void) below the panels
if not pngcheck.near(rows, w, h, L + 6, TOP + H * s + 52, black, 2, 0):
    fails.append("no black key swatch")
# convergence and accuracy: 760 x 420, the colour of every stage the
# history CSV lists (convergence: those with an objective), and a dashed
# grey stage mark when there is more than one stage
import csv, math
col = {"initial": (30, 90, 200), "eq6.5": (30, 90, 200), "hinge": (150, 60, 180),
       "classify": (40, 160, 60), "polish": (200, 60, 30)}
hist = [r for r in csv.DictReader(open(sys.argv[3])) if r["stage"] in col]
for name in ("convergence", "accuracy"):
    w, h, rows = pngcheck.read_png("%s/%s.png" % (rep, name))
    if (w, h) != (760, 420):
        fails.append("%s.png is %d x %d" % (name, w, h))
    want = {col[r["stage"]] for r in hist if name == "accuracy" or math.isfinite(float(r["objective"] or "nan"))}
    found = {tuple(rows[y][3 * x:3 * x + 3]) for y in range(h) for x in range(w)}
    for c in sorted(want):
        if c not in found:
            fails.append("%s.png has no %s" % (name, c))
    if len({col[r["stage"]] for r in hist}) > 1 and (89, 89, 89) not in found:
        fails.append("%s.png has no stage mark" % name)
    if len(want) < 1:
        fails.append("%s: no stage in the history" % name)
for f in fails[:20]:
    print("FAIL:", f)
print("checked, %d failures" % len(fails))
sys.exit(1 if fails else 0)
EOF
grep_f "report pictures decoded and checked" "checked, 0 failures" "$T/py.out"

# rve gen --plot: gg prescribes diameq and 1-sphericity: two 600 x 400 panels
check "gen --plot" 0 "$RVE" gen -q -n 60 --morpho gg --max-iter 3 -o "$T/g.tess" --plot "$T/g.png"
"$PY" - "$SRC/tests" "$T/g.png" <<'EOF' >"$T/py.out" 2>&1
import sys
sys.path.insert(0, sys.argv[1])
import pngcheck
w, h, rows = pngcheck.read_png(sys.argv[2])
ok = (w, h) == (1200, 400)
for panel in (0, 1):  # both curves in both panels
    for col in ((200, 30, 30), (30, 60, 200)):
        ok = ok and any(pngcheck.near(rows, w, h, x, y, col, 0, 0) for y in range(h)
                        for x in range(600 * panel, 600 * panel + 600))
print("gen plot ok" if ok else "gen plot %d x %d wrong" % (w, h))
EOF
grep_f "gen plot decoded: size and both curves in both panels" "gen plot ok" "$T/py.out"

# pictures are the program's: librve needs neither cairo nor libpng
lib=$(ls "$BUILD"/.libs/librve.so.* 2>/dev/null | head -n 1)
if [ -n "$lib" ] && command -v objdump >/dev/null; then
    objdump -p "$lib" | grep NEEDED >"$T/need"
    ok "librve needs neither cairo nor libpng" '! grep -q -E "cairo|png" "$T/need"'
    objdump -p "$BUILD/.libs/rve" 2>/dev/null | grep NEEDED >"$T/rneed" || objdump -p "$RVE" | grep NEEDED >"$T/rneed"
    ok "rve links cairo" 'grep -q cairo "$T/rneed"'
fi
lib_finish
