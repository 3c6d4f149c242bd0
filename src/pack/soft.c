/* Compression with soft-contact relaxation (FIRE), then an exact opening
 * of the remaining overlaps. */
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

/* Every near pair carries a cached normal n (from A to B): the last
 * contact normal of the pair, or the centre line.  The overlap of the
 * support functions along n, along the centre line and along the face
 * normals is only a filter: an axis with no overlap separates the pair
 * (no contact).  A pair that no axis separates gets its contact from the
 * exact kernels (pack_pair_contact: GJK distance and witnesses when apart;
 * EPA, Peng-Hanley or Wellmann when overlapping): the energy sum depth^2/2
 * is relaxed by FIRE with forces depth n along the kernel's normal at the
 * contact point (the mid-point of the two witnesses) and their torques.
 * Spheres use the exact centre-line overlap. */
typedef struct {
    uint64_t key;
    double n[3];
} old_normal;

typedef struct {
    double *x, *v, *f, *x0;   /* positions, velocities, forces, positions at the last list build */
    double *w, *tq;           /* angular velocities, torques (world frame) */
    double *inertia;          /* scalar moments of inertia (mass 1) */
    double *nrm;              /* per pair cached normal (3), valid when nrm_ok */
    char *nrm_ok;
    size_t capn;
    rve_pack_pair *pairs;
    size_t np, capp;
    double skin;
    int rotate;
    long gjk_calls;
    long fallbacks;           /* pairs the exact kernels gave no contact for (support axis used) */
    double tol;               /* overlaps accepted at the end of a stage */
    old_normal *old;          /* normals of the previous pair list, sorted by key */
    size_t nold, capold;
    double *wv;               /* world vertices of the polyhedra (offsets woff) */
    size_t *woff;
} soft_ws;

static void body_sync(pack_ctx *c, soft_ws *w)
{
    for (size_t i = 0; i < c->s->n; i++)
        v3_copy(c->s->b[i].x, w->x + 3 * i);
}

/* world support of body i in direction d, shifted by t (cached world
 * vertices for polyhedra) */
static void support_w(const soft_ws *w, int i, const rve_pack_body *b, const double d[3], const double t[3],
                      double out[3])
{
    if (b->shape == RVE_PACK_POLY && w->wv) {
        const double *v = w->wv + 3 * w->woff[i];
        int best = 0;
        double bd = -INFINITY;
        for (int k = 0; k < b->nv; k++) {
            double dd = v[3 * k] * d[0] + v[3 * k + 1] * d[1] + v[3 * k + 2] * d[2];
            if (dd > bd) {
                bd = dd;
                best = k;
            }
        }
        v3_add(out, v + 3 * best, t);
        return;
    }
    rve_pack_body_support(b, d, out);
    v3_add(out, out, t);
}

static void world_cache(pack_ctx *c, soft_ws *w)
{
    if (!w->wv)
        return;
    for (size_t i = 0; i < c->s->n; i++) {
        const rve_pack_body *b = &c->s->b[i];
        if (b->shape != RVE_PACK_POLY)
            continue;
        double *v = w->wv + 3 * w->woff[i];
        for (int k = 0; k < b->nv; k++)
            rve_pack_body_vertex(b, k, v + 3 * k);
    }
}

/* Overlap of the projections of A = body i and B = body j (shifted by t) on
 * axis n (from A to B); optional support points. */
static double axis_overlap(const soft_ws *w, int i, int j, const rve_pack_body *A, const rve_pack_body *B,
                           const double t[3], const double n[3], double *pa_out, double *pb_out)
{
    static const double zero[3] = {0, 0, 0};
    double mn[3], pa[3], pb[3];
    v3_scale(mn, n, -1.0);
    support_w(w, i, A, n, zero, pa);
    support_w(w, j, B, mn, t, pb);
    if (pa_out)
        v3_copy(pa_out, pa);
    if (pb_out)
        v3_copy(pb_out, pb);
    return v3_dot(pa, n) - v3_dot(pb, n);
}

