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

void tess_face_centre(const rve_tess_poly *p, int f, double c[3])
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
        (ptr) = pool_take(&C->pool, sizeof(*(ptr)) * (size_t)(count));             \
        if (!(ptr)) goto nomem;                                                    \
    } while (0)
#define PPUT(ptr, count)                                                           \
    do {                                                                           \
        pool_put(&C->pool, (ptr), sizeof(*(ptr)) * ((size_t)(count) > 0 ? (size_t)(count) : 1)); \
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

/* The state of one topology build, shared by its steps (tess_topology_ordered).
 * Every array is either NULL or owned here until it is handed to t or put
 * back in the pool; topo_ctx_free releases what is left. */
typedef struct {
    rve_tess *t;
    int n, periodic, nface, nver, nedge, ecap, nfl;
    double P[3], tol2;
    long long ni, nf, nfv;
    int *order, *cbase, *par, *vid, *rank, *cfg;
    cell_rec *rec;
    unsigned char *wall;
    int32_t *vimg, *eimg;
    int *ehead, *enext, *cnt;
    blk_pool pool;
} topo_ctx;

static void topo_ctx_free(topo_ctx *C)
{
    free(C->order);
    free(C->cbase);
    free(C->par);
    free(C->wall);
    free(C->vid);
    free(C->rank);
    free(C->cfg);
    free(C->rec);
    free(C->vimg);
    free(C->eimg);
    free(C->ehead);
    free(C->enext);
    free(C->cnt);
    pool_free(&C->pool);
}

/* Step 1: the spatial order, each cell's first vertex incidence (cbase),
 * the union-find parents, the wall bits and the cell records.  -2 when the
 * tessellation is too large for int indices. */
static int topo_bases(topo_ctx *C, int *given)
{
    rve_tess *t = C->t;
    int n = C->n;
    C->order = given ? given : tess_spatial_order(t);
    if (!C->order) goto nomem;
    TALLOC(C->cbase, n + 1);
    long long ni = 0, nf = 0, nfv = 0;
    for (int oi = 0; oi < n; oi++) {
        int c = C->order[oi];
        C->cbase[c] = (int)ni;
        ni += t->cells[c].nv;
        nf += t->cells[c].nf;
        nfv += t->cells[c].nfv;
    }
    if (ni >= INT_MAX / 2 || nfv >= INT_MAX / 2 || nf >= INT_MAX / 2)
        return -2;
    C->ni = ni;
    C->nf = nf;
    C->nfv = nfv;
    C->cbase[n] = (int)ni; /* total (the per-cell bases follow the spatial order) */
    TALLOC(C->par, ni);
    for (int k = 0; k < ni; k++) C->par[k] = k;
    /* walls through each cell-vertex incidence (bit w for wall -(w + 1)),
     * recorded while the faces are matched so that the cells and walls at
     * each vertex are listed later without another sweep over the cells */
    C->wall = calloc((size_t)ni + 1, 1);
    if (!C->wall) goto nomem;
    TALLOC(C->rank, n);
    TALLOC(C->rec, n);
    int fb = 0;
    for (int oi = 0; oi < n; oi++) {
        int c = C->order[oi];
        const rve_tess_poly *p = &t->cells[c];
        C->rank[c] = oi;
        C->rec[oi] = (cell_rec){p->fnbr, p->foff, p->floop, p->fimg, p->v, p->nf, p->nv, C->cbase[c], fb, c};
        fb += p->nf;
    }
    PPUT(C->order, n);
    return 0;
nomem:
    return -1;
}

/* The face of cell record q matching face f of p (the cell c, across image
 * back), not yet matched (cf_j); the nearest centre when several are. */
static int partner_face(const rve_tess *t, const cell_rec *p, int f, const cell_rec *q, const int *cf_j,
                        const double sh[3])
{
    int c = p->cell, j = q->cell, best = -1, ncand = 0;
    int32_t back = img_neg(p->fimg[f]);
    for (int h = 0; h < q->nf; h++) {
        if (q->fnbr[h] != c || q->fimg[h] != back || cf_j[h] >= 0) continue;
        if (j == c && h == f) continue;
        ncand++;
        best = h;
    }
    if (ncand > 1) { /* several faces back to c (small periodic domains): nearest centre */
        double cf[3];
        tess_face_centre(&t->cells[c], f, cf);
        double bd = INFINITY;
        best = -1;
        for (int h = 0; h < q->nf; h++) {
            if (q->fnbr[h] != c || q->fimg[h] != back || cf_j[h] >= 0) continue;
            if (j == c && h == f) continue;
            double ch[3];
            tess_face_centre(&t->cells[j], h, ch);
            v3_add(ch, ch, sh);
            double d = v3_dist2(ch, cf);
            if (d < bd) {
                bd = d;
                best = h;
            }
        }
    }
    return best;
}

/* Unite the vertices of face f of p with those of face h of q (shifted by
 * sh): the partner's loop runs the other way, so once vertex 0 has its
 * nearest partner the others are expected in reverse order; each guess is
 * checked against the tolerance and a full nearest search replaces it when
 * it fails. */
static void unite_face(int *par, const cell_rec *p, int f, const cell_rec *q, int h, const double sh[3],
                       double tol2)
{
    int a0 = p->foff[f], m = p->foff[f + 1] - a0;
    int b0 = q->foff[h], mq = q->foff[h + 1] - b0, l0 = -1;
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

/* Face f of cell record p creates global face g (its loop holds vertex
 * incidences until the global vertices are known). */
static void create_face(topo_ctx *C, const cell_rec *p, int f, int g)
{
    rve_tess *t = C->t;
    int o = t->face_voff[g], j = p->fnbr[f];
    for (int k = p->foff[f]; k < p->foff[f + 1]; k++) t->face_ver[o++] = p->cbase + p->floop[k];
    t->face_voff[g + 1] = o;
    t->face_cell[2 * g] = p->cell;
    t->face_cell[2 * g + 1] = j;
    t->face_img[g] = p->fimg[f];
    C->cfg[p->fbase + f] = 2 * g;
    if (j < 0) {
        unsigned char bit = (unsigned char)(1u << (-j - 1));
        for (int k = p->foff[f]; k < p->foff[f + 1]; k++) C->wall[p->cbase + p->floop[k]] |= bit;
    }
}

/* Step 2: the global faces, matched cell by cell in the spatial order, and
 * the vertex incidences united across them. */
static int topo_faces(topo_ctx *C)
{
    rve_tess *t = C->t;
    int n = C->n;
    long long nf = C->nf;
    /* global face of each cell face in the spatial order (cells' faces from
     * rec[].fbase): 2 g on the side that created face g, 2 g + 1 on the
     * other, -1 while not matched */
    TALLOC(C->cfg, nf);
    for (int k = 0; k < nf; k++) C->cfg[k] = -1;
    /* global faces: at most nf (shrunk at the end).  A face's loop is
     * written when its cell face_cell[2 g] creates it, while that cell's data
     * is in cache, and holds cell-vertex incidences until the global
     * vertices are known.  Planes, areas and points are not copied: they are
     * those of the creating cell's face (rve_tess_face_plane and co.). */
    TALLOC(t->face_cell, 2 * nf);
    TALLOC(t->face_img, nf);
    TALLOC(t->face_voff, nf + 1);
    TALLOC(t->face_ver, C->nfv);
    t->face_voff[0] = 0;
    int nface = 0;
    const cell_rec *rec = C->rec;
    const int *rank = C->rank;
    for (int oi = 0; oi < n; oi++) {
        const cell_rec *p = &rec[oi];
        const int *cf_c = C->cfg + p->fbase;
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
            create_face(C, p, f, g);
            if (j < 0)
                continue;
            /* partner face in cell j */
            const cell_rec *q = &rec[rank[j]];
            int s[3];
            rve_tess_img_unpack(p->fimg[f], s);
            double sh[3] = {s[0] * C->P[0], s[1] * C->P[1], s[2] * C->P[2]};
            int best = partner_face(t, p, f, q, C->cfg + q->fbase, sh);
            if (best < 0) continue; /* no partner: left single (reported by rve_tess_check) */
            C->cfg[q->fbase + best] = 2 * g + 1;
            unite_face(C->par, p, f, q, best, sh, C->tol2);
        }
    }
    C->nface = nface;
    return 0;
nomem:
    return -1;
}

/* Step 3: the cells' faces, in the order of their polyhedra. */
static int topo_cell_faces(topo_ctx *C)
{
    rve_tess *t = C->t;
    int n = C->n;
    TALLOC(t->cell_foff, n + 1);
    t->cell_foff[0] = 0;
    for (int c = 0; c < n; c++) t->cell_foff[c + 1] = t->cell_foff[c] + t->cells[c].nf;
    TALLOC(t->cell_faces, C->nf);
    TALLOC(t->cell_fsign, C->nf);
    for (int oi = 0; oi < n; oi++) {
        const cell_rec *p = &C->rec[oi];
        int o = t->cell_foff[p->cell];
        for (int f = 0; f < p->nf; f++) {
            int x = C->cfg[p->fbase + f];
            t->cell_faces[o + f] = x >> 1;
            t->cell_fsign[o + f] = (signed char)(x & 1 ? -1 : 1);
        }
    }
    PPUT(C->cfg, C->nf);
    PPUT(C->rank, n);
    PPUT(C->cbase, n + 1);
    return 0;
nomem:
    return -1;
}

/* Step 4: the global vertices, numbered in place of the union-find parents
 * (one array of ni fewer): a parent is never above its incidence and a root
 * is the smallest incidence of its set, so in ascending order par[par[k]]
 * is first k's root, then (once the roots are numbered) its number. */
static int topo_vertices(topo_ctx *C)
{
    rve_tess *t = C->t;
    long long ni = C->ni;
    int *par = C->par;
    const double *P = C->P;
    for (long long k = 0; k < ni; k++) par[k] = par[par[k]];
    int nver = 0;
    for (long long k = 0; k < ni; k++) par[k] = par[k] == k ? nver++ : par[par[k]];
    C->vid = par;
    C->par = NULL;
    const int *vid = C->vid;
    if (C->periodic) PTAKE(C->vimg, ni);
    PTAKE(t->ver, 3 * (size_t)nver);
    CALLOC_(t->ver_state, nver);
    int nseen = 0;
    for (int oi = 0; oi < C->n; oi++) {
        const cell_rec *p = &C->rec[oi];
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
    if (C->periodic)
        for (int oi = 0; oi < C->n; oi++) {
            const cell_rec *p = &C->rec[oi];
            for (int u = 0; u < p->nv; u++) {
                int k = p->cbase + u;
                const double *X = t->ver + 3 * vid[k], *x = p->v + 3 * u;
                int s[3];
                for (int a = 0; a < 3; a++) s[a] = P[a] > 0 ? (int)lround((x[a] - X[a]) / P[a]) : 0;
                C->vimg[k] = rve_tess_img_pack(s[0], s[1], s[2]);
            }
        }
    t->nver = C->nver = nver;
    return 0;
nomem:
    return -1;
}

/* Sort each vertex's list (cells ascending, then walls -1, -2, ...) and
 * remove duplicates. */
static void sort_ver_cells(rve_tess *t)
{
    int w = 0;
    for (int v = 0; v < t->nver; v++) {
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
    t->ver_coff[t->nver] = w;
}

/* Step 5: cells and walls at each vertex: the incidences are numbered cell
 * by cell in the spatial order, so one sequential sweep over them counts
 * and another fills (walls from the bits recorded while matching). */
static int topo_ver_cells(topo_ctx *C)
{
    rve_tess *t = C->t;
    int nver = C->nver;
    const int *vid = C->vid;
    const unsigned char *wall = C->wall;
    PTAKE(t->ver_coff, (size_t)nver + 1);
    memset(t->ver_coff, 0, sizeof(int) * ((size_t)nver + 1));
    for (int k = 0; k < C->ni; k++) t->ver_coff[vid[k] + 1] += 1 + nbits6(wall[k]);
    for (int v = 0; v < nver; v++) t->ver_coff[v + 1] += t->ver_coff[v];
    PTAKE(t->ver_cells, t->ver_coff[nver]);
    PTAKE(C->cnt, nver);
    memcpy(C->cnt, t->ver_coff, sizeof(int) * (size_t)nver);
    for (int oi = 0; oi < C->n; oi++) {
        int c = C->rec[oi].cell, k0 = C->rec[oi].cbase, nv = C->rec[oi].nv;
        for (int k = k0; k < k0 + nv; k++) {
            int v = vid[k];
            t->ver_cells[C->cnt[v]++] = c;
            for (int w = 0; w < 6; w++)
                if (wall[k] >> w & 1) t->ver_cells[C->cnt[v]++] = -(w + 1);
        }
    }
    PPUT(C->wall, C->ni + 1);
    PPUT(C->rec, C->n);
    sort_ver_cells(t);
    PPUT(C->cnt, nver);
    return 0;
nomem:
    return -1;
}

/* Step 6: face vertex loops: incidences to global vertices; arrays shrunk
 * to the faces found (realloc of a smaller size does not fail in practice;
 * the larger block is kept if it does). */
static int topo_face_loops(topo_ctx *C)
{
    rve_tess *t = C->t;
    int nface = C->nface;
    t->nface = nface;
    int nfl = C->nfl = t->face_voff[nface];
    if (C->periodic) {
        PTAKE(t->face_vimg, nfl);
        for (int o = 0; o < nfl; o++) t->face_vimg[o] = C->vimg[t->face_ver[o]];
    }
    for (int o = 0; o < nfl; o++) t->face_ver[o] = C->vid[t->face_ver[o]];
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
    PPUT(C->vid, C->ni);
    if (C->vimg) PPUT(C->vimg, C->ni);
    return 0;
nomem:
    return -1;
}

/* edges are looked up from their lower vertex a: up to ESLOT of them
 * (b, edge) inline in a's record, which holds nearly all (a vertex has
 * 4 edges where 4 cells meet), further ones in a list from a's record;
 * one cache line per lookup instead of a chain through three arrays */
enum { ESLOT = 3, EREC = 2 * ESLOT + 2 };

/* The edge (a, b, relative image r) from a's record, or a new one; -1 when
 * out of memory. */
static int find_edge(topo_ctx *C, int a, int b, int32_t r)
{
    rve_tess *t = C->t;
    int e = -1, *erec = C->ehead + (size_t)EREC * a, slot = -1, periodic = C->periodic;
    for (int x = 0; x < ESLOT; x++) {
        if (erec[2 * x] < 0) {
            slot = x;
            break;
        }
        if (erec[2 * x] == b && (!periodic || C->eimg[erec[2 * x + 1]] == r))
            return erec[2 * x + 1];
    }
    if (slot < 0)
        for (e = erec[2 * ESLOT]; e >= 0; e = C->enext[e])
            if (t->edge_ver[2 * e + 1] == b && (!periodic || C->eimg[e] == r)) return e;
    if (C->nedge == C->ecap) {
        int nc = C->ecap * 2;
        int *e1 = realloc(t->edge_ver, sizeof(int) * 2 * (size_t)nc);
        if (!e1) return -1;
        t->edge_ver = e1;
        int *e2 = realloc(C->enext, sizeof(int) * (size_t)nc);
        if (!e2) return -1;
        C->enext = e2;
        if (periodic) {
            int32_t *e3 = realloc(C->eimg, sizeof(int32_t) * (size_t)nc);
            if (!e3) return -1;
            C->eimg = e3;
        }
        C->ecap = nc;
    }
    e = C->nedge++;
    t->edge_ver[2 * e] = a;
    t->edge_ver[2 * e + 1] = b;
    if (periodic) C->eimg[e] = r;
    if (slot >= 0) {
        erec[2 * slot] = b;
        erec[2 * slot + 1] = e;
    } else {
        C->enext[e] = erec[2 * ESLOT];
        erec[2 * ESLOT] = e;
    }
    return e;
}

/* Step 7: edges, unique (a, b, relative image) over the face loops, and the
 * faces of each edge. */
static int topo_edges(topo_ctx *C)
{
    rve_tess *t = C->t;
    int nfl = C->nfl, periodic = C->periodic;
    PTAKE(C->ehead, (size_t)EREC * t->nver);
    for (size_t x = 0; x < (size_t)EREC * t->nver; x++) C->ehead[x] = -1;
    C->ecap = nfl / 2 + 16;
    C->nedge = 0;
    PTAKE(t->edge_ver, 2 * (size_t)C->ecap);
    PTAKE(C->enext, C->ecap);
    if (periodic) PTAKE(C->eimg, C->ecap);
    for (int g = 0; g < t->nface; g++) {
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
            int e = find_edge(C, a, b, r);
            if (e < 0) goto nomem;
            t->face_edge[a0 + k] = e;
            t->face_esign[a0 + k] = (signed char)sign;
        }
    }
    PPUT(C->ehead, (size_t)EREC * t->nver);
    PPUT(C->enext, C->ecap);
    if (C->eimg) PPUT(C->eimg, C->ecap);
    int nedge = t->nedge = C->nedge;
    CALLOC_(t->edge_state, nedge);
    PTAKE(t->edge_foff, (size_t)nedge + 1);
    memset(t->edge_foff, 0, sizeof(int) * ((size_t)nedge + 1));
    for (int k = 0; k < nfl; k++) t->edge_foff[t->face_edge[k] + 1]++;
    for (int e = 0; e < nedge; e++) t->edge_foff[e + 1] += t->edge_foff[e];
    PTAKE(t->edge_faces, nfl);
    PTAKE(C->cnt, nedge);
    memcpy(C->cnt, t->edge_foff, sizeof(int) * (size_t)nedge);
    for (int g = 0; g < t->nface; g++)
        for (int k = t->face_voff[g]; k < t->face_voff[g + 1]; k++) t->edge_faces[C->cnt[t->face_edge[k]]++] = g;
    free(C->cnt);
    C->cnt = NULL;
    return 0;
nomem:
    return -1;
}

rve_status tess_topology_ordered(rve_tess *t, int *given, rve_err *err)
{
    tess_topo_free(t);
    topo_ctx C;
    memset(&C, 0, sizeof C);
    C.t = t;
    C.n = t->n;
    tess_period(t, C.P);
    C.periodic = C.P[0] > 0 || C.P[1] > 0 || C.P[2] > 0;
    double ext = fmax(t->hi[0] - t->lo[0], fmax(t->hi[1] - t->lo[1], t->hi[2] - t->lo[2]));
    C.tol2 = (1e-9 * ext) * (1e-9 * ext);
    int rc = topo_bases(&C, given);
    if (rc == -2) {
        topo_ctx_free(&C);
        return rve_err_set(err, RVE_ENOMEM, "", "tessellation too large for the topology");
    }
    if (rc == 0)
        rc = topo_faces(&C);
    if (rc == 0)
        rc = topo_cell_faces(&C);
    if (rc == 0)
        rc = topo_vertices(&C);
    if (rc == 0)
        rc = topo_ver_cells(&C);
    if (rc == 0)
        rc = topo_face_loops(&C);
    if (rc == 0)
        rc = topo_edges(&C);
    topo_ctx_free(&C);
    if (rc != 0) {
        tess_topo_free(t);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory building the topology");
    }
    t->has_topo = 1;
    return RVE_OK;
}
