/* topo.c - global topology of a tessellation: unique vertices, edges and
 * faces shared by the cells.
 *
 * Faces are matched between the two cells that share them (voro++ gives each
 * face's neighbour; the partner face is the neighbour's face back to us with
 * the opposite periodic image).  The vertices of matched faces are united
 * (union-find over cell-vertex incidences, nearest coordinates within a
 * tolerance), so a vertex where any number of cells meet (e.g. eight on a
 * cubic lattice) becomes one vertex, connected through the faces around it.
 * Edges are the unique consecutive vertex pairs of the face loops. */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void tess_topo_free(rve_tess *t)
{
    free(t->ver); free(t->ver_state); free(t->ver_coff); free(t->ver_cells);
    free(t->edge_ver); free(t->edge_state); free(t->edge_foff); free(t->edge_faces);
    free(t->face_voff); free(t->face_ver); free(t->face_vimg); free(t->face_edge);
    free(t->face_esign); free(t->face_cell); free(t->face_img); free(t->face_plane);
    free(t->face_area); free(t->face_state); free(t->face_pt); free(t->face_ptxyz);
    free(t->cell_foff); free(t->cell_faces); free(t->cell_fsign);
    t->ver = NULL; t->ver_state = NULL; t->ver_coff = NULL; t->ver_cells = NULL;
    t->edge_ver = NULL; t->edge_state = NULL; t->edge_foff = NULL; t->edge_faces = NULL;
    t->face_voff = NULL; t->face_ver = NULL; t->face_vimg = NULL; t->face_edge = NULL;
    t->face_esign = NULL; t->face_cell = NULL; t->face_img = NULL; t->face_plane = NULL;
    t->face_area = NULL; t->face_state = NULL; t->face_pt = NULL; t->face_ptxyz = NULL;
    t->cell_foff = NULL; t->cell_faces = NULL; t->cell_fsign = NULL;
    t->nver = t->nedge = t->nface = 0;
    t->has_topo = 0;
}

static int uf_find(int *par, int a)
{
    int r = a;
    while (par[r] != r) r = par[r];
    while (par[a] != r) {
        int nx = par[a];
        par[a] = r;
        a = nx;
    }
    return r;
}

static void uf_union(int *par, int a, int b)
{
    a = uf_find(par, a);
    b = uf_find(par, b);
    if (a == b) return;
    if (a < b) par[b] = a; else par[a] = b; /* smallest incidence is the root */
}

static int32_t img_neg(int32_t img)
{
    int s[3];
    rve_tess_img_unpack(img, s);
    return rve_tess_img_pack(-s[0], -s[1], -s[2]);
}

static int32_t img_sub(int32_t a, int32_t b)
{
    int x[3], y[3];
    rve_tess_img_unpack(a, x);
    rve_tess_img_unpack(b, y);
    return rve_tess_img_pack(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
}

static void face_centre(const rve_tess_poly *p, int f, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    int m = p->foff[f + 1] - p->foff[f];
    for (int k = p->foff[f]; k < p->foff[f + 1]; k++) v3_add(c, c, p->v + 3 * p->floop[k]);
    v3_scale(c, c, 1.0 / m);
}

/* A spatially coherent order of the cells: seeds bucketed in a grid of
 * 2^k buckets per axis, buckets in Morton (Z) order, so that the cells near a
 * cell in space are near it in the order along all three axes (in raster
 * order the neighbours across z are a whole layer of cells away, and the
 * topology sweep would reread them from memory). */
int *tess_spatial_order(const rve_tess *t)
{
    int n = t->n;
    int *order = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!order) return NULL;
    double L[3];
    for (int a = 0; a < 3; a++) L[a] = t->hi[a] - t->lo[a];
    double side = cbrt(L[0] * L[1] * L[2] / (n / 2.0 + 1));
    int bits[3], tb = 0;
    for (int a = 0; a < 3; a++) {
        double k = ceil(log2(L[a] / side));
        bits[a] = k < 0 ? 0 : (k > 10 ? 10 : (int)k);
        tb += bits[a];
    }
    /* at most about 8 buckets per seed (each axis rounded up to a power of 2) */
    for (int guard = 0; guard < 30 && ((size_t)1 << tb) > 8 * (size_t)n + 64; guard++) {
        int am = 0;
        for (int a = 1; a < 3; a++)
            if (bits[a] > bits[am]) am = a;
        bits[am]--;
        tb--;
    }
    size_t nbt = (size_t)1 << tb;
    int *cnt = calloc(nbt + 1, sizeof(int)), *key = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!cnt || !key) {
        free(cnt);
        free(key);
        for (int i = 0; i < n; i++) order[i] = i;
        return order;
    }
    for (int i = 0; i < n; i++) {
        int b[3];
        for (int a = 0; a < 3; a++) {
            int nb = 1 << bits[a];
            double f = (t->seeds[4 * (size_t)i + a] - t->lo[a]) / L[a] * nb;
            /* clamp in double: a seed far outside the box (a file's) would
             * overflow the conversion to int; NaN goes to bin 0 */
            b[a] = f >= 0 ? (f < nb ? (int)f : nb - 1) : 0;
        }
        /* interleave the bits, x fastest; an axis with fewer bits drops out */
        unsigned code = 0;
        int pos = 0;
        for (int bit = 0; bit < 10; bit++)
            for (int a = 0; a < 3; a++)
                if (bit < bits[a]) code |= (unsigned)((b[a] >> bit) & 1) << pos++;
        key[i] = (int)code;
        cnt[code + 1]++;
    }
    for (size_t b = 0; b < nbt; b++) cnt[b + 1] += cnt[b];
    for (int i = 0; i < n; i++) order[cnt[key[i]]++] = i;
    free(cnt);
    free(key);
    return order;
}