static void add_contact(soft_ws *w, int i, const double cp[3], const double ci[3], const double F[3])
{
    for (int a = 0; a < 3; a++)
        w->f[3 * i + a] += F[a];
    if (w->rotate) {
        double r[3], tq[3];
        v3_sub(r, cp, ci);
        v3_cross(tq, r, F);
        for (int a = 0; a < 3; a++)
            w->tq[3 * i + a] += tq[a];
    }
}

/* Forces and torques; returns the largest overlap (-1 on a kernel error). */
static double soft_forces(pack_ctx *c, soft_ws *w, double *energy)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    memset(w->f, 0, sizeof(double) * 3 * n);
    memset(w->tq, 0, sizeof(double) * 3 * n);
    world_cache(c, w);
    double e = 0, maxov = 0;
    for (size_t k = 0; k < w->np; k++) {
        int i = w->pairs[k].i, j = w->pairs[k].j;
        const rve_pack_body *A = &s->b[i], *B = &s->b[j];
        double t[3], d[3];
        pack_shift_vec(s, w->pairs[k].shift, t);
        for (int a = 0; a < 3; a++)
            d[a] = B->x[a] + t[a] - A->x[a];
        double d2 = v3_norm2(d);
        if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE) {
            double r = A->a[0] + B->a[0];
            if (d2 >= r * r)
                continue;
            double dist = sqrt(d2);
            double ov = r - dist;
            maxov = fmax(maxov, ov);
            e += 0.5 * ov * ov;
            if (dist > 0) {
                double fs = ov / dist;
                for (int a = 0; a < 3; a++) {
                    w->f[3 * i + a] -= fs * d[a];
                    w->f[3 * j + a] += fs * d[a];
                }
            }
            continue;
        }
        double rr = A->rbound + B->rbound;
        if (d2 >= rr * rr)
            continue;
        double *nv = w->nrm + 3 * k;
        if (!w->nrm_ok[k]) {
            double dn = sqrt(d2);
            if (dn > 0)
                v3_scale(nv, d, 1.0 / dn);
            else
                v3_set(nv, 1, 0, 0);
            w->nrm_ok[k] = 1;
        }
        double pa[3], pb[3];
        double o = axis_overlap(w, i, j, A, B, t, nv, pa, pb);
        if (o <= 0)
            continue; /* n separates them */
        /* the axis of least overlap among the centre line and the face normals */
        double best = o, bn[3], ax[3];
        v3_copy(bn, nv);
        double dn = sqrt(d2);
        if (dn > 0) {
            v3_scale(ax, d, 1.0 / dn);
            double oo = axis_overlap(w, i, j, A, B, t, ax, NULL, NULL);
            if (oo < best) {
                best = oo;
                v3_copy(bn, ax);
            }
        }
        for (int side = 0; side < 2 && best > 0; side++) {
            const rve_pack_body *P = side ? B : A;
            for (int f = 0; f < P->nf && best > 0; f++) {
                v3_qrot(ax, P->q, P->fn + 3 * f);
                if (side)
                    v3_scale(ax, ax, -1.0);
                /* contact normals turn continuously: faces facing away from
                 * the current normal are not the axis of least overlap */
                if (v3_dot(ax, nv) < 0.5)
                    continue;
                double oo = axis_overlap(w, i, j, A, B, t, ax, NULL, NULL);
                if (oo < best) {
                    best = oo;
                    v3_copy(bn, ax);
                }
            }
        }
        v3_copy(nv, bn);
        if (best <= 0)
            continue; /* a separating axis */
        /* no separating axis among the cached normal, the centre line and
         * the face normals: the pair's contact from the exact kernels
         * (GJK distance; EPA, Peng-Hanley or Wellmann when overlapping) */
        w->gjk_calls++;
        rve_pack_contact pc;
        if (pack_pair_contact(A, B, t, &pc) == RVE_OK) {
            v3_copy(nv, pc.n);
            if (pc.s > 0)
                continue; /* apart: keep the separating direction */
            o = -pc.s;
            v3_copy(pa, pc.p);
            v3_copy(pb, pc.q);
        } else {
            /* no answer from the kernel (a degenerate touch): the least
             * overlap axis found above, this step only */
            w->fallbacks++;
            o = axis_overlap(w, i, j, A, B, t, nv, pa, pb);
        }
        maxov = fmax(maxov, o);
        e += 0.5 * o * o;
        double F[3], mF[3], cp[3], cb[3];
        v3_scale(F, nv, o);
        v3_scale(mF, F, -1.0);
        for (int a = 0; a < 3; a++)
            cp[a] = 0.5 * (pa[a] + pb[a]);
        v3_add(cb, B->x, t);
        add_contact(w, i, cp, A->x, mF);
        add_contact(w, j, cp, cb, F);
    }
    if (!s->periodic)
        for (int i = 0; i < n; i++) {
            const rve_pack_body *b = &s->b[i];
            for (int a = 0; a < 3; a++)
                for (int side = 0; side < 2; side++) {
                    double dir[3] = {0, 0, 0}, p[3];
                    dir[a] = side ? 1 : -1;
                    if (b->shape == RVE_PACK_SPHERE) {
                        v3_copy(p, b->x);
                        p[a] += dir[a] * b->a[0];
                    } else
                        rve_pack_body_support(b, dir, p);
                    double o = side ? p[a] - s->L[a] : -p[a];
                    if (o <= 0)
                        continue;
                    maxov = fmax(maxov, o);
                    e += 0.5 * o * o;
                    double F[3] = {0, 0, 0};
                    F[a] = -dir[a] * o;
                    add_contact(w, i, p, b->x, F);
                }
        }
    *energy = e;
    return maxov;
}

