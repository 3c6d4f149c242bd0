/* reg_measure.c - edge-length statistics of a complex before and after
 * regularisation, cell volumes. */
#include "config.h"
#include "mesh/reg_state.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ---------------------------------------------- edges of the periodic RVE */
/* On a periodic box complex an edge on a box face has copies on the opposite
 * faces (1, 3 on a box edge): they are one edge of the periodic RVE and are
 * counted once.  Each vertex v maps to its canonical copy canon[v] (the one
 * on the lower planes, by exact coordinates: rve_cx_periodic_links) and the
 * bits sh[v] of the upper planes it was moved from; an edge's key is its two
 * canonical ends and the difference of their shifts, so that an edge on a box
 * face and its translates share a key while two edges from different copies
 * of one box-face vertex into the interior do not.  Returns 0 with *canon
 * NULL when the complex is not periodic (keys are then the vertex ids), -1
 * when out of memory. */
typedef struct {
    int *canon;
    unsigned char *sh;
} edge_keys;

static void edge_keys_free(edge_keys *k)
{
    free(k->canon);
    free(k->sh);
}

static int edge_keys_init(const rve_cx *c, const int *flen, edge_keys *k)
{
    k->canon = NULL;
    k->sh = NULL;
    unsigned planes = 0;
    for (int a = 0; a < 3; a++)
        if (c->fper && c->periodic[a])
            planes |= 3u << (2 * a);
    if (!planes || c->nv >= (1 << 29))
        return 0;
    unsigned *mask = calloc((size_t)c->nv + 1, sizeof *mask);
    int *used = calloc((size_t)c->nv + 1, sizeof *used);
    k->canon = malloc(((size_t)c->nv + 1) * sizeof *k->canon);
    k->sh = calloc((size_t)c->nv + 1, 1);
    int *link = NULL;
    if (mask && used && k->canon && k->sh) {
        for (int f = 0; f < c->nf; f++) {
            int n = flen ? flen[f] : c->foff[f + 1] - c->foff[f];
            for (int j = 0; j < n; j++)
                used[c->fv[c->foff[f] + j]] = 1;
        }
        for (int v = 0; v < c->nv; v++)
            for (int a = 0; a < 3; a++) {
                if (c->v[3 * v + a] == c->dom_lo[a])
                    mask[v] |= 1u << (2 * a);
                if (c->v[3 * v + a] == c->dom_hi[a])
                    mask[v] |= 2u << (2 * a);
            }
        link = rve_cx_periodic_links(c, mask, used, planes);
    }
    if (!link) {
        free(mask);
        free(used);
        edge_keys_free(k);
        return -1;
    }
    for (int v = 0; v < c->nv; v++) {
        int w = v;
        for (int a = 0; a < 3; a++)
            if (used[v] && (planes >> (2 * a + 1) & 1u) && c->v[3 * w + a] == c->dom_hi[a] &&
                link[3 * w + a] >= 0) {
                w = link[3 * w + a];
                k->sh[v] |= (unsigned char)(1u << a);
            }
        k->canon[v] = w;
    }
    free(link);
    free(mask);
    free(used);
    return 0;
}

/* The key of edge (p, q): vertex ids, or (periodic) canonical ends and the
 * shift difference (2 bits per axis). */
static uint64_t edge_key(const edge_keys *k, int p, int q)
{
    if (!k->canon) {
        int lo = p < q ? p : q, hi = p < q ? q : p;
        return ((uint64_t)(uint32_t)lo << 32) | (uint32_t)hi;
    }
    if (k->canon[p] > k->canon[q]) {
        int t = p;
        p = q;
        q = t;
    }
    unsigned rel = 0;
    for (int a = 0; a < 3; a++)
        rel |= (unsigned)(1 + (k->sh[q] >> a & 1) - (k->sh[p] >> a & 1)) << (2 * a);
    return ((uint64_t)(uint32_t)k->canon[p] << 35) | ((uint64_t)(uint32_t)k->canon[q] << 6) | rel;
}

/* Edge-length histogram, counts and shortest edge; on a periodic box complex
 * each edge of the periodic RVE once (its copies on opposite box faces are
 * one edge, edge_keys). */
void reg_histogram(const rve_cx *c, const int *flen, double thr, size_t *hist, size_t *nedges,
                      size_t *nshort, double *minlen)
{
    size_t m = 0;
    for (int f = 0; f < c->nf; f++)
        m += (size_t)(flen ? flen[f] : c->foff[f + 1] - c->foff[f]);
    /* key and the vertex pair, to measure the edge after sorting by key */
    uint64_t *e = malloc((2 * m + 2) * sizeof *e);
    edge_keys ek;
    for (int i = 0; i < RVE_REG_HIST; i++)
        hist[i] = 0;
    *nedges = *nshort = 0;
    *minlen = INFINITY;
    if (!e || edge_keys_init(c, flen, &ek) != 0) {
        free(e);
        return;
    }
    size_t k = 0;
    for (int f = 0; f < c->nf; f++) {
        int n = flen ? flen[f] : c->foff[f + 1] - c->foff[f];
        for (int j = 0; j < n; j++) {
            int p = c->fv[c->foff[f] + j], q = c->fv[c->foff[f] + (j + 1) % n];
            e[2 * k] = edge_key(&ek, p, q);
            e[2 * k + 1] = ((uint64_t)(uint32_t)p << 32) | (uint32_t)q;
            k++;
        }
    }
    edge_keys_free(&ek);
    qsort(e, k, 2 * sizeof *e, rve_reg_cmp_u64);
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && e[2 * i] == e[2 * i - 2])
            continue;
        int lo = (int)(e[2 * i + 1] >> 32), hi = (int)(e[2 * i + 1] & 0xffffffffu);
        double L = v3_dist(c->v + 3 * lo, c->v + 3 * hi);
        (*nedges)++;
        if (L < thr)
            (*nshort)++;
        if (L < *minlen)
            *minlen = L;
        int bin = (int)(L / thr / 0.25);
        if (bin >= RVE_REG_HIST || bin < 0)
            bin = RVE_REG_HIST - 1;
        hist[bin]++;
    }
    free(e);
}

