/* tess.c - tessellation structure: build with voro++, per-cell polyhedra,
 * incremental update. */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_thread_num(void) { return 0; }
#endif

void rve_tess_opts_default(rve_tess_opts *o)
{
    o->topology = 1;
    o->keep_container = 1;
    o->threads = 0;
}

void tess_period(const rve_tess *t, double P[3])
{
    for (int a = 0; a < 3; a++) P[a] = t->periodic[a] ? t->hi[a] - t->lo[a] : 0;
}

rve_tess *tess_alloc(int n, const double *seeds, const double lo[3], const double hi[3],
                     const int periodic[3])
{
    rve_tess *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->n = n;
    t->seeds = malloc(sizeof(double) * 4 * (size_t)(n > 0 ? n : 1));
    t->cells = calloc((size_t)(n > 0 ? n : 1), sizeof *t->cells);
    if (!t->seeds || !t->cells) {
        free(t->seeds);
        free(t->cells);
        free(t);
        return NULL;
    }
    if (seeds) memcpy(t->seeds, seeds, sizeof(double) * 4 * (size_t)n);
    for (int a = 0; a < 3; a++) {
        t->lo[a] = lo[a];
        t->hi[a] = hi[a];
        t->periodic[a] = periodic ? !!periodic[a] : 0;
    }
    return t;
}

rve_status tess_poly_alloc(rve_tess_poly *p, int nv, int nf, int nfv)
{
    size_t nd = 3 * (size_t)nv + (size_t)nf;
    size_t ni = 3 * (size_t)nf + 1 + (size_t)nfv;
    char *blk = malloc(nd * sizeof(double) + ni * sizeof(int32_t));
    if (!blk) return RVE_ENOMEM;
    double *d = (double *)blk;
    p->v = d;
    p->farea = d + 3 * (size_t)nv;
    int32_t *q = (int32_t *)(d + nd);
    p->fnbr = q;
    p->fimg = q + nf;
    p->foff = q + 2 * (size_t)nf;
    p->floop = p->foff + nf + 1;
    p->nv = nv;
    p->nf = nf;
    p->nfv = nfv;
    return RVE_OK;
}

void tess_poly_free(rve_tess_poly *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}

void tess_poly_measure(rve_tess_poly *p)
{
    double apex[3] = {0, 0, 0};
    for (int k = 0; k < p->nv; k++) v3_add(apex, apex, p->v + 3 * k);
    if (p->nv > 0) v3_scale(apex, apex, 1.0 / p->nv);
    double vol = 0, area = 0, cen[3] = {0, 0, 0};
    for (int f = 0; f < p->nf; f++) {
        const int *L = p->floop + p->foff[f];
        int m = p->foff[f + 1] - p->foff[f];
        double N[3] = {0, 0, 0};
        const double *a = p->v + 3 * L[0];
        double ra[3];
        v3_sub(ra, a, apex);
        for (int k = 1; k + 1 < m; k++) {
            const double *b = p->v + 3 * L[k], *c = p->v + 3 * L[k + 1];
            double ab[3], ac[3], cr[3], rb[3], rc[3];
            v3_sub(ab, b, a);
            v3_sub(ac, c, a);
            v3_cross(cr, ab, ac);
            v3_add(N, N, cr);
            v3_sub(rb, b, apex);
            v3_sub(rc, c, apex);
            double tv[3];
            v3_cross(tv, rb, rc);
            double vt = v3_dot(ra, tv) / 6.0;
            vol += vt;
            for (int x = 0; x < 3; x++) cen[x] += vt * (ra[x] + rb[x] + rc[x]) / 4.0;
        }
        double fa = 0.5 * v3_norm(N);
        p->farea[f] = fa;
        area += fa;
    }
    p->vol = vol;
    p->area = area;
    for (int x = 0; x < 3; x++) p->centroid[x] = apex[x] + (vol > 0 ? cen[x] / vol : 0);
}