/* What the face matching reads of a cell, in the spatial order: the cells
 * are indexed by seed (scattered in memory), so reading a neighbour's struct
 * missed the cache on nearly every face; a neighbour's record here is near
 * the current one. */
typedef struct {
    const int *fnbr, *foff, *floop;
    const int32_t *fimg;
    const double *v;
    int nf, nv, cbase, fbase, cell;
} cell_rec;

/* Number of walls in a 6-bit mask. */
static int nbits6(unsigned x)
{
    int m = 0;
    for (int w = 0; w < 6; w++) m += (int)(x >> w & 1u);
    return m;
}

#define TALLOC(ptr, count)                                                        \
    do {                                                                          \
        (ptr) = malloc(sizeof(*(ptr)) * ((size_t)(count) > 0 ? (size_t)(count) : 1)); \
        if (!(ptr)) goto nomem;                                                   \
    } while (0)

/* Temporaries that are done with, kept for the arrays allocated later in
 * the same call.  glibc returns a large freed block to the kernel (munmap)
 * and a new large block comes back as fresh pages that the kernel zeroes on
 * first touch, one fault per page; realloc of a kept block to the new size
 * keeps the pages it already has (mremap).  At 10^6 cells this takes 13 %
 * of the page faults and of the time off a rebuild of the topology (the
 * first build in a process is bound by its peak memory, which this leaves
 * as it is). */
enum { POOL_MAX = 8 };
typedef struct {
    void *p[POOL_MAX];
    size_t sz[POOL_MAX];
    int n;
} blk_pool;

static void pool_put(blk_pool *b, void *p, size_t sz)
{
    if (!p) return;
    if (b->n == POOL_MAX) { /* full: free the smallest (fewest pages to keep) */
        int m = 0;
        for (int k = 1; k < b->n; k++)
            if (b->sz[k] < b->sz[m]) m = k;
        if (b->sz[m] >= sz) {
            free(p);
            return;
        }
        free(b->p[m]);
        b->p[m] = b->p[--b->n];
        b->sz[m] = b->sz[b->n];
    }
    b->p[b->n] = p;
    b->sz[b->n++] = sz;
}

/* A block of sz bytes: the smallest kept block that holds sz (least tail
 * given back), else the largest (most pages already there), else malloc. */
static void *pool_take(blk_pool *b, size_t sz)
{
    if (sz == 0) sz = 1;
    int best = -1;
    for (int k = 0; k < b->n; k++)
        if (b->sz[k] >= sz && (best < 0 || b->sz[k] < b->sz[best])) best = k;
    if (best < 0)
        for (int k = 0; k < b->n; k++)
            if (best < 0 || b->sz[k] > b->sz[best]) best = k;
    if (best >= 0) {
        void *q = realloc(b->p[best], sz);
        if (q) {
            b->p[best] = b->p[--b->n];
            b->sz[best] = b->sz[b->n];
            return q;
        }
    }
    return malloc(sz);
}

