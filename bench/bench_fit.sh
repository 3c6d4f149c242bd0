#!/bin/sh
# bench_fit.sh - fit time and voxel accuracy (issue 7): bundled sample data/dct,
# a synthetic ~2000-grain 200^3 map made like it, and SV vs Johnson on in100-a.
# Peer figures (Neper 4.10 on in100-a: 80.28 % in 837 s) are in ../shared/anchors.md.
RVE=${RVE:-./rve}
T=$(mktemp -d /tmp/rve-bench-fit-XXXXXX)
trap 'rm -rf "$T"' EXIT
j() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" "$1"; }
row() { # name json
    printf '%-34s %8s s  accuracy %s -> %s  objective %s -> %s  empty %s\n' "$1" "$(j "$2" seconds)" \
        "$(j "$2" voxel_accuracy_initial)" "$(j "$2" voxel_accuracy_final)" \
        "$(j "$2" objective_initial)" "$(j "$2" objective_final)" "$(j "$2" empty_cells)"
}
DCT="$RVE_SRCDIR/data/dct/dct.tif"
if [ -f "$DCT" ]; then
    "$RVE" fit "$DCT" -o "$T/dct.tess" --no-report -q --json > "$T/dct.json" && row "data/dct (defaults)" "$T/dct.json"
fi
if "$RVE" convert --synth --size 200,200,200 --seeds 2500 "$T/big.tif" -q 2>/dev/null; then
    "$RVE" fit "$T/big.tif" -o "$T/big.tess" --no-report -q --json --res 2 --max-time 600 > "$T/big.json" &&
        row "synthetic 200^3 (--res 2, cap 600 s)" "$T/big.json"
else
    echo "synthetic 200^3: skipped (rve convert --synth failed)"
fi
IN="${RVE_SHARED_DATA:-$RVE_SRCDIR/../shared/data}/in100-a.tif"
if [ -f "$IN" ]; then
    for sub in sv johnson; do
        "$RVE" fit "$IN" -o "$T/in100-$sub.tess" --no-report -q --json --sub $sub --res 2 --evals 25 --sweeps 8 \
            > "$T/in100-$sub.json" && row "in100-a --sub $sub" "$T/in100-$sub.json"
    done
    echo "in100-a SV/Johnson time ratio: $(awk -v a="$(j "$T/in100-sv.json" seconds)" -v b="$(j "$T/in100-johnson.json" seconds)" 'BEGIN{printf "%.2f", a/b}')"
    echo "Neper 4.10 defaults (anchors): 837 s, 80.28 %, 2 empty cells"
else
    echo "in100-a: skipped (../shared/data absent)"
fi
