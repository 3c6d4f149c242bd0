/* Grain maps: boundary voxels (the control points of a fit), optionally merged on a coarser grid. */
#include "config.h"
#include <rve/raster.h>
#include <stdlib.h>
#include <string.h>

void rve_bpoints_free(rve_bpoints *b)
{
    if (!b)
        return;
    free(b->x);
    free(b->w);
    free(b->lab);
    free(b->start);
    free(b);
}

/* Does voxel (i, j, k) of label l != 0 have a face neighbour of another non-void label? */
static inline int is_boundary(const rve_map *m, size_t v, int i, int j, int k, uint32_t l)
{
    const size_t sy = (size_t)m->nx, sz = (size_t)m->nx * m->ny;
    uint32_t u;
#define NB(cond, off)                         \
    if (cond) {                               \
        u = m->lab[off];                      \
        if (u != 0 && u != l)                 \
            return 1;                         \
    }
    NB(i > 0, v - 1)
    NB(i < m->nx - 1, v + 1)
    NB(j > 0, v - sy)
    NB(j < m->ny - 1, v + sy)
    NB(k > 0, v - sz)
    NB(k < m->nz - 1, v + sz)
#undef NB
    return 0;
}

typedef struct {
    uint64_t key;
    size_t v;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

rve_status rve_map_boundary(const rve_map *m, int res, rve_bpoints **out, rve_err *err)
{
    *out = NULL;
    const size_t n = rve_map_nvox(m);
    const uint32_t L = m->nlabels;
    size_t *cnt = calloc((size_t)L + 2, sizeof *cnt);
    if (!cnt)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (boundary voxels)");
    /* Pass 1: count boundary voxels per label. */
    size_t v = 0, nb = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++, v++) {
                uint32_t l = m->lab[v];
                if (l == 0)
                    continue;
                if (l > L) {
                    free(cnt);
                    return rve_err_set(err, RVE_EINTERNAL, "", "label %u above nlabels %u", l, L);
                }
                if (is_boundary(m, v, i, j, k, l)) {
                    cnt[l]++;
                    nb++;
                }
            }
    /* Voxel indices grouped by label. */
    size_t *off = malloc(((size_t)L + 2) * sizeof *off);
    size_t *vox = malloc((nb ? nb : 1) * sizeof *vox);
    rve_bpoints *b = calloc(1, sizeof *b);
    if (!off || !vox || !b) {
        free(cnt), free(off), free(vox), free(b);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (boundary voxels)");
    }
    off[0] = 0;
    for (uint32_t l = 0; l <= L; l++)
        off[l + 1] = off[l] + cnt[l];
    memset(cnt, 0, ((size_t)L + 2) * sizeof *cnt);
    v = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++, v++) {
                uint32_t l = m->lab[v];
                if (l && is_boundary(m, v, i, j, k, l))
                    vox[off[l] + cnt[l]++] = v;
            }
    (void)n;
    b->nlabels = L;
    b->nvox = nb;
    b->start = malloc(((size_t)L + 2) * sizeof *b->start);
    if (!b->start)
        goto nomem;
    const size_t sy = (size_t)m->nx, sz = (size_t)m->nx * m->ny;
    if (res <= 1) {
        b->n = nb;
        b->x = malloc(3 * (nb ? nb : 1) * sizeof *b->x);
        b->w = malloc((nb ? nb : 1) * sizeof *b->w);
        b->lab = malloc((nb ? nb : 1) * sizeof *b->lab);
        if (!b->x || !b->w || !b->lab)
            goto nomem;
        memcpy(b->start, off, ((size_t)L + 2) * sizeof *off);
        for (uint32_t l = 1; l <= L; l++)
            for (size_t p = off[l]; p < off[l + 1]; p++) {
                size_t u = vox[p];
                int i = (int)(u % sy), j = (int)(u / sy % (size_t)m->ny), k = (int)(u / sz);
                rve_map_voxel_centre(m, i, j, k, b->x + 3 * p);
                b->w[p] = 1;
                b->lab[p] = l;
            }
    } else {
        /* Merge per label and res^3 block: sort each label's voxels by block. */
        const uint64_t bx = (uint64_t)(m->nx + res - 1) / res, by = (uint64_t)(m->ny + res - 1) / res;
        keyed *kv = malloc((nb ? nb : 1) * sizeof *kv);
        if (!kv)
            goto nomem;
        for (size_t p = 0; p < nb; p++) {
            size_t u = vox[p];
            uint64_t i = u % sy, j = u / sy % (size_t)m->ny, k = u / sz;
            kv[p].key = i / res + bx * (j / res + by * (k / res));
            kv[p].v = u;
        }
        size_t np = 0;
        for (uint32_t l = 1; l <= L; l++) {
            if (off[l + 1] > off[l])
                qsort(kv + off[l], off[l + 1] - off[l], sizeof *kv, cmp_keyed);
            for (size_t p = off[l]; p < off[l + 1]; p++)
                np += p == off[l] || kv[p].key != kv[p - 1].key;
        }
        b->n = np;
        b->x = calloc(3 * (np ? np : 1), sizeof *b->x);
        b->w = calloc((np ? np : 1), sizeof *b->w);
        b->lab = malloc((np ? np : 1) * sizeof *b->lab);
        if (!b->x || !b->w || !b->lab) {
            free(kv);
            goto nomem;
        }
        size_t q = 0;
        b->start[0] = b->start[1] = 0;
        for (uint32_t l = 1; l <= L; l++) {
            b->start[l] = q;
            for (size_t p = off[l]; p < off[l + 1]; p++) {
                if (p > off[l] && kv[p].key != kv[p - 1].key)
                    q++;
                size_t u = kv[p].v;
                int i = (int)(u % sy), j = (int)(u / sy % (size_t)m->ny), k = (int)(u / sz);
                double c[3];
                rve_map_voxel_centre(m, i, j, k, c);
                for (int a = 0; a < 3; a++)
                    b->x[3 * q + a] += c[a];
                b->w[q] += 1;
                b->lab[q] = l;
            }
            if (off[l + 1] > off[l])
                q++;
        }
        b->start[L + 1] = q;
        for (size_t p = 0; p < np; p++)
            for (int a = 0; a < 3; a++)
                b->x[3 * p + a] /= b->w[p];
        free(kv);
    }
    free(cnt), free(off), free(vox);
    *out = b;
    return RVE_OK;
nomem:
    free(cnt), free(off), free(vox);
    rve_bpoints_free(b);
    return rve_err_set(err, RVE_ENOMEM, "", "out of memory (boundary voxels)");
}