static void pool_free(blk_pool *b)
{
    for (int k = 0; k < b->n; k++) free(b->p[k]);
    b->n = 0;
}

#define PTAKE(ptr, count)                                                          \
    do {                                                                           \
        (ptr) = pool_take(&pool, sizeof(*(ptr)) * (size_t)(count));                \
        if (!(ptr)) goto nomem;                                                    \
    } while (0)
#define PPUT(ptr, count)                                                           \
    do {                                                                           \
        pool_put(&pool, (ptr), sizeof(*(ptr)) * ((size_t)(count) > 0 ? (size_t)(count) : 1)); \
        (ptr) = NULL;                                                              \
    } while (0)

/* The state arrays start at 0 and most stay so: calloc leaves their pages
 * untouched (and out of the resident memory) until something is written. */
#define CALLOC_(ptr, count)                                                          \
    do {                                                                             \
        (ptr) = calloc((size_t)(count) > 0 ? (size_t)(count) : 1, sizeof(*(ptr)));   \
        if (!(ptr)) goto nomem;                                                      \
    } while (0)

rve_status rve_tess_topology(rve_tess *t, rve_err *err)
{
    return tess_topology_ordered(t, NULL, err);
}

rve_status tess_topology_ordered(rve_tess *t, int *given, rve_err *err)
{
    tess_topo_free(t);
    int n = t->n;
    double P[3];
    tess_period(t, P);
    int periodic = P[0] > 0 || P[1] > 0 || P[2] > 0;
    double ext = fmax(t->hi[0] - t->lo[0], fmax(t->hi[1] - t->lo[1], t->hi[2] - t->lo[2]));
    double tol2 = (1e-9 * ext) * (1e-9 * ext);

    int *order = NULL, *cbase = NULL, *par = NULL, *vid = NULL, *rank = NULL, *cfg = NULL;
    cell_rec *rec = NULL;
    unsigned char *wall = NULL;
    int32_t *vimg = NULL, *eimg = NULL;
    int *ehead = NULL, *enext = NULL, *cnt = NULL;
    blk_pool pool = {{NULL}, {0}, 0};
    order = given ? given : tess_spatial_order(t);
    if (!order) goto nomem;
    TALLOC(cbase, n + 1);
    long long ni = 0, nf = 0, nfv = 0;
    for (int oi = 0; oi < n; oi++) {
        int c = order[oi];
        cbase[c] = (int)ni;
        ni += t->cells[c].nv;
        nf += t->cells[c].nf;
        nfv += t->cells[c].nfv;
    }
    if (ni >= INT_MAX / 2 || nfv >= INT_MAX / 2 || nf >= INT_MAX / 2) {
        free(order);
        free(cbase);
        return rve_err_set(err, RVE_ENOMEM, "", "tessellation too large for the topology");
    }
    cbase[n] = (int)ni; /* total (the per-cell bases follow the spatial order) */
    TALLOC(par, ni);
    for (int k = 0; k < ni; k++) par[k] = k;
    /* walls through each cell-vertex incidence (bit w for wall -(w + 1)),
     * recorded while the faces are matched so that the cells and walls at
     * each vertex are listed later without another sweep over the cells */
    wall = calloc((size_t)ni + 1, 1);
    if (!wall) goto nomem;
    TALLOC(rank, n);
    TALLOC(rec, n);
    {
        int fb = 0;
        for (int oi = 0; oi < n; oi++) {
            int c = order[oi];
            const rve_tess_poly *p = &t->cells[c];
            rank[c] = oi;
            rec[oi] = (cell_rec){p->fnbr, p->foff, p->floop, p->fimg, p->v, p->nf, p->nv, cbase[c], fb, c};
            fb += p->nf;
        }
    }
    PPUT(order, n);
    /* global face of each cell face in the spatial order (cells' faces from
     * rec[].fbase): 2 g on the side that created face g, 2 g + 1 on the
     * other, -1 while not matched */
    TALLOC(cfg, nf);
    for (int k = 0; k < nf; k++) cfg[k] = -1;
    /* global faces: at most nf (shrunk at the end).  A face's loop is
     * written when its cell face_cell[2 g] creates it, while that cell's data
     * is in cache, and holds cell-vertex incidences until the global
     * vertices are known.  Planes, areas and points are not copied: they are
     * those of the creating cell's face (rve_tess_face_plane and co.). */
    TALLOC(t->face_cell, 2 * nf);
    TALLOC(t->face_img, nf);
    TALLOC(t->face_voff, nf + 1);
    TALLOC(t->face_ver, nfv);
    t->face_voff[0] = 0;
    int nface = 0;
    for (int oi = 0; oi < n; oi++) {
        const cell_rec *p = &rec[oi];
        int c = p->cell, *cf_c = cfg + p->fbase;
#if defined(__GNUC__)
        /* rank[] of the next cell's neighbours: anywhere in the array (indexed
         * by cell), asked for a cell ahead so that the misses overlap */
        if (oi + 1 < n)
            for (int f = 0; f < rec[oi + 1].nf; f++)
                if (rec[oi + 1].fnbr[f] >= 0) __builtin_prefetch(rank + rec[oi + 1].fnbr[f]);
#endif
        for (int f = 0; f < p->nf; f++) {
            if (cf_c[f] >= 0) continue;
            int j = p->fnbr[f];
            /* a face is created by the later of its two cells in the sweep:
             * the partner was swept a moment ago and is still in cache, while
             * the current cell is read in order (rve_tess_build computes, and
             * so allocates, the cells in this same order) */
            if (j >= 0 && rank[j] > oi) continue;
            int g = nface++;
            {
                int o = t->face_voff[g];
                for (int k = p->foff[f]; k < p->foff[f + 1]; k++) t->face_ver[o++] = p->cbase + p->floop[k];
                t->face_voff[g + 1] = o;
            }
            t->face_cell[2 * g] = c;
            t->face_cell[2 * g + 1] = j;
            t->face_img[g] = p->fimg[f];
            cf_c[f] = 2 * g;
            if (j < 0) {
                unsigned char bit = (unsigned char)(1u << (-j - 1));
                for (int k = p->foff[f]; k < p->foff[f + 1]; k++) wall[p->cbase + p->floop[k]] |= bit;
                continue;
            }
            /* partner face in cell j */
            const cell_rec *q = &rec[rank[j]];
            const int *cf_j = cfg + q->fbase;
            int32_t back = img_neg(p->fimg[f]);
            int s[3];
            rve_tess_img_unpack(p->fimg[f], s);
            double sh[3] = {s[0] * P[0], s[1] * P[1], s[2] * P[2]};
            int best = -1, ncand = 0;
            for (int h = 0; h < q->nf; h++) {
                if (q->fnbr[h] != c || q->fimg[h] != back || cf_j[h] >= 0) continue;
                if (j == c && h == f) continue;
                ncand++;
                best = h;
            }
            if (ncand > 1) { /* several faces back to c (small periodic domains): nearest centre */
                double cf[3];
                face_centre(&t->cells[c], f, cf);
                double bd = INFINITY;
                best = -1;
                for (int h = 0; h < q->nf; h++) {
                    if (q->fnbr[h] != c || q->fimg[h] != back || cf_j[h] >= 0) continue;
                    if (j == c && h == f) continue;
                    double ch[3];
                    face_centre(&t->cells[j], h, ch);
                    v3_add(ch, ch, sh);
                    double d = v3_dist2(ch, cf);
                    if (d < bd) {
                        bd = d;
                        best = h;
                    }
                }
            }
            if (best < 0) continue; /* no partner: left single (reported by rve_tess_check) */
            cfg[q->fbase + best] = 2 * g + 1;
            /* unite the vertices: the partner's loop runs the other way, so
             * once vertex 0 has its nearest partner the others are expected
             * in reverse order; each guess is checked against the tolerance
             * and a full nearest search replaces it when it fails */
            {
                int a0 = p->foff[f], m = p->foff[f + 1] - a0;
                int b0 = q->foff[best], mq = q->foff[best + 1] - b0, l0 = -1;
                for (int k = 0; k < m; k++) {
                    const double *x = p->v + 3 * p->floop[a0 + k];
                    int bu = -1;
                    double bdu = INFINITY;
                    if (l0 >= 0) {
                        int l = l0 - k % mq; /* (l0 - k) mod mq without a second division */
                        if (l < 0) l += mq;
                        const double *y = q->v + 3 * q->floop[b0 + l];
                        double d[3] = {y[0] + sh[0] - x[0], y[1] + sh[1] - x[1], y[2] + sh[2] - x[2]};
                        double dd = v3_norm2(d);
                        if (dd <= tol2) {
                            bu = q->floop[b0 + l];
                            bdu = dd;
                        }
                    }
                    if (bu < 0)
                        for (int l = 0; l < mq; l++) {
                            const double *y = q->v + 3 * q->floop[b0 + l];
                            double d[3] = {y[0] + sh[0] - x[0], y[1] + sh[1] - x[1], y[2] + sh[2] - x[2]};
                            double dd = v3_norm2(d);
                            if (dd < bdu) {
                                bdu = dd;
                                bu = q->floop[b0 + l];
                                if (k == 0) l0 = l;
                            }
                        }
                    if (bu >= 0 && bdu <= tol2) uf_union(par, p->cbase + p->floop[a0 + k], q->cbase + bu);
                }
            }
        }
    }
    /* the cells' faces, in the order of their polyhedra */
    TALLOC(t->cell_foff, n + 1);
    t->cell_foff[0] = 0;
    for (int c = 0; c < n; c++) t->cell_foff[c + 1] = t->cell_foff[c] + t->cells[c].nf;
    TALLOC(t->cell_faces, nf);
    TALLOC(t->cell_fsign, nf);
    for (int oi = 0; oi < n; oi++) {
        const cell_rec *p = &rec[oi];
        int o = t->cell_foff[p->cell];
        for (int f = 0; f < p->nf; f++) {
            int x = cfg[p->fbase + f];
            t->cell_faces[o + f] = x >> 1;
            t->cell_fsign[o + f] = (signed char)(x & 1 ? -1 : 1);
        }
    }
    PPUT(cfg, nf);
    PPUT(rank, n);
    PPUT(cbase, n + 1);
    /* global vertices, numbered in place of the union-find parents (one
     * array of ni fewer): a parent is never above its incidence and a root
     * is the smallest incidence of its set, so in ascending order par[par[k]]
     * is first k's root, then (once the roots are numbered) its number */
    for (long long k = 0; k < ni; k++) par[k] = par[par[k]];
    int nver = 0;
    for (long long k = 0; k < ni; k++) par[k] = par[k] == k ? nver++ : par[par[k]];
    vid = par;
    par = NULL;
    if (periodic) PTAKE(vimg, ni);
    PTAKE(t->ver, 3 * (size_t)nver);
    CALLOC_(t->ver_state, nver);
    int nseen = 0;
    for (int oi = 0; oi < n; oi++) {
        const cell_rec *p = &rec[oi];
        for (int u = 0; u < p->nv; u++) {
            int k = p->cbase + u;
            double *X = t->ver + 3 * vid[k];
            /* the incidences are swept in ascending order, so a vertex
             * first appears at its root, numbered in that order */
            if (vid[k] == nseen) {
                nseen++;
                v3_copy(X, p->v + 3 * u);
                for (int a = 0; a < 3; a++)
                    if (P[a] > 0) {
                        X[a] -= floor((X[a] - t->lo[a]) / P[a]) * P[a];
                        if (X[a] >= t->hi[a]) X[a] -= P[a];
                    }
            }
        }
    }
    if (periodic)
        for (int oi = 0; oi < n; oi++) {
            const cell_rec *p = &rec[oi];
            for (int u = 0; u < p->nv; u++) {
                int k = p->cbase + u;
                const double *X = t->ver + 3 * vid[k], *x = p->v + 3 * u;
                int s[3];
                for (int a = 0; a < 3; a++) s[a] = P[a] > 0 ? (int)lround((x[a] - X[a]) / P[a]) : 0;
                vimg[k] = rve_tess_img_pack(s[0], s[1], s[2]);
            }
        }
    t->nver = nver;
    /* cells and walls at each vertex: the incidences are numbered cell by
     * cell in the spatial order, so one sequential sweep over them counts
     * and another fills (walls from the bits recorded while matching) */
    PTAKE(t->ver_coff, (size_t)nver + 1);
    memset(t->ver_coff, 0, sizeof(int) * ((size_t)nver + 1));
    for (int k = 0; k < ni; k++) t->ver_coff[vid[k] + 1] += 1 + nbits6(wall[k]);
    for (int v = 0; v < nver; v++) t->ver_coff[v + 1] += t->ver_coff[v];
    PTAKE(t->ver_cells, t->ver_coff[nver]);
    PTAKE(cnt, nver);
    memcpy(cnt, t->ver_coff, sizeof(int) * (size_t)nver);
    for (int oi = 0; oi < n; oi++) {
        int c = rec[oi].cell, k0 = rec[oi].cbase, nv = rec[oi].nv;
        for (int k = k0; k < k0 + nv; k++) {
            int v = vid[k];
            t->ver_cells[cnt[v]++] = c;
            for (int w = 0; w < 6; w++)
                if (wall[k] >> w & 1) t->ver_cells[cnt[v]++] = -(w + 1);
        }
    }
    PPUT(wall, ni + 1);
    PPUT(rec, n);
    /* sort (cells ascending, then walls -1, -2, ...) and remove duplicates */
    {
        int w = 0;
        for (int v = 0; v < nver; v++) {
            int a = t->ver_coff[v], b = t->ver_coff[v + 1];
            int *L = t->ver_cells + a;
            int m = b - a;
            for (int x = 1; x < m; x++) { /* insertion sort with key: cells first */
                int val = L[x], y = x - 1;
                long kv = val >= 0 ? val : (long)INT_MAX - val;
                while (y >= 0 && (L[y] >= 0 ? L[y] : (long)INT_MAX - L[y]) > kv) {
                    L[y + 1] = L[y];
                    y--;
                }
                L[y + 1] = val;
            }
            t->ver_coff[v] = w;
            for (int x = 0; x < m; x++)
                if (x == 0 || L[x] != L[x - 1]) t->ver_cells[w++] = L[x];
        }
        t->ver_coff[nver] = w;
    }
    PPUT(cnt, nver);
    /* face vertex loops: incidences to global vertices; arrays shrunk to
     * the faces found (realloc of a smaller size does not fail in practice;
     * the larger block is kept if it does) */
    t->nface = nface;
    int nfl = t->face_voff[nface];
    if (periodic) {
        PTAKE(t->face_vimg, nfl);
        for (int o = 0; o < nfl; o++) t->face_vimg[o] = vimg[t->face_ver[o]];
    }
    for (int o = 0; o < nfl; o++) t->face_ver[o] = vid[t->face_ver[o]];
#define SHRINK(ptr, count)                                                               \
    do {                                                                                 \
        void *p_ = realloc((ptr), sizeof(*(ptr)) * ((size_t)(count) > 0 ? (size_t)(count) : 1)); \
        if (p_) (ptr) = p_;                                                              \
    } while (0)
    SHRINK(t->face_cell, 2 * nface);
    SHRINK(t->face_img, nface);
    SHRINK(t->face_voff, nface + 1);
    SHRINK(t->face_ver, nfl);
#undef SHRINK
    PTAKE(t->face_edge, nfl);
    PTAKE(t->face_esign, nfl);
    CALLOC_(t->face_state, nface);
    CALLOC_(t->face_pt, nface);
    PPUT(vid, ni);
    if (vimg) PPUT(vimg, ni);
    /* edges: unique (a, b, relative image) over the face loops */
    /* edges are looked up from their lower vertex a: up to ESLOT of them
     * (b, edge) inline in a's record, which holds nearly all (a vertex has
     * 4 edges where 4 cells meet), further ones in a list from a's record;
     * one cache line per lookup instead of a chain through three arrays */
    enum { ESLOT = 3, EREC = 2 * ESLOT + 2 };
    PTAKE(ehead, (size_t)EREC * t->nver);
    for (size_t x = 0; x < (size_t)EREC * t->nver; x++) ehead[x] = -1;
    int ecap = nfl / 2 + 16, nedge = 0;
    PTAKE(t->edge_ver, 2 * (size_t)ecap);
    PTAKE(enext, ecap);
    if (periodic) PTAKE(eimg, ecap);
    for (int g = 0; g < nface; g++) {
        int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
        for (int k = 0; k < m; k++) {
            int k1 = k + 1 < m ? k + 1 : 0;
            int a = t->face_ver[a0 + k], b = t->face_ver[a0 + k1];
            int32_t r = periodic ? img_sub(t->face_vimg[a0 + k1], t->face_vimg[a0 + k]) : 0;
            int sign = 1;
            if (a > b || (a == b && r < 0)) {
                int tmp = a;
                a = b;
                b = tmp;
                r = img_neg(r);
                sign = -1;
            }
            int e = -1, *erec = ehead + (size_t)EREC * a, slot = -1;
            for (int x = 0; x < ESLOT; x++) {
                if (erec[2 * x] < 0) {
                    slot = x;
                    break;
                }
                if (erec[2 * x] == b && (!periodic || eimg[erec[2 * x + 1]] == r)) {
                    e = erec[2 * x + 1];
                    break;
                }
            }
            if (e < 0 && slot < 0)
                for (e = erec[2 * ESLOT]; e >= 0; e = enext[e])
                    if (t->edge_ver[2 * e + 1] == b && (!periodic || eimg[e] == r)) break;
            if (e < 0) {
                if (nedge == ecap) {
                    int nc = ecap * 2;
                    int *e1 = realloc(t->edge_ver, sizeof(int) * 2 * (size_t)nc);
                    if (!e1) goto nomem;
                    t->edge_ver = e1;
                    int *e2 = realloc(enext, sizeof(int) * (size_t)nc);
                    if (!e2) goto nomem;
                    enext = e2;
                    if (periodic) {
                        int32_t *e3 = realloc(eimg, sizeof(int32_t) * (size_t)nc);
                        if (!e3) goto nomem;
                        eimg = e3;
                    }
                    ecap = nc;
                }
                e = nedge++;
                t->edge_ver[2 * e] = a;
                t->edge_ver[2 * e + 1] = b;
                if (periodic) eimg[e] = r;
                if (slot >= 0) {
                    erec[2 * slot] = b;
                    erec[2 * slot + 1] = e;
                } else {
                    enext[e] = erec[2 * ESLOT];
                    erec[2 * ESLOT] = e;
                }
            }
            t->face_edge[a0 + k] = e;
            t->face_esign[a0 + k] = (signed char)sign;
        }
    }
    PPUT(ehead, (size_t)EREC * t->nver);
    PPUT(enext, ecap);
    if (eimg) PPUT(eimg, ecap);
    t->nedge = nedge;
    CALLOC_(t->edge_state, nedge);
    PTAKE(t->edge_foff, (size_t)nedge + 1);
    memset(t->edge_foff, 0, sizeof(int) * ((size_t)nedge + 1));
    for (int k = 0; k < nfl; k++) t->edge_foff[t->face_edge[k] + 1]++;
    for (int e = 0; e < nedge; e++) t->edge_foff[e + 1] += t->edge_foff[e];
    PTAKE(t->edge_faces, nfl);
    PTAKE(cnt, nedge);
    memcpy(cnt, t->edge_foff, sizeof(int) * (size_t)nedge);
    for (int g = 0; g < nface; g++)
        for (int k = t->face_voff[g]; k < t->face_voff[g + 1]; k++) t->edge_faces[cnt[t->face_edge[k]]++] = g;
    free(cnt);
    cnt = NULL;
    pool_free(&pool);
    t->has_topo = 1;
    return RVE_OK;
nomem:
    free(order);
    free(cbase); free(par); free(wall); free(vid); free(rank); free(cfg); free(rec);
    free(vimg); free(eimg); free(ehead); free(enext); free(cnt);
    pool_free(&pool);
    tess_topo_free(t);
    return rve_err_set(err, RVE_ENOMEM, "", "out of memory building the topology");
}