/* Image shift of seed j seen across a face of cell i whose vertex centroid is cf. */
static int32_t face_image(const rve_tess *t, int i, int j, const double cf[3])
{
    double P[3];
    tess_period(t, P);
    const double *si = t->seeds + 4 * (size_t)i, *sj = t->seeds + 4 * (size_t)j;
    int s0[3];
    for (int a = 0; a < 3; a++) s0[a] = P[a] > 0 ? (int)lround((cf[a] - sj[a]) / P[a]) : 0;
    /* the right image makes cf equidistant (power) from si and sj'; test the
     * rounded guess and its neighbours, keep the smallest residual */
    double best = INFINITY;
    int bs[3] = {s0[0], s0[1], s0[2]};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int s[3] = {s0[0] + dx, s0[1] + dy, s0[2] + dz};
                int ok = 1;
                for (int a = 0; a < 3; a++)
                    if (P[a] == 0 && s[a] != 0) ok = 0;
                if (!ok || (i == j && s[0] == 0 && s[1] == 0 && s[2] == 0)) continue;
                double q[3];
                for (int a = 0; a < 3; a++) q[a] = sj[a] + s[a] * P[a];
                double r = fabs(v3_dist2(cf, si) - si[3] * si[3] - v3_dist2(cf, q) + sj[3] * sj[3]);
                if (r < best) {
                    best = r;
                    bs[0] = s[0];
                    bs[1] = s[1];
                    bs[2] = s[2];
                }
            }
    return rve_tess_img_pack(bs[0], bs[1], bs[2]);
}

/* Outward plane of cell i across a face to cell or wall j with periodic
 * image img, from the seeds (the bisector of the power distances); 0 when
 * the two seeds coincide (no bisector: the caller falls back on the face
 * polygon). */
static int seed_plane(const rve_tess *t, int i, int j, int32_t img, double pl[4])
{
    if (j < 0) {
        int ax = (-j - 1) / 2, hi = (-j - 1) % 2;
        pl[0] = pl[1] = pl[2] = 0;
        pl[ax] = hi ? 1 : -1;
        pl[3] = hi ? t->hi[ax] : -t->lo[ax];
        return 1;
    }
    const double *si = t->seeds + 4 * (size_t)i, *sj = t->seeds + 4 * (size_t)j;
    double q[3];
    if (img != 0) {
        double P[3];
        tess_period(t, P);
        int s[3];
        rve_tess_img_unpack(img, s);
        for (int a = 0; a < 3; a++) q[a] = sj[a] + s[a] * P[a];
    } else
        v3_copy(q, sj);
    double D[3];
    v3_sub(D, q, si);
    double L = v3_norm(D);
    if (!(L > 0 && isfinite(L))) return 0;
    v3_scale(pl, D, 1.0 / L);
    pl[3] = v3_dot(pl, si) + (L * L + si[3] * si[3] - sj[3] * sj[3]) / (2 * L);
    return 1;
}

/* The fallback plane of a face with coincident seeds: Newell normal and
 * vertex mean of its loop (as stored: the loop is never reversed then). */
