#!/bin/sh
# bench_periodic.sh - periodic RVEs end to end (issue 16): rve gen --periodic,
# then rve mesh --reg on the periodic .tess (box complex, mirrored collapses,
# mirrored polish, gmsh setPeriodic; the box window chosen, rve_reg_opts.box_shift)
# with msh, inp and vtk outputs; prints the
# short edges before and after, the agreement with the input, the mesh
# quality (Neper's q: minimum, share below 0.1) and the times, and checks the
# written files with tests/periodic_oracle.py (gmsh's periodic nodes exact,
# every box-face node with its exact translate, free triangles translates,
# one group per grain, mesh volume = box, *Equation sets).
#
# Sizes: RVE_BENCH_PERIODIC_N (default 1000, which keeps `make bench`
# reasonable: about a minute; "1000 10000" adds the 10^4-grain RVE, which
# takes tens of minutes and a few GB); seeds: RVE_BENCH_PERIODIC_SEEDS
# (default 1; e.g. "1 2 3"); RVE_BENCH_PERIODIC_SNAP=F regularises with
# rve reg --box-snap F (the thin-cap snap, docs/periodic.md) and meshes the
# result instead of rve mesh --reg.  Single-threaded; the date, the machine, the
# commit and, per run, the load average are printed.
RVE=${RVE:-./rve}
SRC=${RVE_SRCDIR:-..}
T=$(mktemp -d /tmp/rve-bench-periodic-XXXXXX)
trap 'rm -rf "$T"' EXIT
j() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" "$1" | head -n 1; }
PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import gmsh, meshio, numpy' >/dev/null 2>&1; then PY=$p; break; fi
done
now() { date +%s.%N; }
commit=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "bench_periodic: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc 2>/dev/null || echo '?') cores ${cpu:+($cpu)}, commit $commit"
for n in ${RVE_BENCH_PERIODIC_N:-1000}; do
for seed in ${RVE_BENCH_PERIODIC_SEEDS:-1}; do
    echo "periodic RVE, $n grains (rve gen -n $n --domain 1,1,1 --periodic --morpho gg --seed $seed); load: $(cut -d' ' -f1-3 /proc/loadavg)"
    t0=$(now)
    if ! "$RVE" gen -n "$n" --domain 1,1,1 --periodic --morpho gg --seed "$seed" -o "$T/g.tess" -q; then
        echo "  rve gen failed"; continue
    fi
    t1=$(now)
    if [ -n "${RVE_BENCH_PERIODIC_SNAP:-}" ]; then
        # the thin-cap snap: rve reg --box-snap F, then rve mesh of the pieces
        # with the element size rve mesh --reg takes (rcl 1 of the grains,
        # not of the pieces: 0.5 (V / N)^(1/3))
        cl=$(awk -v n="$n" 'BEGIN { printf "%.17g", 0.5 / n ^ (1 / 3) }')
        if ! "$RVE" reg "$T/g.tess" --box-snap "$RVE_BENCH_PERIODIC_SNAP" -o "$T/r.tess" -q --json \
            > "$T/reg.json" || ! "$RVE" mesh "$T/r.tess" --cl "$cl" --format msh,inp,vtk \
            --pairs "$T/m-pairs.txt" -o "$T/m" -q --json > "$T/m.json"; then
            echo "  rve reg --box-snap + rve mesh failed"; continue
        fi
        echo "  thin-cap snap --box-snap $RVE_BENCH_PERIODIC_SNAP: $(j "$T/reg.json" box_snapped) vertices moved"
    elif ! "$RVE" mesh "$T/g.tess" --reg --format msh,inp,vtk --pairs "$T/m-pairs.txt" -o "$T/m" -q --json \
        > "$T/m.json"; then
        echo "  rve mesh --reg failed"; continue
    else
        sed 's/.*"reg":{//; s/}.*//' "$T/m.json" > "$T/reg.json"
    fi
    t2=$(now)
    awk -v sb="$(j "$T/reg.json" short_edges_before)" -v sa="$(j "$T/reg.json" short_edges_after)" \
        -v st="$(j "$T/reg.json" short_edges_after_on_tiny_cells)" -v pc="$(j "$T/reg.json" pieces_removed)" \
        -v ls="$(j "$T/reg.json" short_edges_stretched)" \
        -v a0="$(j "$T/reg.json" min_angle_before_deg)" -v a1="$(j "$T/reg.json" min_angle_after_deg)" \
        -v c="$(j "$T/reg.json" agreement_after_collapses)" -v p="$(j "$T/reg.json" agreement_after_polish)" \
        -v g="$(echo "$t1 - $t0" | bc)" \
        'BEGIN { printf "  gen %.1f s; reg: short edges %d -> %d (%d on cells below threshold^3 or their copies; edges of the periodic RVE), %d box-face caps merged, %d lengthened, smallest angle %.1f -> %.1f deg, agreement with the input raster %.2f %% (collapses) -> %.2f %% (polish)\n", g, sb, sa, st, pc, ls, a0, a1, 100 * c, 100 * p }'
    if [ -n "$(j "$T/reg.json" box_cut_angle_deg)" ]; then
        printf '  box window: %s (the box as given when 0,0,0); its planes cut no face and leave no flat cap below %.1f deg\n' \
            "$(sed -n 's/.*"box_shift":\[\([^]]*\)\].*/\1/p' "$T/reg.json" | head -n 1)" "$(j "$T/reg.json" box_cut_angle_deg)"
    fi
    printf '  polish of box-face vertex groups: %s tried, %s moved; steps refused: %s stars meet, %s edge, %s face, %s cell, %s convex, %s quality\n' \
        "$(j "$T/reg.json" box_groups_tried)" "$(j "$T/reg.json" box_groups_moved)" \
        "$(j "$T/reg.json" box_steps_refused_stars_meet)" "$(j "$T/reg.json" box_steps_refused_edge)" \
        "$(j "$T/reg.json" box_steps_refused_face)" "$(j "$T/reg.json" box_steps_refused_cell)" \
        "$(j "$T/reg.json" box_steps_refused_convex)" "$(j "$T/reg.json" box_steps_refused_quality)"
    awk -v n="$(j "$T/m.json" tetrahedra)" -v q="$(j "$T/m.json" q_min)" -v b1="$(j "$T/m.json" q_below_0.1)" \
        -v gm="$(j "$T/m.json" gmsh_seconds)" -v s="$(echo "$t2 - $t1" | bc)" \
        'BEGIN { printf "  mesh (rcl 1, HXT, 1 thread): %d tetrahedra, min q %.4f, %.3f %% below 0.1; reg + mesh + write %.1f s wall (gmsh %.1f s)\n", n, q, 100 * b1, s, gm }'
    if [ -n "$PY" ]; then
        "$PY" "$SRC/tests/periodic_oracle.py" "$T/m" 1,1,1 "$n" > "$T/oracle.txt" 2>&1
        echo "  periodic oracles: $(tail -n 1 "$T/oracle.txt")"
    else
        echo "  periodic oracles: skipped (no python3 with gmsh, meshio, numpy)"
    fi
    rm -f "$T"/m.* "$T"/g.tess "$T"/r.tess
done
done
exit 0
