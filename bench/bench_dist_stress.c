/* bench_dist_stress - the near-degenerate families of issue 17
 * (tests/dist_flat.h) at volume: N queries per family (argument; default
 * 10^5, the target is 10^7), each checked against the binary128 /
 * long double oracle.  Prints, per family and magnitude class, the queries
 * beyond 100 eps L, wrong intersect / separate decisions, uncertain oracle
 * verdicts, the worst error in eps L and the exact-fallback rate.  Exit 1 on
 * any failure.  Usage: bench_dist_stress [N_POINT [N_PAIR [SEED [N_TIED
 * [N_POSED [N_LARGE]]]]]] (N_PAIR defaults to N_POINT; pair queries cost about 3
 * times more; N_TIED, the near-tied faces family of tests/dist_tied.h,
 * defaults to N_POINT / 5; N_POSED, the pair family as posed bodies
 * (flat_pose) and with a posed box (flat_box), to N_PAIR / 2; N_LARGE,
 * the pair family with 16 to 32 vertices per body, half of them posed, to
 * N_PAIR / 100: its oracle costs O(n^4) per query, up to 40 ms; and
 * N_TIED points next to a near-duplicated vertex, flat_draw_near_vertex). */
#include "config.h"
#include "dist_tied.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    long nfam[2];
    nfam[0] = argc > 1 ? atol(argv[1]) : 100000;
    nfam[1] = argc > 2 ? atol(argv[2]) : nfam[0];
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 20261124;
    long ntied = argc > 4 ? atol(argv[4]) : nfam[0] / 5;
    long nposed = argc > 5 ? atol(argv[5]) : nfam[1] / 2;
    long nlarge = argc > 6 ? atol(argv[6]) : nfam[1] / 100;
    int failed = 0;
    rng_seed(seed);
    /* families: points, pairs, pairs as posed bodies, the near-tied faces
     * (points over shared edges of faces coplanar to rounding), and pairs
     * whose B is a posed flat box (flat_box, as many as the posed pairs),
     * and pairs of 16 to 32 vertices (the pair loop's larger rows), and
     * points next to a vertex with a near duplicate, on long nearly aligned
     * edges (flat_draw_near_vertex; as many as the near-tied faces) */
    static const char *name[7] = {"point", "pair", "posed", "tied", "box", "large", "nearv"};
    const long count[7] = {nfam[0], nfam[1], nposed, ntied, nposed, nlarge, ntied};
    const flat_sizes large = {16, 17};
    for (int family = 0; family < 7; family++) {
        /* class 0: magnitude 1 (offsets up to 1e4), 1: scaled by 10^k */
        fam_stats st[2] = {{0}, {0}};
        st[0].witness = st[1].witness = 1;
        long shown = 0;
        clock_t t0 = clock();
        for (long t = 0; t < count[family]; t++) {
            flat_query Q;
            char msg[512];
            if (family == 3) {
                tied_draw(&Q);
            } else if (family == 6) {
                flat_draw_near_vertex(&Q);
            } else if (family == 5) {
                flat_draw_sized(&Q, FLAT_PAIR, &large);
                if (t % 2)
                    flat_pose(&Q);
            } else {
                flat_draw(&Q, family == FLAT_POINT ? FLAT_POINT : FLAT_PAIR);
                if (family == 2)
                    flat_pose(&Q);
                else if (family == 4)
                    flat_box(&Q);
            }
            int c = Q.mag != 1;
            if (flat_check(&Q, &st[c], msg, sizeof msg) && shown < 5) {
                printf("  FAIL %s query %ld: %s\n", name[family], t, msg);
                shown++;
            }
        }
        for (int c = 0; c < 2; c++) {
            printf("%-6s %-12s %9ld queries: %ld beyond 100 eps L, %ld wrong decisions, %ld uncertain, worst %.2f eps L, "
                   "witness within %.2f eps L, exact fallbacks %.5f per query\n",
                   name[family], c ? "10^[-300,300]" : "magnitude 1", st[c].n, st[c].bad, st[c].wrong, st[c].uncertain,
                   st[c].worst, st[c].worst_wit, (double)st[c].exact / (double)(st[c].n ? st[c].n : 1));
            failed |= st[c].bad || st[c].wrong;
        }
        printf("  (%.1f s CPU)\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
        fflush(stdout);
    }
    return failed;
}