static uint64_t pair_key(const rve_pack_pair *p)
{
    return ((uint64_t)(uint32_t)p->i << 40) | ((uint64_t)(uint32_t)p->j << 16) |
           ((uint64_t)((p->shift[0] + 16) & 31) << 10) | ((uint64_t)((p->shift[1] + 16) & 31) << 5) |
           (uint64_t)((p->shift[2] + 16) & 31);
}

static int cmp_old(const void *a, const void *b)
{
    uint64_t x = ((const old_normal *)a)->key, y = ((const old_normal *)b)->key;
    return x < y ? -1 : x > y;
}

static rve_status soft_save_normals(pack_ctx *c, soft_ws *w);

static rve_status soft_neighbours(pack_ctx *c, soft_ws *w)
{
    rve_pack_set *s = c->s;
    if (w->np > 0 && soft_save_normals(c, w) != RVE_OK)
        return c->err ? c->err->code : RVE_ENOMEM;
    body_sync(c, w);
    pack_wrap(s);
    for (size_t i = 0; i < s->n; i++)
        v3_copy(w->x + 3 * i, s->b[i].x);
    memcpy(w->x0, w->x, sizeof(double) * 3 * s->n);
    rve_status st = rve_pack_broad_phase(s, w->skin, &w->pairs, &w->np, &w->capp, c->err);
    if (st != RVE_OK)
        return st;
    if (w->np > w->capn) {
        double *nn = realloc(w->nrm, sizeof(double) * 3 * w->capp);
        char *ok = realloc(w->nrm_ok, w->capp);
        if (nn)
            w->nrm = nn;
        if (ok)
            w->nrm_ok = ok;
        if (!nn || !ok)
            return rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        w->capn = w->capp;
    }
    /* carry the cached normals over from the previous list */
    for (size_t k = 0; k < w->np; k++) {
        w->nrm_ok[k] = 0;
        if (w->nold == 0)
            continue;
        uint64_t key = pair_key(&w->pairs[k]);
        size_t lo = 0, hi = w->nold;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (w->old[mid].key < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < w->nold && w->old[lo].key == key) {
            v3_copy(w->nrm + 3 * k, w->old[lo].n);
            w->nrm_ok[k] = 1;
        }
    }
    return RVE_OK;
}

