#!/bin/sh
# Every example of every `rve SUB --help` runs as written, in a temp folder
# holding the bundled data (data/ -> the source tree's data/) and the small
# inputs the examples name (grains.tif, fit.tess, gen.tess, vols.txt,
# seeds.txt, scan.raw), made here first.  An example must exit 0 and write what its -o
# names; an example followed by a "-> OUTPUT" line must print that output.
# Examples of more than a few seconds run only with RVE_TEST_LONG=1 (make
# check-long); they are listed in LONG below and counted as skipped.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init help_examples

# in the order that makes the inputs of the later ones (fit.tess -> reg ->
# fit-reg.tess -> mesh; raster -> fit.tif -> compare)
SUBS="tess gen convert fit reg mesh raster stat compare run pack dist contact"
LONG='rve run data/dct/dct.tif -o dct-run
rve run data/dct/dct.tif -o dct-quick --fit-options "--max-time 5" --no-polish --format msh,inp --json
rve fit grains.tif -o fit.tess --max-time 10
rve fit data/dct/dct.tif -o dct.tess --json
rve gen -n 1000 --domain 1,1,1 --morpho gg -o gg.tess --plot gg.png --json
rve convert --synth --size 200,200,200 --seeds 2500 big.tif
rve pack --shape sphere --size '"'"'lognormal(1,0.2)'"'"' -n 1000 --periodic -o spheres.txt'

cd "$T" || exit 1
ln -s "$SRC/data" data
# the inputs the examples name
"$RVE" convert --synth --size 40,40,40 --seeds 30 grains.tif >/dev/null 2>&1 &&
"$RVE" fit grains.tif -o fit.tess --sweeps 2 --polish 2 --classify 0 --hinge 0 --no-report -q &&
"$RVE" convert --synth --size 256,256,4 --seeds 40 --bytes 2 slab.raw >/dev/null 2>&1 &&
"$RVE" tess -n 30 -o gen.tess -q ||
    { echo "help_examples: cannot make the inputs"; exit 1; }
# scan.raw: the 256 x 256 x 100 16-bit raw of rve convert's example, 25
# copies of a 4-voxel slab (a synthetic map of that size takes 6 s)
i=0
while [ $i -lt 25 ]; do cat slab.raw; i=$((i + 1)); done >scan.raw
awk 'BEGIN { for (i = 1; i <= 50; i++) print 1 + (i * 37 % 11) / 10 }' >vols.txt
awk 'BEGIN { for (i = 0; i < 100; i++) printf "%.3f %.3f %.3f\n", 1 + (i * 7 % 58), 1 + (i * 13 % 78), 1 + (i * 29 % 48) }' >seeds.txt

ran=0
skipped=0
for sub in $SUBS; do
    "$RVE" help "$sub" >"$T/help.$sub" 2>&1 || ko "rve help $sub"
    # the example section: its command lines and their expected outputs
    sed -n '/^Examples*:/,$p' "$T/help.$sub" | sed 's/^ *//' >"$T/ex.$sub"
    n=$(grep -c -e '^rve ' -e '^printf .*| *rve ' "$T/ex.$sub")
    ok "rve help $sub has an example" "[ $n -gt 0 ]"
    prev=
    while IFS= read -r line; do
        case $line in
        '-> '*)
            # expected output of the previous example (a pipe into rve)
            want=${line#-> }
            want=${want%%   (*}
            if [ -n "$prev" ]; then
                got=$(cat "$T/exout" | tr -s ' ' | sed 's/ *$//')
                ok "$sub example prints '$want' (got '$got')" '[ "$got" = "$want" ]'
            fi
            continue ;;
        rve\ *|printf\ *\|*rve\ *) ;;
        *) continue ;;
        esac
        prev=
        if printf '%s\n' "$LONG" | grep -qxF -- "$line" && [ "${RVE_TEST_LONG:-}" != 1 ]; then
            skipped=$((skipped + 1))
            continue
        fi
        # run it as written, with rve being the program under test
        cmd=$(printf '%s' "$line" | sed "s#\\(^\\|| *\\)rve #\\1\"\$RVE\" #")
        if (eval "$cmd") >"$T/exout" 2>"$T/exerr"; then
            pass=$((pass + 1))
            prev=1
        else
            ko "example of rve $sub exits $?: $line"
            sed 's/^/    /' "$T/exerr" | tail -5
            continue
        fi
        ran=$((ran + 1))
        # what -o names is there (a file, a folder, or a stem with extensions)
        o=$(printf '%s\n' "$line" | sed -n 's/.* -o \([^ ]*\).*/\1/p')
        if [ -n "$o" ]; then
            ok "example of rve $sub wrote $o" "[ -e '$o' ] || ls '$o'.* >/dev/null 2>&1"
        fi
    done <"$T/ex.$sub"
done
echo "help_examples: $ran examples run, $skipped long ones skipped (RVE_TEST_LONG=1 runs them)"
ok "some examples ran" "[ $ran -gt 15 ]"
lib_finish