static void poly_plane(const double *v, const int *L, int m, double pl[4])
{
    double cf[3] = {0, 0, 0}, N[3] = {0, 0, 0};
    for (int k = 0; k < m; k++) v3_add(cf, cf, v + 3 * L[k]);
    v3_scale(cf, cf, 1.0 / m);
    for (int k = 0; k < m; k++) {
        const double *a = v + 3 * L[k], *b = v + 3 * L[(k + 1) % m];
        N[0] += (a[1] - b[1]) * (a[2] + b[2]);
        N[1] += (a[2] - b[2]) * (a[0] + b[0]);
        N[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    double nn = v3_norm(N);
    v3_scale(pl, N, nn > 0 ? 1.0 / nn : 0);
    pl[3] = v3_dot(pl, cf);
}

void rve_tess_cell_plane(const rve_tess *t, int i, int f, double pl[4])
{
    if (t->face_plane && t->cell_faces) { /* planes of a file or of regularisation */
        int k = t->cell_foff[i] + f, g = t->cell_faces[k];
        double s = t->cell_fsign[k];
        for (int a = 0; a < 4; a++) pl[a] = s * t->face_plane[4 * (size_t)g + a];
        return;
    }
    const rve_tess_poly *p = &t->cells[i];
    if (!seed_plane(t, i, p->fnbr[f], p->fimg[f], pl))
        poly_plane(p->v, p->floop + p->foff[f], p->foff[f + 1] - p->foff[f], pl);
}

rve_status tess_poly_from_raw(const rve_tess *t, int i, int nv, const double *v, int nf,
                              const int *nbr, const int *fv, int fvlen, rve_tess_poly *p)
{
    int nfv = fvlen - nf;
    if (nv < 4 || nf < 4 || nfv < 3 * nf) return RVE_EINTERNAL;
    if (tess_poly_alloc(p, nv, nf, nfv) != RVE_OK) return RVE_ENOMEM;
    memcpy(p->v, v, sizeof(double) * 3 * (size_t)nv);
#if defined(__GNUC__)
    /* the neighbours' seeds (for the planes) are anywhere in t->seeds: ask
     * for all of them now, so that their cache misses overlap instead of
     * coming one per face */
    for (int f = 0; f < nf; f++)
        if (nbr[f] >= 0) __builtin_prefetch(t->seeds + 4 * (size_t)nbr[f]);
#endif
    double P[3];
    tess_period(t, P);
    int pos = 0, off = 0;
    for (int f = 0; f < nf; f++) {
        int m = fv[pos++];
        if (m < 3 || pos + m > fvlen) {
            tess_poly_free(p);
            return RVE_EINTERNAL;
        }
        p->foff[f] = off;
        double cf[3] = {0, 0, 0}, N[3] = {0, 0, 0};
        for (int k = 0; k < m; k++) {
            int a = fv[pos + k];
            if (a < 0 || a >= nv) {
                tess_poly_free(p);
                return RVE_EINTERNAL;
            }
            p->floop[off + k] = a;
            v3_add(cf, cf, v + 3 * a);
        }
        v3_scale(cf, cf, 1.0 / m);
        for (int k = 0; k < m; k++) { /* Newell normal */
            const double *a = v + 3 * fv[pos + k], *b = v + 3 * fv[pos + (k + 1) % m];
            N[0] += (a[1] - b[1]) * (a[2] + b[2]);
            N[1] += (a[2] - b[2]) * (a[0] + b[0]);
            N[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        pos += m;
        off += m;
        int j = nbr[f];
        p->fnbr[f] = j;
        p->fimg[f] = j >= 0 && (P[0] > 0 || P[1] > 0 || P[2] > 0) ? face_image(t, i, j, cf) : 0;
        /* the plane orients the loop and is not stored: rve_tess_cell_plane
         * gives it again from the same seeds (or the same polygon) */
        double pl[4];
        if (!seed_plane(t, i, j, p->fimg[f], pl)) { /* coincident seeds: the polygon */
            double nn = v3_norm(N);
            v3_scale(pl, N, nn > 0 ? 1.0 / nn : 0);
            pl[3] = v3_dot(pl, cf);
        }
        /* loops counter-clockwise seen from outside */
        if (v3_dot(N, pl) < 0) {
            int *L = p->floop + p->foff[f];
            for (int a = 0, b = m - 1; a < b; a++, b--) {
                int tmp = L[a];
                L[a] = L[b];
                L[b] = tmp;
            }
        }
    }
    p->foff[nf] = off;
    tess_poly_measure(p);
    return RVE_OK;
}

/* Drop the undo journal (frees the saved polyhedra). */
static void journal_clear(tess_priv *pv)
{
    for (int k = 0; k < pv->nj; k++) tess_poly_free(&pv->jpoly[k]);
    pv->nj = 0;
    pv->nmv = 0;
}

static void tess_priv_free(rve_tess *t)
{
    tess_priv *pv = t->priv;
    if (!pv) return;
    journal_clear(pv);
    free(pv->jcell);
    free(pv->jpoly);
    free(pv->mvid);
    free(pv->mvold);
    tv_con_free(pv->con);
    tv_cell_free(pv->buf);
    free(pv->mark);
    free(pv);
    t->priv = NULL;
}

void rve_tess_free(rve_tess *t)
{
    if (!t) return;
    tess_priv_free(t);
    tess_topo_free(t);
    if (t->cells)
        for (int i = 0; i < t->n; i++) tess_poly_free(&t->cells[i]);
    free(t->cells);
    free(t->seeds);
    free(t->ori_des);
    free(t->ori);
    free(t->crysym);
    free(t);
}

/* Ask for what computing cell i reads at random (its polyhedron's slot,
 * its place in the container) while the cell before it is computed. */
static void tess_prefetch_cell(const rve_tess *t, const tv_con *con, int i)
{
#if defined(__GNUC__)
    __builtin_prefetch(&t->cells[i], 1);
#else
    (void)t;
#endif
    tv_con_prefetch(con, i);
}

/* Compute cell i with a container into t->cells[i]. */
static rve_status compute_with(rve_tess *t, tv_con *con, tv_cell *buf, int i)
{
    rve_tess_poly *p = &t->cells[i];
    tess_poly_free(p);
    int r = tv_compute(con, i, buf);
    if (r < 0) return RVE_ENOMEM;
    if (r == 0) return RVE_OK; /* empty */
    return tess_poly_from_raw(t, i, tv_cell_nv(buf), tv_cell_v(buf), tv_cell_nf(buf), tv_cell_nbr(buf),
                              tv_cell_fv(buf), tv_cell_fvlen(buf), p);
}

static rve_status compute_one(rve_tess *t, tess_priv *pv, int i)
{
    return compute_with(t, pv->con, pv->buf, i);
}

typedef struct {
    double x[3];
    int i;
} seed_key;

static int cmp_seed(const void *a, const void *b)
{
    const seed_key *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->x[k] != y->x[k]) return x->x[k] < y->x[k] ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* First pair of seeds at the same position (error path only). */
static void find_coincident(const double *s, int n, int *a, int *b)
{
    seed_key *k = malloc(sizeof *k * (size_t)n);
    if (!k) return;
    for (int i = 0; i < n; i++) {
        memcpy(k[i].x, s + 4 * (size_t)i, 3 * sizeof(double));
        k[i].i = i;
    }
    qsort(k, (size_t)n, sizeof *k, cmp_seed);
    for (int i = 1; i < n; i++)
        if (memcmp(k[i - 1].x, k[i].x, 3 * sizeof(double)) == 0) {
            *a = k[i - 1].i;
            *b = k[i].i;
            break;
        }
    free(k);
}

static rve_status check_input(const double *seeds, int n, const double lo[3], const double hi[3],
                              const int periodic[3], rve_err *err)
{
    if (n < 1 || !seeds) return rve_err_set(err, RVE_EDATA, "", "no seeds");
    for (int a = 0; a < 3; a++)
        if (!isfinite(lo[a]) || !isfinite(hi[a]) || !(hi[a] > lo[a]))
            return rve_err_set(err, RVE_EDATA, "", "empty or invalid domain along %c", "xyz"[a]);
    for (int i = 0; i < n; i++) {
        const double *s = seeds + 4 * (size_t)i;
        for (int a = 0; a < 4; a++)
            if (!isfinite(s[a])) return rve_err_set(err, RVE_EDATA, "", "seed %d is not finite", i + 1);
        for (int a = 0; a < 3; a++)
            if (!(periodic && periodic[a]) && (s[a] < lo[a] || s[a] > hi[a]))
                return rve_err_set(err, RVE_EDATA, "", "seed %d (%g %g %g) is outside the domain", i + 1,
                                   s[0], s[1], s[2]);
    }
    return RVE_OK;
}

rve_status rve_tess_build(const double *seeds, int n, const double lo[3], const double hi[3],
                          const int periodic[3], const rve_tess_opts *opts, rve_tess **out,
                          rve_err *err)
{
    *out = NULL;
    rve_tess_opts o;
    if (opts)
        o = *opts;
    else
        rve_tess_opts_default(&o);
    rve_status st = check_input(seeds, n, lo, hi, periodic, err);
    if (st) return st;
    rve_tess *t = tess_alloc(n, seeds, lo, hi, periodic);
    if (!t) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    tess_priv *pv = calloc(1, sizeof *pv);
    int *order = malloc(sizeof(int) * (size_t)n);
    t->priv = pv;
    if (!pv || !order) goto nomem;
    pv->buf = tv_cell_new();
    pv->con = tv_con_new(lo, hi, t->periodic, n, t->seeds);
    if (!pv->buf || !pv->con) goto nomem;
    /* keep the (wrapped) positions the container stores */
    for (int i = 0; i < n; i++) tv_con_pos(pv->con, i, t->seeds + 4 * (size_t)i);
    /* cells computed (and their polyhedra allocated) in the order the
     * topology sweeps them */
    int spatial = 0; /* order is tess_spatial_order's (the topology takes it) */
    {
        int *so = tess_spatial_order(t);
        if (so) {
            free(order);
            order = so;
            spatial = 1;
        } else
            tv_con_order(pv->con, order);
    }
    int nth = o.threads > 0 ? o.threads : rve_threads_get();
    if (n < 4096) nth = 1;
    if (nth > 64) nth = 64;
    if (nth <= 1) {
        for (int k = 0; k < n; k++) {
            int i = order[k];
            if (k + 1 < n) tess_prefetch_cell(t, pv->con, order[k + 1]);
            st = compute_one(t, pv, i);
            if (st == RVE_ENOMEM) goto nomem;
            if (st) {
                free(order);
                rve_tess_free(t);
                return rve_err_set(err, st, "", "voro++ returned an invalid cell for seed %d", i + 1);
            }
            if (t->cells[i].nv == 0) t->nempty++;
        }
    } else {
        /* voro++ containers are not re-entrant: one container per thread
         * (they only hold the seeds), cells shared out in block order */
        tv_con *cons[64] = {NULL};
        tv_cell *bufs[64] = {NULL};
        cons[0] = pv->con;
        bufs[0] = pv->buf;
        int ok = 1;
        for (int k = 1; k < nth; k++) {
            cons[k] = tv_con_new(lo, hi, t->periodic, n, t->seeds);
            bufs[k] = tv_cell_new();
            if (!cons[k] || !bufs[k]) ok = 0;
        }
        int bad = -1, nomem = 0, nempty = 0;
        if (ok) {
#pragma omp parallel for num_threads(nth) schedule(dynamic, 256) reduction(+ : nempty)
            for (int k = 0; k < n; k++) {
                int tid = omp_get_thread_num();
                int i = order[k];
                if (k + 1 < n) tess_prefetch_cell(t, cons[tid], order[k + 1]);
                rve_status s1 = compute_with(t, cons[tid], bufs[tid], i);
                if (s1 == RVE_ENOMEM) {
#pragma omp atomic write
                    nomem = 1;
                } else if (s1) {
#pragma omp atomic write
                    bad = i;
                }
                if (t->cells[i].nv == 0) nempty++;
            }
        }
        for (int k = 1; k < nth; k++) {
            tv_con_free(cons[k]);
            tv_cell_free(bufs[k]);
        }
        if (!ok || nomem) goto nomem;
        if (bad >= 0) {
            free(order);
            rve_tess_free(t);
            return rve_err_set(err, RVE_EINTERNAL, "", "voro++ returned an invalid cell for seed %d", bad + 1);
        }
        t->nempty = nempty;
    }
    int *torder = NULL;
    if (spatial && o.topology)
        torder = order;
    else
        free(order);
    order = NULL;
    /* the cells must fill the box: coincident seeds of equal weight make
     * voro++ drop both cells */
    {
        long double vs = 0;
        for (int i = 0; i < n; i++) vs += t->cells[i].vol;
        double V = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
        if (fabsl(vs - V) > 1e-9L * V) {
            int a = -1, b = -1;
            find_coincident(t->seeds, n, &a, &b);
            free(torder);
            rve_tess_free(t);
            if (a >= 0)
                return rve_err_set(err, RVE_EDATA, "", "seeds %d and %d coincide", a + 1, b + 1);
            return rve_err_set(err, RVE_EINTERNAL, "", "the cells do not fill the domain (volume %.17Lg of %.17g)", vs, V);
        }
    }
    if (!o.keep_container) tess_priv_free(t);
    if (o.topology) {
        st = tess_topology_ordered(t, torder, err);
        if (st) {
            rve_tess_free(t);
            return st;
        }
    }
    *out = t;
    return RVE_OK;
nomem:
    free(order);
    rve_tess_free(t);
    return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

rve_status rve_tess_undo_enable(rve_tess *t, int on, rve_err *err)
{
    tess_priv *pv = t->priv;
    if (!pv || !pv->con)
        return rve_err_set(err, RVE_EUSAGE, "", "undo: the tessellation was built without its container");
    journal_clear(pv);
    pv->undo_on = on != 0;
    return RVE_OK;
}

rve_status rve_tess_undo(rve_tess *t, rve_err *err)
{
    tess_priv *pv = t->priv;
    if (!pv || !pv->con)
        return rve_err_set(err, RVE_EUSAGE, "", "undo: the tessellation was built without its container");
    if (!pv->undo_on || (pv->nj == 0 && pv->nmv == 0))
        return RVE_OK;
    /* reverse order: a cell or seed listed twice gets its oldest state */
    for (int k = pv->nj - 1; k >= 0; k--) {
        rve_tess_poly *p = &t->cells[pv->jcell[k]];
        tess_poly_free(p);
        *p = pv->jpoly[k];
    }
    pv->nj = 0;
    t->nempty = pv->jnempty;
    for (int k = pv->nmv - 1; k >= 0; k--) {
        int i = pv->mvid[k];
        if (tv_con_move(pv->con, i, pv->mvold + 4 * (size_t)k) != 0) {
            pv->nmv = 0;
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        }
        tv_con_pos(pv->con, i, t->seeds + 4 * (size_t)i);
    }
    pv->nmv = 0;
    return RVE_OK;
}

/* A growing list of ints (the cells of one update). */
typedef struct {
    int *v;
    int n, cap;
} int_list;

static int list_push(int_list *l, int x)
{
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 64;
        int *v = realloc(l->v, sizeof(int) * (size_t)nc);
        if (!v) return -1;
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n++] = x;
    return 0;
}

/* Add cell c to the update's set unless it is there (marked with stamp). */
static int set_add(tess_priv *pv, int stamp, int_list *set, int c)
{
    if (pv->mark[c] == stamp) return 0;
    pv->mark[c] = stamp;
    return list_push(set, c);
}

static rve_status update_check(const rve_tess *t, int nmoved, const int *ids, const double *newseeds, rve_err *err)
{
    for (int k = 0; k < nmoved; k++) {
        int i = ids[k];
        if (i < 0 || i >= t->n) return rve_err_set(err, RVE_EUSAGE, "", "update: no seed %d", i + 1);
        const double *s = newseeds + 4 * (size_t)k;
        for (int a = 0; a < 4; a++)
            if (!isfinite(s[a])) return rve_err_set(err, RVE_EDATA, "", "update: seed %d is not finite", i + 1);
        for (int a = 0; a < 3; a++)
            if (!t->periodic[a] && (s[a] < t->lo[a] || s[a] > t->hi[a]))
                return rve_err_set(err, RVE_EDATA, "", "update: seed %d is outside the domain", i + 1);
    }
    return RVE_OK;
}

/* The marks of this update, and the journal of the moved seeds when undo is on. */
static rve_status update_begin(rve_tess *t, tess_priv *pv, int nmoved, const int *ids, rve_err *err)
{
    if (!pv->mark) {
        pv->mark = calloc((size_t)t->n, sizeof *pv->mark);
        if (!pv->mark) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        pv->stamp = 0;
    }
    if (pv->stamp > 2000000000) {
        memset(pv->mark, 0, sizeof(int) * (size_t)t->n);
        pv->stamp = 0;
    }
    if (!pv->undo_on)
        return RVE_OK;
    journal_clear(pv);
    pv->jnempty = t->nempty;
    if (nmoved > pv->mvcap) {
        int *ni = realloc(pv->mvid, sizeof(int) * (size_t)nmoved);
        if (!ni) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        pv->mvid = ni;
        double *nd = realloc(pv->mvold, 4 * sizeof(double) * (size_t)nmoved);
        if (!nd) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
        pv->mvold = nd;
        pv->mvcap = nmoved;
    }
    for (int k = 0; k < nmoved; k++) {
        pv->mvid[k] = ids[k];
        memcpy(pv->mvold + 4 * (size_t)k, t->seeds + 4 * (size_t)ids[k], 4 * sizeof(double));
    }
    pv->nmv = nmoved;
    return RVE_OK;
}

/* Keep the old polyhedron of cell i for rve_tess_undo (the block then
 * belongs to the journal). */
static int journal_keep(rve_tess *t, tess_priv *pv, int i)
{
    if (pv->nj == pv->jcap) {
        int nc = pv->jcap ? 2 * pv->jcap : 64;
        int *jc = realloc(pv->jcell, sizeof(int) * (size_t)nc);
        if (!jc) return -1;
        pv->jcell = jc;
        rve_tess_poly *jp = realloc(pv->jpoly, sizeof *jp * (size_t)nc);
        if (!jp) return -1;
        pv->jpoly = jp;
        pv->jcap = nc;
    }
    pv->jcell[pv->nj] = i;
    pv->jpoly[pv->nj++] = t->cells[i];
    memset(&t->cells[i], 0, sizeof t->cells[i]);
    return 0;
}

/* Does a moved seed (moved[0..nm)) take an old vertex of cell c? */
static int swallowed(const rve_tess *t, int c, const int *moved, int nm, double tolp)
{
    const rve_tess_poly *q = &t->cells[c];
    for (int u = 0; u < q->nv; u++) {
        const double *x = q->v + 3 * u;
        double own = rve_tess_power(t, c, x);
        for (int m = 0; m < nm; m++)
            if (rve_tess_power(t, moved[m], x) < own - tolp) return 1;
    }
    return 0;
}

rve_status rve_tess_update(rve_tess *t, int nmoved, const int *ids, const double *newseeds,
                           int *changed, int *nchanged, rve_err *err)
{
    if (nchanged) *nchanged = 0;
    tess_priv *pv = t->priv;
    if (!pv || !pv->con)
        return rve_err_set(err, RVE_EUSAGE, "", "update: the tessellation was built without its container");
    rve_status st = update_check(t, nmoved, ids, newseeds, err);
    if (st == RVE_OK)
        st = update_begin(t, pv, nmoved, ids, err);
    if (st != RVE_OK)
        return st;
    int stamp = ++pv->stamp;
    /* the set of cells to recompute: moved, their old and new neighbours */
    int_list set = {NULL, 0, 0}, fr = {NULL, 0, 0};
    for (int k = 0; k < nmoved; k++)
        if (set_add(pv, stamp, &set, ids[k])) goto nomem;
    int nm = set.n; /* distinct moved cells come first */
    for (int k = 0; k < nm; k++) {
        const rve_tess_poly *p = &t->cells[set.v[k]];
        for (int f = 0; f < p->nf; f++)
            if (p->fnbr[f] >= 0 && set_add(pv, stamp, &set, p->fnbr[f])) goto nomem;
    }
    tess_topo_free(t);
    for (int k = 0; k < nmoved; k++) {
        if (tv_con_move(pv->con, ids[k], newseeds + 4 * (size_t)k) != 0) goto nomem;
        tv_con_pos(pv->con, ids[k], t->seeds + 4 * (size_t)ids[k]);
    }
    /* cells recomputed in this order: the moved ones first (their new
     * neighbours join the set), then the others.  Cells outside the set can
     * only lose volume to the moved seeds; those entirely swallowed are found
     * by a flood over the old adjacency from the set, testing their old
     * vertices against the moved seeds' new power distances. */
    double ext = fmax(t->hi[0] - t->lo[0], fmax(t->hi[1] - t->lo[1], t->hi[2] - t->lo[2]));
    double tolp = 1e-13 * ext * ext;
    for (int k = 0; k < set.n && !st; k++) {
        int i = set.v[k];
        const rve_tess_poly *p = &t->cells[i];
        /* remember the old neighbours for the flood */
        for (int f = 0; f < p->nf; f++)
            if (p->fnbr[f] >= 0 && list_push(&fr, p->fnbr[f])) goto nomem;
        if (t->cells[i].nv == 0) t->nempty--;
        if (pv->undo_on && journal_keep(t, pv, i)) goto nomem;
        st = compute_one(t, pv, i);
        if (t->cells[i].nv == 0) t->nempty++;
        if (k < nm) {
            p = &t->cells[i];
            for (int f = 0; f < p->nf; f++)
                if (p->fnbr[f] >= 0 && set_add(pv, stamp, &set, p->fnbr[f])) goto nomem;
        }
        /* flood once the set is closed */
        while (k == set.n - 1 && fr.n > 0 && !st) {
            int c = fr.v[--fr.n];
            if (pv->mark[c] == stamp || pv->mark[c] == -stamp) continue;
            if (swallowed(t, c, set.v, nm, tolp)) {
                if (set_add(pv, stamp, &set, c)) goto nomem; /* the loop goes on with it */
            } else {
                pv->mark[c] = -stamp;
            }
        }
    }
    free(fr.v);
    if (st) {
        free(set.v);
        return rve_err_set(err, st, "", "update: voro++ failed on a cell");
    }
    if (changed) {
        qsort(set.v, (size_t)set.n, sizeof(int), cmp_int);
        memcpy(changed, set.v, sizeof(int) * (size_t)set.n);
    }
    if (nchanged) *nchanged = set.n;
    free(set.v);
    return RVE_OK;
nomem:
    free(set.v);
    free(fr.v);
    return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
}