/* Save the cached normals (sorted by pair key) before the list changes. */
static rve_status soft_save_normals(pack_ctx *c, soft_ws *w)
{
    if (w->np > w->capold) {
        old_normal *o = realloc(w->old, sizeof *o * w->np);
        if (!o)
            return rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        w->old = o;
        w->capold = w->np;
    }
    w->nold = 0;
    for (size_t k = 0; k < w->np; k++)
        if (w->nrm_ok[k]) {
            w->old[w->nold].key = pair_key(&w->pairs[k]);
            v3_copy(w->old[w->nold].n, w->nrm + 3 * k);
            w->nold++;
        }
    if (w->nold)
        qsort(w->old, w->nold, sizeof *w->old, cmp_old);
    return RVE_OK;
}

static void quat_integrate(double q[4], const double om[3], double dt)
{
    double ang = v3_norm(om) * dt;
    if (ang == 0)
        return;
    double ax[3];
    v3_scale(ax, om, dt / ang);
    double sh = sin(0.5 * ang), dq[4] = {cos(0.5 * ang), sh * ax[0], sh * ax[1], sh * ax[2]}, r[4];
    pack_quat_mul(r, dq, q);
    memcpy(q, r, sizeof r);
}

/* FIRE minimisation. Returns 1 when all overlaps vanished (below 1e-11 of
 * the mean bounding radius), 0 when jammed (a minimum with overlaps, or the
 * iteration cap), -1 on error. */
static int soft_relax(pack_ctx *c, soft_ws *w, long maxit)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    for (int i = 0; i < n; i++)
        v3_copy(w->x + 3 * i, s->b[i].x);
    if (soft_neighbours(c, w) != RVE_OK)
        return -1;
    memset(w->v, 0, sizeof(double) * 3 * n);
    memset(w->w, 0, sizeof(double) * 3 * n);
    const double dt0 = 0.05, dtmax = 0.3, finc = 1.1, fdec = 0.5, a0 = 0.1, fa = 0.99;
    double dt = dt0, alpha = a0;
    int npos = 0;
    double e, maxov = soft_forces(c, w, &e);
    if (maxov < 0)
        return -1;
    for (long it = 0; it < maxit; it++) {
        c->res->steps++;
        c->res->narrow_calls += (long)w->np;
        if (maxov <= w->tol)
            return 1; /* residual overlaps are opened exactly at the end */
        double fmaxc = 0;
        for (int k = 0; k < 3 * n; k++)
            fmaxc = fmax(fmaxc, fabs(w->f[k]));
        if (fmaxc < 1e-6 * maxov)
            return 0; /* a minimum with overlaps: jammed */
        /* FIRE mixing on the generalised velocity (v, w sqrt(I)) */
        double P = 0, vn = 0, fn = 0;
        for (int i = 0; i < n; i++)
            for (int a = 0; a < 3; a++) {
                int k = 3 * i + a;
                P += w->f[k] * w->v[k];
                vn += w->v[k] * w->v[k];
                fn += w->f[k] * w->f[k];
                if (w->rotate) {
                    P += w->tq[k] * w->w[k];
                    vn += w->inertia[i] * w->w[k] * w->w[k];
                    fn += w->tq[k] * w->tq[k] / w->inertia[i];
                }
            }
        vn = sqrt(vn);
        fn = sqrt(fn);
        if (P > 0) {
            double mix = fn > 0 ? alpha * vn / fn : 0;
            for (int i = 0; i < n; i++)
                for (int a = 0; a < 3; a++) {
                    int k = 3 * i + a;
                    w->v[k] = (1 - alpha) * w->v[k] + mix * w->f[k];
                    if (w->rotate)
                        w->w[k] = (1 - alpha) * w->w[k] + mix * w->tq[k] / w->inertia[i];
                }
            if (++npos > 5) {
                dt = fmin(dt * finc, dtmax);
                alpha *= fa;
            }
        } else {
            npos = 0;
            dt *= fdec;
            alpha = a0;
            memset(w->v, 0, sizeof(double) * 3 * n);
            memset(w->w, 0, sizeof(double) * 3 * n);
        }
        /* semi-implicit Euler (mass 1) */
        double maxd2 = 0;
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < 3; a++) {
                w->v[3 * i + a] += dt * w->f[3 * i + a];
                w->x[3 * i + a] += dt * w->v[3 * i + a];
            }
            v3_copy(s->b[i].x, w->x + 3 * i);
            if (w->rotate && s->b[i].shape != RVE_PACK_SPHERE) {
                for (int a = 0; a < 3; a++)
                    w->w[3 * i + a] += dt * w->tq[3 * i + a] / w->inertia[i];
                quat_integrate(s->b[i].q, w->w + 3 * i, dt);
            }
            double dd[3];
            v3_sub(dd, w->x + 3 * i, w->x0 + 3 * i);
            maxd2 = fmax(maxd2, v3_norm2(dd));
        }
        if (4 * maxd2 > w->skin * w->skin && soft_neighbours(c, w) != RVE_OK)
            return -1;
        maxov = soft_forces(c, w, &e);
        if (maxov < 0)
            return -1;
        if ((it & 255) == 0 && pack_out_of_time(c))
            break;
    }
    return 0;
}

