#!/bin/sh
# rve stat / compare / convert: formats, options, bad input, the bundled sample.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init raster-cli

for sub in stat compare convert; do
    check "help $sub" 0 "$RVE" $sub --help
    grep_f "help $sub has an example" "Example" "$T/out"
done

# A small synthetic map, converted through every format and back.
check "synth" 0 "$RVE" convert -q --synth --size 30,24,20 --seeds 40 --mcs 5 "$T/a.tif"
check "to tesr" 0 "$RVE" convert -q "$T/a.tif" "$T/a.tesr"
check "to ascii tesr" 0 "$RVE" convert -q --ascii "$T/a.tif" "$T/b.tesr"
check "to external big-endian tesr" 0 "$RVE" convert -q --external --big-endian --bytes 4 "$T/a.tesr" "$T/c.tesr"
check "to raw" 0 "$RVE" convert -q --bytes 2 "$T/c.tesr" "$T/a.raw"
check "raw back to tif" 0 "$RVE" convert -q --no-compress --dims 30,24,20 --in-bytes 2 "$T/a.raw" "$T/z.tif"
check "tif back to raw" 0 "$RVE" convert -q --bytes 2 "$T/z.tif" "$T/z.raw"
same "raw round trip through tif, tesr, ascii, external" "$T/a.raw" "$T/z.raw"
check "compare identical" 0 "$RVE" compare --json "$T/a.tif" "$T/b.tesr"
grep_f "identical maps agree fully" '"agreement":1,' "$T/out"
check "stat json" 0 "$RVE" stat --json "$T/a.tesr"
grep_f "stat json has grains" '"grains":' "$T/out"
check "stat table to file" 0 "$RVE" stat -q -o "$T/s.txt" "$T/a.tif"
grep_f "stat table header" "^# id label nvox" "$T/s.txt"

# Voxel size and origin: override, carried by .tesr and TIFF.
check "geometry" 0 "$RVE" convert -q --voxel-size 0.5,0.25,2 --origin 1,2,3 "$T/a.tif" "$T/g.tif"
check "geometry to tesr" 0 "$RVE" convert -q "$T/g.tif" "$T/g.tesr"
grep_f "tesr voxel size" "0.5 0.25 2" "$T/g.tesr"
grep_f "tesr origin" "^   1 2 3" "$T/g.tesr"

# Cleaning: crop, renumber, remove small.
check "crop + renumber" 0 "$RVE" convert -q --crop 5,5,5,10,10,10 --renumber "$T/a.tif" "$T/crop.tesr"
grep_f "crop size" "10 10 10" "$T/crop.tesr"
grep_f "crop origin" "^   5 5 5" "$T/crop.tesr"
check "remove small" 0 "$RVE" convert --remove-small 1000000 "$T/a.tif" "$T/none.tif"
grep_f "every grain removed" "grains under 1000000 voxels made void" "$T/err"

# Bad input: one line, exit 1; bad usage: exit 2.
printf 'II*\000garbage' >"$T/bad.tif"
check "corrupt tif" 1 "$RVE" stat "$T/bad.tif"
one_line "corrupt tif"
grep_f "corrupt tif names the file" "bad.tif" "$T/err"
head -c 3000 "$T/z.tif" >"$T/trunc.tif"
check "truncated tif" 1 "$RVE" stat "$T/trunc.tif"
one_line "truncated tif"
check "missing file" 1 "$RVE" stat "$T/nothere.tif"
one_line "missing file"
printf '***tesr\n **format\n 2.1\n **general\n 3\n 2 2 2\n 1 1 1\n **data\n ascii\n 1 2 3\n***end\n' >"$T/short.tesr"
check "short tesr" 1 "$RVE" convert "$T/short.tesr" "$T/x.tif"
one_line "short tesr"
check "no partial output" 1 test -e "$T/x.tif"
check "raw without dims" 2 "$RVE" stat "$T/a.raw"
check "raw of wrong size" 1 "$RVE" stat --dims 30,24,21 "$T/a.raw"
check "different grids" 1 "$RVE" compare "$T/a.tif" "$T/crop.tesr"
check "unknown output format" 2 "$RVE" convert "$T/a.tif" "$T/a.png"
echo "not a map" >"$T/a.xyz"
check "unknown input format: a data problem (exit 1)" 1 "$RVE" stat "$T/a.xyz"
one_line "unknown input format: one line"
check "bad voxel size" 2 "$RVE" stat --voxel-size -1 "$T/a.tif"
check "bad crop" 2 "$RVE" convert --crop 25,0,0,10,10,10 "$T/a.tif" "$T/x.tif"
check "unknown option" 2 "$RVE" stat --nosuch "$T/a.tif"

# The bundled sample, and that its generator still makes it bit for bit
# (skipped in the sanitizer build: a few seconds of CPU there become minutes).
if [ -f "$SRC/data/dct/dct.tif" ]; then
    check "sample stat" 0 "$RVE" stat --no-area --json "$SRC/data/dct/dct.tif"
    grep_f "sample has 358 grains" '"grains":358,' "$T/out"
    if [ -z "${RVE_TEST_SCALE:-}" ]; then
        check "regenerate sample" 0 "$RVE" convert -q --synth "$T/dct.tif"
        check "regenerated sample agrees" 0 "$RVE" compare --match identity --json "$SRC/data/dct/dct.tif" "$T/dct.tif"
        grep_f "regenerated sample is identical" '"agreement":1,' "$T/out"
    fi
fi

lib_finish
