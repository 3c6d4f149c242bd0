/* mpi_seeds.c - the seeds one rank keeps: those whose z lies in a window,
 * in ascending global order, from an array every rank holds or from a
 * stream that every rank replays (no rank holds all seeds then). */
#include "config.h"
#include <rve/mpi.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#define CHUNK 65536

static int keep_push(mpi_kept *k, const double *p, uint32_t label)
{
    if (k->m == k->cap) {
        long nc = k->cap ? 2 * k->cap : 4096;
        double *s = realloc(k->s, (size_t)nc * 4 * sizeof *s);
        if (!s)
            return -1;
        k->s = s;
        uint32_t *l = realloc(k->lab, (size_t)nc * sizeof *l);
        if (!l)
            return -1;
        k->lab = l;
        k->cap = nc;
    }
    memcpy(k->s + 4 * k->m, p, 4 * sizeof *p);
    k->lab[k->m++] = label;
    return 0;
}

/* The seeds with z in [zlo, zhi], in ascending order, and the largest w^2
 * of those left out. */
rve_status mpi_select_seeds(const rve_mpi_seeds *src, const rve_mpi_grid *g, double zlo, double zhi, mpi_kept *k,
                            rve_err *err)
{
    int per[3] = {0, 0, 0};
    for (int a = 0; g && a < 3; a++)
        per[a] = g->periodic[a] != 0;
    k->m = 0;
    k->wmax2 = 0;
    double *buf = src->all ? NULL : malloc(CHUNK * 4 * sizeof *buf);
    uint32_t *lbuf = !src->all && src->next_labels ? malloc(CHUNK * sizeof *lbuf) : NULL;
    if ((!src->all && !buf) || (!src->all && src->next_labels && !lbuf)) {
        free(buf);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    if (!src->all)
        src->reset(src->ctx);
    for (long i0 = 0; i0 < src->n; i0 += CHUNK) {
        long cnt = src->n - i0 < CHUNK ? src->n - i0 : CHUNK;
        const double *b = src->all ? src->all + 4 * i0 : buf;
        if (!src->all)
            src->next(src->ctx, buf, cnt);
        if (lbuf)
            src->next_labels(src->ctx, lbuf, cnt);
        for (long c = 0; c < cnt; c++) {
            const double *p = b + 4 * c;
            uint32_t l = src->labels && src->all ? src->labels[i0 + c] : lbuf ? lbuf[c] : (uint32_t)(i0 + c + 1);
            for (int dz = -per[2]; dz <= per[2]; dz++)
                for (int dy = -per[1]; dy <= per[1]; dy++)
                    for (int dx = -per[0]; dx <= per[0]; dx++) {
                        int d[3] = {dx, dy, dz};
                        double q[4] = {p[0], p[1], p[2], p[3]};
                        for (int a = 0; a < 3; a++)
                            q[a] = d[a] ? p[a] + d[a] * g->period[a] : p[a];
                        if (!(q[2] >= zlo && q[2] <= zhi)) { /* left out: only these can cut in */
                            k->wmax2 = q[3] * q[3] > k->wmax2 ? q[3] * q[3] : k->wmax2;
                            continue;
                        }
                        if (keep_push(k, q, l) != 0) {
                            free(buf), free(lbuf);
                            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
                        }
                    }
        }
    }
    free(buf), free(lbuf);
    return RVE_OK;
}


void mpi_kept_free(mpi_kept *k)
{
    free(k->s);
    free(k->lab);
    memset(k, 0, sizeof *k);
}

rve_status mpi_seeds_check(const rve_mpi_seeds *seeds, const char *what, rve_err *err)
{
    if (!seeds || seeds->n < 1 || seeds->n > INT32_MAX || (!seeds->all && (!seeds->reset || !seeds->next)))
        return rve_err_set(err, RVE_EUSAGE, "", "distributed %s: no seeds", what);
    return RVE_OK;
}

rve_status mpi_kept_check(const mpi_kept *k, rve_err *err)
{
    if (k->m > INT32_MAX)
        return rve_err_set(err, RVE_EUSAGE, "", "more than 2^31 - 1 seeds in one slab");
    return RVE_OK;
}
