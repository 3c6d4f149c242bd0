#!/bin/sh
# bench_mesh.sh - regularisation and meshing (issue 8): rve run on in100-a and on
# the bundled sample, beside Neper's figures on its own fit of in100-a
# (../shared/anchors.md; Neper cannot run here: its meshing needs Netgen).
RVE=${RVE:-./rve}
T=$(mktemp -d /tmp/rve-bench-mesh-XXXXXX)
trap 'rm -rf "$T"' EXIT
j() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" "$1" | head -n 1; }
case_run() { # name map
    if ! "$RVE" run "$2" -o "$T/run" -q --json > "$T/run.json"; then
        echo "$1: rve run failed"
        return
    fi
    sed 's/.*"reg":{//; s/}.*//' "$T/run.json" > "$T/reg.json"
    sed 's/.*"mesh":{//; s/}.*//' "$T/run.json" > "$T/mesh.json"
    printf '%s\n' "$1"
    awk -v sb="$(j "$T/reg.json" short_edges_before)" -v sa="$(j "$T/reg.json" short_edges_after)" \
        -v a0="$(j "$T/reg.json" min_angle_before_deg)" -v a1="$(j "$T/reg.json" min_angle_after_deg)" \
        -v f="$(j "$T/run/fit.json" voxel_accuracy_final)" -v c="$(j "$T/reg.json" accuracy_after_collapses)" \
        -v p="$(j "$T/reg.json" accuracy_after_polish)" -v s="$(j "$T/reg.json" seconds)" \
        'BEGIN { printf "  reg: short edges %d -> %d, smallest angle %.1f -> %.1f deg, accuracy fit %.2f %% -> collapses %.2f %% -> polish %.2f %%, %.1f s\n", sb, sa, a0, a1, 100 * f, 100 * c, 100 * p, s }'
    awk -v n="$(j "$T/mesh.json" tetrahedra)" -v q="$(j "$T/mesh.json" q_min)" -v b1="$(j "$T/mesh.json" q_below_0.1)" \
        -v b3="$(j "$T/mesh.json" q_below_0.3)" -v s="$(j "$T/mesh.json" seconds)" \
        'BEGIN { printf "  mesh --rcl 1: %d tetrahedra, min q %.4f, %.3f %% below 0.1, %.2f %% below 0.3, %.1f s\n", n, q, 100 * b1, 100 * b3, s }'
    rm -rf "$T/run"
}
IN="${RVE_SHARED_DATA:-$RVE_SRCDIR/../shared/data}/in100-a.tif"
if [ -f "$IN" ]; then
    case_run "in100-a (rve run defaults)" "$IN"
    echo "  Neper 4.10 (anchors): -reg 1 leaves 126 of 854 short edges, accuracy 80.28 -> 80.13 %, 0.65 s;"
    echo "  -M (dela:gmsh) 282 s, 26,049 second-order tetrahedra, min q 0.0138, 0.60 % below 0.1"
else
    echo "in100-a: skipped (../shared/data absent)"
fi
DCT="$RVE_SRCDIR/data/dct/dct.tif"
[ -f "$DCT" ] && case_run "data/dct (rve run defaults)" "$DCT"
exit 0
