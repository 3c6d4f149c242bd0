#!/bin/sh
# Ensembles (issue 20): rve gen --count K makes K RVEs; RVE k is, byte for
# byte, what a separate run with --seed S+k-1 writes.  Checked without
# mpirun (a plain loop) and, in the MPI build, with mpirun --oversubscribe
# -np 1, 2, 3 and 4 (K = 5: uneven shares), plus bad input (one line,
# nothing committed on any rank).
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init mpi_gen
cd "$T" || exit 1
K=5
common="-n 30 --morpho gg --max-iter 4 -j 1"
# the oracle: K separate serial runs with the derived seeds
k=1
while [ $k -le $K ]; do
    check "serial run, seed $((10 + k))" 0 "$RVE" gen -q $common --seed $((10 + k)) -o ref_$k.tess --values ref_$k.txt
    k=$((k + 1))
done
same_set() { # description, prefix
    k=1
    while [ $k -le $K ]; do
        same "$1: RVE $k .tess" ref_$k.tess "$2_$k.tess"
        same "$1: RVE $k values" ref_$k.txt "$2_$k.txt"
        k=$((k + 1))
    done
}
check "--count without mpirun" 0 "$RVE" gen -q $common --seed 11 --count $K -o loop.tess --values loop.txt
same_set "--count, one process" loop
check "--count 0 refused" 2 "$RVE" gen -q $common --count 0 -o x.tess
grep_f "--count 0: the message names the option" "--count: expected" "$T/err"
check "--count with --seeds refused" 2 "$RVE" gen --volumes /dev/null --seeds /dev/null --count 2 -o x.tess
# --count 12: two-digit names
check "--count 12" 0 "$RVE" gen -q -n 8 --morpho gg --max-iter 1 --count 12 -o w.tess
ok "names padded to two digits" '[ -f w_01.tess ] && [ -f w_12.tess ] && [ ! -f w_1.tess ]'

MPIRUN=${RVE_MPIRUN:-}
if [ -n "$MPIRUN" ] && command -v "$MPIRUN" >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    export OMPI_MCA_hwloc_base_binding_policy=none
    for p in 1 2 3 4; do
        check "--count $K, -np $p" 0 "$MPIRUN" --quiet --oversubscribe -np $p "$RVE" gen -q $common --seed 11 --count $K \
            -o m$p.tess --values m$p.txt --json
        same_set "-np $p" m$p
        grep_f "-np $p: JSON counts the ranks" "\"ranks\":$p" "$T/out"
    done
    # a rank failing: one line, nothing committed on any rank
    check "-np 2, bad --volumes on every rank" 1 "$MPIRUN" --quiet --oversubscribe -np 2 "$RVE" gen --volumes nowhere \
        --count 2 -o f.tess
    one_line "bad input: one line"
    absent "bad input: no RVE" f_1.tess
    check "-np 2 without --count refused" 2 "$MPIRUN" --quiet --oversubscribe -np 2 "$RVE" gen -q $common -o g.tess
    grep_f "refusal names --count" "give --count" "$T/err"
    absent "refusal: nothing written" g.tess
else
    echo "mpi_gen: serial build (no mpirun): the distributed runs are checked by the MPI build"
fi
lib_finish