static void scale_box(rve_pack_set *s, double f)
{
    for (int k = 0; k < 3; k++)
        s->L[k] *= f;
    for (size_t i = 0; i < s->n; i++)
        v3_scale(s->b[i].x, s->b[i].x, f);
}

/* Does some non-sphere pair overlap (GJK)?  -1 on error. */
static int any_gjk_overlap(pack_ctx *c)
{
    rve_pack_set *s = c->s;
    rve_pack_pair *pairs = NULL;
    size_t np = 0, cap = 0;
    if (rve_pack_broad_phase(s, 0, &pairs, &np, &cap, c->err) != RVE_OK)
        return -1;
    int any = 0;
    for (size_t k = 0; k < np && !any; k++) {
        const rve_pack_body *A = &s->b[pairs[k].i], *B = &s->b[pairs[k].j];
        if (A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE)
            continue;
        double t[3], sep;
        int ov;
        pack_shift_vec(s, pairs[k].shift, t);
        if (pack_separation_bodies(A, B, t, &sep, &ov) != RVE_OK) {
            free(pairs);
            rve_err_set(c->err, RVE_EDATA, NULL, "narrow phase failed on bodies %d and %d", pairs[k].i + 1,
                        pairs[k].j + 1);
            return -1;
        }
        any = ov;
    }
    free(pairs);
    return any;
}

/* Exact final fix: grow the box (positions with it) by the smallest factor
 * found that opens every remaining overlap: closed form for spheres and
 * walls; for other shapes doubling then bisection, certified by GJK. */
