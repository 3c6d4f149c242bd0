/* Random sequential insertion: every body placed at a random free pose. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mathconst.h"

/* ============================================== random sequential insertion */
/* Place all bodies (at their current scale) without overlap, largest first. */
rve_status pack_rsa(pack_ctx *c, double gap)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    int *order = malloc(sizeof(int) * (size_t)n + 1);
    if (!order)
        return rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* sort by decreasing bounding radius (insertion sort is fine for the sizes here? use qsort) */
    for (int i = 1; i < n; i++) {
        int v = order[i], k = i - 1;
        while (k >= 0 && s->b[order[k]].rbound < s->b[v].rbound) {
            order[k + 1] = order[k];
            k--;
        }
        order[k + 1] = v;
    }
    double rm = 0;
    for (int i = 0; i < n; i++)
        rm = fmax(rm, s->b[i].rbound);
    pack_grid g;
    pack_cand *cd = NULL;
    int ncd = 0, capcd = 0;
    rve_status st = RVE_OK;
    if (pack_grid_init(&g, s, 2 * rm + gap) < 0) {
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (int t = 0; t < n && st == RVE_OK; t++) {
        int i = order[t];
        rve_pack_body *b = &s->b[i];
        int placed = 0;
        for (int attempt = 0; attempt < 20000 && !placed; attempt++) {
            for (int k = 0; k < 3; k++) {
                double lo = 0, hi = s->L[k];
                if (!s->periodic) {
                    lo = fmin(b->rbound, 0.5 * s->L[k]) * 0; /* exact wall test below */
                    hi = s->L[k];
                }
                b->x[k] = lo + (hi - lo) * rve_rng_uniform(&c->rng);
            }
            if (c->p->random_orientation && b->shape != RVE_PACK_SPHERE)
                rve_rng_quat(&c->rng, b->q);
            if (!s->periodic && pack_wall_clearance(b, s->L) <= gap)
                continue;
            if (pack_grid_query(&g, b->x, b->rbound, gap, i, &cd, &ncd, &capcd) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                break;
            }
            double m;
            st = pack_min_sep(c, i, cd, ncd, gap, &m, &c->res->narrow_calls);
            if (st != RVE_OK)
                break;
            if (m > gap) {
                placed = 1;
                if (pack_grid_insert(&g, i) < 0)
                    st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            }
        }
        if (st == RVE_OK && !placed)
            st = rve_err_set(c->err, RVE_ECAP, NULL,
                             "random sequential insertion could not place body %d (domain too small?)", i + 1);
    }
done:
    pack_grid_free(&g);
    free(cd);
    free(order);
    return st;
}
