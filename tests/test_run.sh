#!/bin/sh
# rve run as a layer over the library pipeline: its --json fit figures are
# those of the tessellation it wrote (rasterised by rve raster and compared
# with the map by rve compare: an independent path), --gen goes from a
# synthesis to a mesh, and bad input fails with one message, the documented
# exit status and no output folder left behind.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init test_run
MAP=$SRC/data/dct/dct.tif
[ -r "$MAP" ] || { echo "SKIP: no $MAP"; exit 77; }
num() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p" "$2" | head -n 1; }

check "run: quick fit, json" 0 "$RVE" run "$MAP" -o "$T/q" --fit-options "--sweeps 1 --polish 0 --classify 0 --hinge 0" \
    --no-reg --no-mesh --json -q
cp "$T/out" "$T/run.json"
for k in fit_voxel_accuracy fit_voxel_accuracy_initial fit_objective fit_objective_initial; do
    grep_f "run --json reports $k" "\"$k\":" "$T/run.json"
done
check "raster the written fit" 0 "$RVE" raster "$T/q/fit.tess" --like "$MAP" -o "$T/q.tif" -q
check "compare it with the map" 0 "$RVE" compare "$MAP" "$T/q.tif" --match identity --json -q
acc=$(num fit_voxel_accuracy "$T/run.json")
agr=$(num agreement "$T/out")
ok "reported fit accuracy ($acc) is the written fit's ($agr)" '[ -n "$acc" ] && [ "$acc" = "$agr" ]'
o0=$(num fit_objective_initial "$T/run.json")
o1=$(num fit_objective "$T/run.json")
ok "objective went down ($o0 -> $o1)" "awk 'BEGIN { exit !($o1 <= $o0 && $o1 > 0) }'"
absent "--no-reg: no reg.tess" "$T/q/reg.tess"
absent "--no-mesh: no mesh" "$T/q/mesh.msh"

# synthesis to a periodic mesh in one command
check "run --gen periodic" 0 "$RVE" run --gen gg -n 12 --periodic -o "$T/g" --format msh,inp --json -q
grep_f "gen: periodic in the summary" '"periodic":true' "$T/out"
grep_f "gen: periodic mesh (\$Periodic)" '^\$Periodic' "$T/g/mesh.msh"
grep_f "gen: Abaqus equations" '^\*Equation' "$T/g/mesh.inp"
absent "gen periodic: no reg.tess" "$T/g/reg.tess"
check "run --gen, not periodic" 0 "$RVE" run --gen gg -n 10 -o "$T/h" -q
ok "gen: gen.tess, reg.tess and mesh.msh" "[ -s '$T/h/gen.tess' ] && [ -s '$T/h/reg.tess' ] && [ -s '$T/h/mesh.msh' ]"

# bad input: one line, exit status, nothing left
check "bad morphology" 2 "$RVE" run --gen foo -n 5 -o "$T/x1"
one_line "bad morphology: one line"
absent "bad morphology: no folder" "$T/x1"
check "--gen without -n" 2 "$RVE" run --gen gg -o "$T/x2"
check "bad --fit-options value" 2 "$RVE" run "$MAP" -o "$T/x3" --fit-options "--sweeps x"
absent "bad fit option: no folder" "$T/x3"
check "map and --gen" 2 "$RVE" run --gen gg -n 5 "$MAP" -o "$T/x4"
check "missing map" 1 "$RVE" run "$T/none.tif" -o "$T/x5"
one_line "missing map: one line"
absent "missing map: no folder" "$T/x5"
lib_finish