static rve_status open_overlaps(pack_ctx *c)
{
    rve_pack_set *s = c->s;
    for (int round = 0; round < 60; round++) {
        rve_pack_pair *pairs = NULL;
        size_t np = 0, cap = 0;
        rve_status st = rve_pack_broad_phase(s, 0, &pairs, &np, &cap, c->err);
        if (st != RVE_OK)
            return st;
        double f = 1.0;
        for (size_t k = 0; k < np; k++) {
            const rve_pack_body *A = &s->b[pairs[k].i], *B = &s->b[pairs[k].j];
            if (!(A->shape == RVE_PACK_SPHERE && B->shape == RVE_PACK_SPHERE))
                continue;
            double t[3], d[3];
            pack_shift_vec(s, pairs[k].shift, t);
            for (int a = 0; a < 3; a++)
                d[a] = B->x[a] + t[a] - A->x[a];
            double dist = v3_norm(d), r = A->a[0] + B->a[0];
            if (dist < r)
                f = fmax(f, dist > 0 ? r / dist : 2.0);
        }
        free(pairs);
        if (!s->periodic)
            for (size_t i = 0; i < s->n; i++) {
                const rve_pack_body *b = &s->b[i];
                for (int a = 0; a < 3; a++) {
                    double dir[3] = {0, 0, 0}, p[3];
                    dir[a] = -1;
                    rve_pack_body_support(b, dir, p);
                    double lo = b->x[a] - p[a];
                    dir[a] = 1;
                    rve_pack_body_support(b, dir, p);
                    double hi = p[a] - b->x[a];
                    /* x -> f x keeps the body inside when f x >= lo and f (L - x) >= hi */
                    double x = b->x[a], L = s->L[a];
                    if (x < lo)
                        f = fmax(f, x > 0 ? lo / x : 2.0);
                    if (L - x < hi)
                        f = fmax(f, L - x > 0 ? hi / (L - x) : 2.0);
                }
            }
        if (f > 1.0) {
            scale_box(s, f * (1 + 4 * DBL_EPSILON));
            continue;
        }
        int ov = any_gjk_overlap(c);
        if (ov < 0)
            return c->err ? c->err->code : RVE_EDATA;
        if (!ov)
            return RVE_OK;
        /* doubling from 1e-12, then bisection, on a saved state */
        size_t n = s->n;
        double *x0 = malloc(sizeof(double) * 3 * n + 1), L0[3];
        if (!x0)
            return rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        for (size_t i = 0; i < n; i++)
            v3_copy(x0 + 3 * i, s->b[i].x);
        memcpy(L0, s->L, sizeof L0);
        double lo = 0, hi = 1e-12;
        int found = 0;
        for (int k = 0; k < 50 && !found; k++) {
            for (size_t i = 0; i < n; i++)
                v3_copy(s->b[i].x, x0 + 3 * i);
            memcpy(s->L, L0, sizeof L0);
            scale_box(s, 1 + hi);
            ov = any_gjk_overlap(c);
            if (ov < 0) {
                free(x0);
                return c->err ? c->err->code : RVE_EDATA;
            }
            if (!ov)
                found = 1;
            else {
                lo = hi;
                hi *= 2;
            }
        }
        for (int k = 0; k < 12 && found; k++) {
            double mid = 0.5 * (lo + hi);
            for (size_t i = 0; i < n; i++)
                v3_copy(s->b[i].x, x0 + 3 * i);
            memcpy(s->L, L0, sizeof L0);
            scale_box(s, 1 + mid);
            ov = any_gjk_overlap(c);
            if (ov < 0) {
                free(x0);
                return c->err ? c->err->code : RVE_EDATA;
            }
            if (ov)
                lo = mid;
            else
                hi = mid;
        }
        for (size_t i = 0; i < n; i++)
            v3_copy(s->b[i].x, x0 + 3 * i);
        memcpy(s->L, L0, sizeof L0);
        free(x0);
        if (!found)
            break;
        scale_box(s, 1 + hi);
    }
    return rve_err_set(c->err, RVE_ECAP, NULL, "could not open the remaining overlaps");
}