rve_status rve_tess_check(const rve_tess *t, rve_err *err)
{
    if (!t->has_topo) return rve_err_set(err, RVE_EUSAGE, "", "check: no topology");
    for (int g = 0; g < t->nface; g++) {
        int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
        if (m < 3) return rve_err_set(err, RVE_EINTERNAL, "", "face %d has %d vertices", g + 1, m);
        for (int k = 0; k < m; k++) {
            int e = t->face_edge[a0 + k];
            int a = t->face_ver[a0 + k], b = t->face_ver[a0 + (k + 1) % m];
            int s = t->face_esign[a0 + k];
            int x = t->edge_ver[2 * e + (s > 0 ? 0 : 1)], y = t->edge_ver[2 * e + (s > 0 ? 1 : 0)];
            if (x != a || y != b)
                return rve_err_set(err, RVE_EINTERNAL, "", "face %d: edge %d does not follow its loop", g + 1, e + 1);
        }
        int c0 = t->face_cell[2 * g], c1 = t->face_cell[2 * g + 1];
        if (c0 < 0 || c0 >= t->n) return rve_err_set(err, RVE_EINTERNAL, "", "face %d: bad first cell", g + 1);
        if (c1 >= t->n || (c1 == c0 && t->face_img[g] == 0))
            return rve_err_set(err, RVE_EINTERNAL, "", "face %d: bad second cell", g + 1);
    }
    /* every face is used by exactly its two cells (one for a wall face) */
    int *use = calloc((size_t)(t->nface > 0 ? t->nface : 1), sizeof *use);
    if (!use) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    for (int c = 0; c < t->n; c++) {
        if (t->cell_foff[c + 1] - t->cell_foff[c] != t->cells[c].nf) {
            free(use);
            return rve_err_set(err, RVE_EINTERNAL, "", "cell %d: face count differs from its polyhedron", c + 1);
        }
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++) {
            int g = t->cell_faces[k];
            if (g < 0 || g >= t->nface || (t->face_cell[2 * g] != c && t->face_cell[2 * g + 1] != c)) {
                free(use);
                return rve_err_set(err, RVE_EINTERNAL, "", "cell %d: face %d does not know it", c + 1, g + 1);
            }
            use[g]++;
        }
    }
    for (int g = 0; g < t->nface; g++) {
        int want = t->face_cell[2 * g + 1] >= 0 ? 2 : 1;
        if (use[g] != want) {
            int got = use[g]; /* read before the free (the message needs it) */
            free(use);
            return rve_err_set(err, RVE_EINTERNAL, "", "face %d is used by %d cells, not %d", g + 1, got, want);
        }
    }
    free(use);
    for (int e = 0; e < t->nedge; e++)
        if (t->edge_foff[e + 1] - t->edge_foff[e] < 2)
            return rve_err_set(err, RVE_EINTERNAL, "", "edge %d belongs to fewer than two faces", e + 1);
    return RVE_OK;
}