/* Cell volumes of the complex in one pass over the faces, each cell
 * relative to one of its vertices.  flen == NULL: loops foff[f]..foff[f+1]
 * fanned around c->fpt; else the loops of length flen[f] being regularised,
 * fanned around their vertex mean. */
int reg_cell_volumes(const rve_cx *c, const int *flen, double *vol)
{
    double *ref = malloc(((size_t)c->nc + 1) * 3 * sizeof(double));
    int *have = calloc((size_t)c->nc + 1, sizeof(int));
    if (!ref || !have) {
        free(ref);
        free(have);
        return -1;
    }
    for (int k = 0; k < c->nc; k++)
        vol[k] = 0;
    for (int f = 0; f < c->nf; f++) {
        int a0 = c->foff[f], a1 = flen ? a0 + flen[f] : c->foff[f + 1];
        if (a1 - a0 < 3)
            continue;
        double ctr[3] = {0, 0, 0};
        if (flen) {
            for (int i = a0; i < a1; i++)
                v3_add(ctr, ctr, c->v + 3 * c->fv[i]);
            v3_scale(ctr, ctr, 1.0 / (a1 - a0));
        } else {
            v3_copy(ctr, c->fpt + 3 * f);
        }
        for (int s = 0; s < 2; s++) {
            int k = c->fc[2 * f + s];
            if (k < 0)
                continue;
            if (!have[k]) {
                v3_copy(ref + 3 * k, c->v + 3 * c->fv[a0]);
                have[k] = 1;
            }
            double o[3];
            v3_sub(o, ctr, ref + 3 * k);
            for (int i = a0; i < a1; i++) {
                double p[3], q[3], x[3];
                v3_sub(p, c->v + 3 * c->fv[i], ref + 3 * k);
                v3_sub(q, c->v + 3 * c->fv[i + 1 < a1 ? i + 1 : a0], ref + 3 * k);
                v3_cross(x, p, q);
                vol[k] += (s ? -1 : 1) * v3_dot(o, x) / 6.0;
            }
        }
    }
    free(ref);
    free(have);
    return 0;
}

/* Short edges of cells smaller than a cube of the threshold: such a cell (a
 * grain of a few voxels) has only short edges and cannot lose them without
 * vanishing.  On a periodic box complex an edge counts when it or any of its
 * periodic copies borders such a piece, once per edge of the periodic RVE
 * (edge_keys, the rule of reg_histogram's total). */
static int count_short_tiny(const rve_cx *c, double thr, size_t *count)
{
    *count = 0;
    double *vol = malloc(((size_t)c->nc + 1) * sizeof(double));
    uint64_t *e = malloc(((size_t)c->foff[c->nf] + 1) * sizeof *e);
    edge_keys ek;
    if (!vol || !e || reg_cell_volumes(c, NULL, vol) != 0 || edge_keys_init(c, NULL, &ek) != 0) {
        free(vol);
        free(e);
        return -1;
    }
    double tiny = thr * thr * thr;
    size_t m = 0;
    for (int f = 0; f < c->nf; f++) {
        int c0 = c->fc[2 * f], c1 = c->fc[2 * f + 1];
        if (!((c0 >= 0 && vol[c0] < tiny) || (c1 >= 0 && vol[c1] < tiny)))
            continue;
        int a0 = c->foff[f], n = c->foff[f + 1] - a0;
        for (int i = 0; i < n; i++) {
            int p = c->fv[a0 + i], q = c->fv[a0 + (i + 1) % n];
            if (!(v3_dist(c->v + 3 * p, c->v + 3 * q) < thr))
                continue;
            e[m++] = edge_key(&ek, p, q);
        }
    }
    edge_keys_free(&ek);
    qsort(e, m, sizeof *e, rve_reg_cmp_u64);
    for (size_t i = 0; i < m; i++)
        if (i == 0 || e[i] != e[i - 1])
            (*count)++;
    free(vol);
    free(e);
    return 0;
}

int rve_reg_cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

int rve_cx_reg_measure(const rve_cx *c, double threshold, rve_reg_report *rep)
{
    reg_histogram(c, NULL, threshold, rep->hist_after, &rep->edges_after, &rep->short_after,
              &rep->min_after);
    rep->refused = rep->short_after;
    rep->short_tiny = 0;
    return rep->short_after ? count_short_tiny(c, threshold, &rep->short_tiny) : 0;
}