rve_status pack_soft(pack_ctx *c, double target)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    soft_ws w;
    memset(&w, 0, sizeof w);
    w.x = malloc(sizeof(double) * 3 * n + 1);
    w.v = malloc(sizeof(double) * 3 * n + 1);
    w.f = malloc(sizeof(double) * 3 * n + 1);
    w.x0 = malloc(sizeof(double) * 3 * n + 1);
    w.w = malloc(sizeof(double) * 3 * n + 1);
    w.tq = malloc(sizeof(double) * 3 * n + 1);
    w.inertia = malloc(sizeof(double) * n + 1);
    double *save = malloc(sizeof(double) * 7 * n + 1);
    rve_status st = RVE_OK;
    if (!w.x || !w.v || !w.f || !w.x0 || !w.w || !w.tq || !w.inertia || !save) {
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    {
        size_t tot = 0;
        w.woff = malloc(sizeof(size_t) * n + 1);
        if (!w.woff) {
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        for (int i = 0; i < n; i++) {
            w.woff[i] = tot;
            if (s->b[i].shape == RVE_PACK_POLY)
                tot += (size_t)s->b[i].nv;
        }
        if (tot > 0) {
            w.wv = malloc(sizeof(double) * 3 * tot);
            if (!w.wv) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        /* solid-sphere-like moment of the bounding radius, mass 1 */
        w.inertia[i] = 0.4 * s->b[i].rbound * s->b[i].rbound;
        if (s->b[i].shape != RVE_PACK_SPHERE)
            w.rotate = 1;
    }
    w.skin = 0.3 * c->rmean;
    /* overlaps left at the end of a stage (opened exactly at the end) */
    w.tol = (w.rotate ? 1e-4 : 1e-6) * c->rmean;
    double vs = c->vsolid;
    double phi = pack_current_fraction(c);
    double dphi = 0.02;
    /* the final opening of residual overlaps (up to w.tol) costs a little
     * fraction: aim a bit higher */
    double target_in = target > 0 ? fmin(target * (1 + 20 * w.tol / c->rmean), 0.95) : 0;
    double Lsave[3];
    const long maxit = w.rotate ? 4000 : 10000; /* FIRE steps per stage */
    const double dmax_dense = 0.02;
    int reached = 0;
    pack_report(c, phi, target, "relaxing");
    /* non-spheres hand over to Monte Carlo near jamming */
    const double dphi_min = w.rotate && target > 0 ? 4e-3 : 2e-5;
    while (dphi > dphi_min && !pack_out_of_time(c)) {
        if (target_in > 0 && phi >= target_in * (1 - 1e-12))
            break;
        for (int i = 0; i < n; i++) {
            v3_copy(save + 7 * i, s->b[i].x);
            memcpy(save + 7 * i + 3, s->b[i].q, 4 * sizeof(double));
        }
        memcpy(Lsave, s->L, sizeof Lsave);
        double phin = phi + dphi;
        if (target_in > 0 && phin > target_in)
            phin = target_in;
        double f = cbrt(phi / phin);
        scale_box(s, f);
        int r = soft_relax(c, &w, maxit);
        if (r < 0) {
            st = c->err && c->err->code != RVE_OK ? c->err->code : RVE_EINTERNAL;
            if (c->err && c->err->code == RVE_OK)
                rve_err_set(c->err, st, NULL, "narrow phase failed during relaxation");
            goto done;
        }
        body_sync(c, &w);
        if (r == 1) {
            phi = vs / (s->L[0] * s->L[1] * s->L[2]);
            /* smaller stages as the packing gets dense */
            dphi = fmin(dphi * 1.2, phi < 0.45 ? 0.02 : dmax_dense);
        } else {
            for (int i = 0; i < n; i++) {
                v3_copy(s->b[i].x, save + 7 * i);
                memcpy(s->b[i].q, save + 7 * i + 3, 4 * sizeof(double));
            }
            memcpy(s->L, Lsave, sizeof Lsave);
            dphi *= 0.5;
        }
        char extra[96];
        snprintf(extra, sizeof extra, "step %.1e, support-axis fallbacks %ld", dphi, w.fallbacks);
        pack_report(c, phi, target, extra);
    }
    /* the loop ends at the target, at the time budget, or when the stage
     * dphi fell below dphi_min: no compression can be relaxed (jammed) */
    if (target_in > 0 && phi >= target_in * (1 - 1e-12))
        c->res->stop = RVE_PACK_STOP_TARGET;
    else
        c->res->stop = pack_out_of_time(c) ? RVE_PACK_STOP_TIME : RVE_PACK_STOP_JAMMED;
    pack_wrap(s);
    st = open_overlaps(c);
    phi = vs / (s->L[0] * s->L[1] * s->L[2]);
    if (target > 0 && phi >= target * (1 - 1e-9)) {
        reached = 1;
        /* a fraction asked for is met exactly (a larger box never overlaps) */
        if (phi > target)
            scale_box(s, cbrt(phi / target));
    }
    c->res->reached_target = target > 0 ? reached : 1;
done:
    free(w.x);
    free(w.v);
    free(w.f);
    free(w.x0);
    free(w.w);
    free(w.tq);
    free(w.inertia);
    free(w.nrm);
    free(w.nrm_ok);
    free(w.old);
    free(w.wv);
    free(w.woff);
    free(w.pairs);
    free(save);
    return st;
}