/* Face of cell face_cell[2 f] (the side whose outward normal is face f's
 * normal) that is global face f: its index in the cell's polyhedron, -1 if
 * none (a broken topology). */
static int creator_face(const rve_tess *t, int f)
{
    int c = t->face_cell[2 * f];
    if (c < 0 || c >= t->n) return -1;
    int a = t->cell_foff[c], b = t->cell_foff[c + 1];
    if (b - a != t->cells[c].nf) return -1;
    for (int k = a; k < b; k++)
        if (t->cell_faces[k] == f && t->cell_fsign[k] > 0) return k - a;
    return -1;
}

void rve_tess_face_plane(const rve_tess *t, int f, double pl[4])
{
    if (t->face_plane) {
        memcpy(pl, t->face_plane + 4 * (size_t)f, 4 * sizeof(double));
        return;
    }
    int k = creator_face(t, f);
    if (k < 0) {
        pl[0] = pl[1] = pl[2] = pl[3] = NAN;
        return;
    }
    rve_tess_cell_plane(t, t->face_cell[2 * f], k, pl);
}

double rve_tess_face_area(const rve_tess *t, int f)
{
    if (t->face_area) return t->face_area[f];
    int k = creator_face(t, f);
    return k < 0 ? NAN : t->cells[t->face_cell[2 * f]].farea[k];
}

void rve_tess_face_point(const rve_tess *t, int f, double x[3])
{
    if (t->face_ptxyz) {
        memcpy(x, t->face_ptxyz + 3 * (size_t)f, 3 * sizeof(double));
        return;
    }
    int k = creator_face(t, f);
    if (k < 0) {
        x[0] = x[1] = x[2] = NAN;
        return;
    }
    face_centre(&t->cells[t->face_cell[2 * f]], k, x);
}
