/* Placement and compaction: random sequential insertion, soft-sphere
 * compression with FIRE relaxation (spheres), hard-particle Monte Carlo with
 * individual growth (any shape). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void rve_pack_params_init(rve_pack_params *p)
{
    memset(p, 0, sizeof *p);
    p->method = RVE_PACK_AUTO;
    p->aspect[0] = p->aspect[1] = p->aspect[2] = 1.0;
    p->seed = 1;
    p->random_orientation = 1;
}

/* ============================================================ dynamic grid */
typedef struct {
    const rve_pack_set *s;
    int nc[3];
    int brute;
    int m[3];          /* image range for brute mode */
    int *cell_of;
    int **items;
    int *cnt, *cap;
    int *inserted;     /* brute mode: list of inserted bodies */
    int ninserted;
    size_t ncell;
} dgrid;

typedef struct {
    int j;
    int shift[3];
} cand;

static void dgrid_free(dgrid *g)
{
    if (g->items)
        for (size_t c = 0; c < g->ncell; c++)
            free(g->items[c]);
    free(g->items);
    free(g->cnt);
    free(g->cap);
    free(g->cell_of);
    free(g->inserted);
    memset(g, 0, sizeof *g);
}

/* reach: largest centre distance a query must see (2 rmax + margin). */
static int dgrid_init(dgrid *g, const rve_pack_set *s, double reach)
{
    memset(g, 0, sizeof *g);
    g->s = s;
    for (int k = 0; k < 3; k++) {
        double c = floor(s->L[k] / reach);
        if (c > 64)
            c = 64;
        if (c < 1)
            c = 1;
        g->nc[k] = (int)c;
        if (s->periodic && g->nc[k] < 3)
            g->brute = 1;
        g->m[k] = s->periodic ? (int)ceil(reach / s->L[k]) : 0;
    }
    g->cell_of = malloc(s->n * sizeof(int) + 1);
    g->inserted = malloc(s->n * sizeof(int) + 1);
    if (!g->cell_of || !g->inserted)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        g->cell_of[i] = -1;
    if (g->brute)
        return 0;
    g->ncell = (size_t)g->nc[0] * g->nc[1] * g->nc[2];
    g->items = calloc(g->ncell, sizeof(int *));
    g->cnt = calloc(g->ncell, sizeof(int));
    g->cap = calloc(g->ncell, sizeof(int));
    return (g->items && g->cnt && g->cap) ? 0 : -1;
}

static void cell_coords(const dgrid *g, const double x[3], int c[3])
{
    for (int k = 0; k < 3; k++) {
        int v = (int)floor(x[k] / g->s->L[k] * g->nc[k]);
        if (v < 0)
            v = 0;
        if (v >= g->nc[k])
            v = g->nc[k] - 1;
        c[k] = v;
    }
}

static int dgrid_insert(dgrid *g, int i)
{
    if (g->brute) {
        g->cell_of[i] = 0;
        g->inserted[g->ninserted++] = i;
        return 0;
    }
    int c[3];
    cell_coords(g, g->s->b[i].x, c);
    size_t id = ((size_t)c[2] * g->nc[1] + c[1]) * g->nc[0] + c[0];
    if (g->cnt[id] == g->cap[id]) {
        int nc = g->cap[id] ? 2 * g->cap[id] : 8;
        int *p = realloc(g->items[id], sizeof(int) * nc);
        if (!p)
            return -1;
        g->items[id] = p;
        g->cap[id] = nc;
    }
    g->items[id][g->cnt[id]++] = i;
    g->cell_of[i] = (int)id;
    return 0;
}

static void dgrid_remove(dgrid *g, int i)
{
    int id = g->cell_of[i];
    if (id < 0 || g->brute)
        return;
    for (int k = 0; k < g->cnt[id]; k++)
        if (g->items[id][k] == i) {
            g->items[id][k] = g->items[id][--g->cnt[id]];
            break;
        }
    g->cell_of[i] = -1;
}

/* Candidates near a body of bounding radius R at x (excluding body `self`
 * at zero shift): pairs with |x_j + shift L - x| <= R + R_j + margin. */
static int dgrid_query(const dgrid *g, const double x[3], double R, double margin, int self,
                       cand **out, int *n, int *cap)
{
    const rve_pack_set *s = g->s;
    *n = 0;
#define PUSH(J, SH)                                                              \
    do {                                                                         \
        if (*n == *cap) {                                                        \
            int nc_ = *cap ? 2 * *cap : 64;                                      \
            cand *p_ = realloc(*out, sizeof(cand) * nc_);                        \
            if (!p_)                                                             \
                return -1;                                                       \
            *out = p_;                                                           \
            *cap = nc_;                                                          \
        }                                                                        \
        (*out)[*n].j = (J);                                                      \
        memcpy((*out)[*n].shift, (SH), sizeof(int) * 3);                        \
        (*n)++;                                                                  \
    } while (0)
    if (g->brute) {
        for (int t = 0; t < g->ninserted; t++) {
            int j = g->inserted[t];
            for (int a = -g->m[0]; a <= g->m[0]; a++)
                for (int b = -g->m[1]; b <= g->m[1]; b++)
                    for (int c = -g->m[2]; c <= g->m[2]; c++) {
                        if (j == self && a == 0 && b == 0 && c == 0)
                            continue;
                        int sh[3] = {a, b, c};
                        double d[3];
                        for (int k = 0; k < 3; k++)
                            d[k] = s->b[j].x[k] + sh[k] * s->L[k] - x[k];
                        double lim = R + s->b[j].rbound + margin;
                        if (v3_norm2(d) <= lim * lim)
                            PUSH(j, sh);
                    }
        }
        return 0;
    }
    int c0[3];
    cell_coords(g, x, c0);
    for (int o = 0; o < 27; o++) {
        int off[3] = {o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1};
        int cc[3], wrap[3], skip = 0;
        for (int k = 0; k < 3; k++) {
            int c = c0[k] + off[k];
            wrap[k] = 0;
            if (c < 0 || c >= g->nc[k]) {
                if (!s->periodic) {
                    skip = 1;
                    break;
                }
                wrap[k] = c < 0 ? -1 : 1;
                c -= wrap[k] * g->nc[k];
            }
            cc[k] = c;
        }
        if (skip)
            continue;
        /* With fewer than 3 cells on a walled axis the offsets may repeat a cell. */
        int dup = 0;
        for (int k = 0; k < 3; k++)
            if (!s->periodic && g->nc[k] < 3 && off[k] != 0) {
                int c = c0[k] + off[k];
                int seen_same = 0;
                for (int o2 = -1; o2 < off[k]; o2++)
                    if (c0[k] + o2 == c)
                        seen_same = 1;
                if (seen_same)
                    dup = 1;
            }
        if (dup)
            continue;
        size_t id = ((size_t)cc[2] * g->nc[1] + cc[1]) * g->nc[0] + cc[0];
        for (int t = 0; t < g->cnt[id]; t++) {
            int j = g->items[id][t];
            if (j == self)
                continue;
            double d[3];
            for (int k = 0; k < 3; k++)
                d[k] = s->b[j].x[k] + wrap[k] * s->L[k] - x[k];
            double lim = R + s->b[j].rbound + margin;
            if (v3_norm2(d) <= lim * lim)
                PUSH(j, wrap);
        }
    }
#undef PUSH
    return 0;
}

/* ============================================================ shared state */
typedef struct {
    rve_pack_set *s;
    const rve_pack_params *p;
    rve_pack_result *res;
    rve_err *err;
    rve_pack_rng rng;
    double t0;
    rve_pack_body *orig;  /* bodies at unit scale (sizes as given) */
    double *lam;          /* current scale of each body */
    double vsolid;        /* at unit scale */
    double rmax;          /* largest unit-scale bounding radius */
    double rmean;
} ctx;

static void set_scale(ctx *c, int i, double lam)
{
    rve_pack_body *b = &c->s->b[i];
    const rve_pack_body *o = &c->orig[i];
    for (int k = 0; k < 3; k++)
        b->a[k] = o->a[k] * lam;
    for (int k = 0; k < 3 * b->nv; k++)
        b->v[k] = o->v[k] * lam;
    b->rbound = o->rbound * lam;
    b->volume = o->volume * lam * lam * lam;
    c->lam[i] = lam;
}

static double elapsed(const ctx *c) { return rve_now() - c->t0; }

static int out_of_time(const ctx *c)
{
    return c->p->max_seconds > 0 && elapsed(c) > c->p->max_seconds;
}

static void report(ctx *c, double frac, double target, const char *extra)
{
    if (c->p->progress)
        c->p->progress(c->p->progress_ctx, frac, target, extra);
}

static double current_fraction(const ctx *c)
{
    double v = 0;
    for (size_t i = 0; i < c->s->n; i++)
        v += c->s->b[i].volume;
    return v / (c->s->L[0] * c->s->L[1] * c->s->L[2]);
}

static void random_rotation(rve_pack_rng *r, double maxang, double dq[4])
{
    double ax[3];
    do {
        for (int k = 0; k < 3; k++)
            ax[k] = 2 * rve_pack_rng_uniform(r) - 1;
    } while (v3_norm2(ax) > 1 || v3_norm2(ax) < 1e-12);
    v3_normalize(ax);
    double ang = (2 * rve_pack_rng_uniform(r) - 1) * maxang;
    double sh = sin(0.5 * ang);
    dq[0] = cos(0.5 * ang);
    dq[1] = sh * ax[0];
    dq[2] = sh * ax[1];
    dq[3] = sh * ax[2];
}

static void quat_mul(double r[4], const double a[4], const double b[4])
{
    double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    double n = sqrt(w * w + x * x + y * y + z * z);
    r[0] = w / n;
    r[1] = x / n;
    r[2] = y / n;
    r[3] = z / n;
}

static void wrap_body(const rve_pack_set *s, rve_pack_body *b)
{
    if (!s->periodic)
        return;
    for (int k = 0; k < 3; k++) {
        double x = b->x[k] - floor(b->x[k] / s->L[k]) * s->L[k];
        if (x >= s->L[k])
            x = 0;
        b->x[k] = x;
    }
}

/* Minimum separation of body i (current pose) to the candidates; stops at
 * the first separation <= stop.  Returns a status. */
static rve_status min_sep(ctx *c, int i, const cand *cd, int n, double stop, double *out, long *calls)
{
    double m = INFINITY;
    const rve_pack_set *s = c->s;
    for (int k = 0; k < n; k++) {
        double t[3], sep;
        int ov;
        pack_shift_vec(s, cd[k].shift, t);
        rve_status st = pack_separation_bodies(&s->b[i], &s->b[cd[k].j], t, &sep, &ov);
        (*calls)++;
        if (st != RVE_OK)
            return rve_err_set(c->err, st, NULL, "narrow phase failed on bodies %d and %d", i + 1,
                               cd[k].j + 1);
        if (ov)
            sep = fmin(sep, 0);
        if (sep < m)
            m = sep;
        if (m <= stop)
            break;
    }
    *out = m;
    return RVE_OK;
}

/* ============================================== random sequential insertion */
/* Place all bodies (at their current scale) without overlap, largest first. */
static rve_status rsa(ctx *c, double gap)
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
    dgrid g;
    cand *cd = NULL;
    int ncd = 0, capcd = 0;
    rve_status st = RVE_OK;
    if (dgrid_init(&g, s, 2 * rm + gap) < 0) {
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
                b->x[k] = lo + (hi - lo) * rve_pack_rng_uniform(&c->rng);
            }
            if (c->p->random_orientation && b->shape != RVE_PACK_SPHERE)
                rve_pack_rng_quat(&c->rng, b->q);
            if (!s->periodic && pack_wall_clearance(b, s->L) <= gap)
                continue;
            if (dgrid_query(&g, b->x, b->rbound, gap, i, &cd, &ncd, &capcd) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                break;
            }
            double m;
            st = min_sep(c, i, cd, ncd, gap, &m, &c->res->narrow_calls);
            if (st != RVE_OK)
                break;
            if (m > gap) {
                placed = 1;
                if (dgrid_insert(&g, i) < 0)
                    st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            }
        }
        if (st == RVE_OK && !placed)
            st = rve_err_set(c->err, RVE_ECAP, NULL,
                             "random sequential insertion could not place body %d (domain too small?)", i + 1);
    }
done:
    dgrid_free(&g);
    free(cd);
    free(order);
    return st;
}

/* ======================================== soft-contact relaxation (FIRE) */
/* Every near pair carries a contact normal n (from A to B): the GJK witness
 * direction of the last time the pair was apart, or the centre line.  The
 * overlap along n, o = h_A(n) + h_B(-n) - (c_B - c_A).n (support functions),
 * bounds the penetration depth from above and vanishes exactly when n
 * separates the pair; the energy sum o^2/2 is relaxed by FIRE with forces
 * o n along the normal at the contact point (mid-point of the two support
 * points) and their torques.  Spheres use the exact centre-line overlap. */
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
    double tol;               /* overlaps accepted at the end of a stage */
    old_normal *old;          /* normals of the previous pair list, sorted by key */
    size_t nold, capold;
    double *wv;               /* world vertices of the polyhedra (offsets woff) */
    size_t *woff;
    unsigned char *age;       /* per pair: steps since the last full axis scan */
    int use_epa;              /* contact normals from EPA for overlapping pairs */
} soft_ws;

static void body_sync(ctx *c, soft_ws *w)
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

static void world_cache(ctx *c, soft_ws *w)
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
static double soft_forces(ctx *c, soft_ws *w, double *energy)
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
        if (w->age[k] < 8) {
            /* found overlapping lately and still no separating face axis:
             * skip the GJK confirmation for a few steps */
            w->age[k]++;
            o = axis_overlap(w, i, j, A, B, t, nv, pa, pb);
            goto force;
        }
        double sep;
        int ov;
        w->gjk_calls++;
        double nn[3];
        if (pack_gjk_normal(A, B, t, &sep, &ov, nn) != RVE_OK)
            return -1;
        if (!ov) {
            v3_copy(nv, nn); /* apart: keep the separating direction */
            continue;
        }
        o = axis_overlap(w, i, j, A, B, t, nv, pa, pb);
        if (w->use_epa) {
            double dep, en[3], ecp[3];
            if (pack_epa(A, B, t, &dep, en, ecp) == RVE_OK && dep >= 0) {
                v3_copy(nv, en);
                o = axis_overlap(w, i, j, A, B, t, nv, pa, pb);
            }
        }
        w->age[k] = 0;
    force:
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

static rve_status soft_save_normals(ctx *c, soft_ws *w);

static rve_status soft_neighbours(ctx *c, soft_ws *w)
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
        unsigned char *ag = realloc(w->age, w->capp);
        if (nn)
            w->nrm = nn;
        if (ok)
            w->nrm_ok = ok;
        if (ag)
            w->age = ag;
        if (!nn || !ok || !ag)
            return rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        w->capn = w->capp;
    }
    /* carry the cached normals over from the previous list */
    if (w->np)
        memset(w->age, 255, w->np);
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
static rve_status soft_save_normals(ctx *c, soft_ws *w)
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
    quat_mul(r, dq, q);
    memcpy(q, r, sizeof r);
}

/* FIRE minimisation. Returns 1 when all overlaps vanished (below 1e-11 of
 * the mean bounding radius), 0 when jammed (a minimum with overlaps, or the
 * iteration cap), -1 on error. */
static int soft_relax(ctx *c, soft_ws *w, long maxit)
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
        if ((it & 255) == 0 && out_of_time(c))
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
static int any_gjk_overlap(ctx *c)
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
static rve_status open_overlaps(ctx *c)
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

static rve_status pack_soft(ctx *c, double target)
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
    w.use_epa = 0; /* EPA normals converged worse than the face axes in trials */
    w.skin = 0.3 * c->rmean;
    /* overlaps left at the end of a stage (opened exactly at the end) */
    w.tol = (w.rotate ? 1e-4 : 1e-6) * c->rmean;
    double vs = c->vsolid;
    double phi = current_fraction(c);
    double dphi = 0.02;
    /* the final opening of residual overlaps (up to w.tol) costs a little
     * fraction: aim a bit higher */
    double target_in = target > 0 ? fmin(target * (1 + 20 * w.tol / c->rmean), 0.95) : 0;
    double Lsave[3];
    const long maxit = w.rotate ? 4000 : 10000; /* FIRE steps per stage */
    const double dmax_dense = 0.02;
    int reached = 0;
    report(c, phi, target, "relaxing");
    /* non-spheres hand over to Monte Carlo near jamming */
    const double dphi_min = w.rotate && target > 0 ? 4e-3 : 2e-5;
    while (dphi > dphi_min && !out_of_time(c)) {
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
        char extra[64];
        snprintf(extra, sizeof extra, "step %.1e", dphi);
        report(c, phi, target, extra);
    }
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
    free(w.age);
    free(w.pairs);
    free(save);
    return st;
}

/* ================================================ hard-particle Monte Carlo */
static rve_status pack_mc(ctx *c, double lam_target, int open_ended)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    rve_status st = RVE_OK;
    double margin = 0.1 * c->rmax; /* growth reach per step */
    dgrid g;
    cand *cd = NULL;
    int ncd = 0, capcd = 0;
    double gap = 1e-12 * c->rmean; /* smallest separation accepted */
    if (dgrid_init(&g, s, 2 * c->rmax * fmax(lam_target, 1.0) * 1.0 + margin + 1e-9) < 0) {
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        if (dgrid_insert(&g, i) < 0) {
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
    double dt = 0.1 * c->rmean, dr = 0.1;
    long maxsweeps = c->p->max_sweeps > 0 ? c->p->max_sweeps : 200000;
    int any_rot = 0;
    for (int i = 0; i < n; i++)
        if (s->b[i].shape != RVE_PACK_SPHERE)
            any_rot = 1;
    long stuck = 0;
    double best_min = 0;
    const double kappa = 0.02; /* growth band above the smallest scale */
    double band_top = INFINITY;
    {
        double l0 = INFINITY;
        for (int i = 0; i < n; i++)
            l0 = fmin(l0, c->lam[i]);
        band_top = l0 * (1 + kappa);
    }
    for (long sweep = 0; sweep < maxsweeps; sweep++) {
        long tacc = 0, ttry = 0, racc = 0, rtry = 0;
        long calls0 = c->res->narrow_calls;
        for (int t = 0; t < n; t++) {
            int i = (int)(rve_pack_rng_next(&c->rng) % (uint64_t)n);
            rve_pack_body *b = &s->b[i];
            rve_pack_body old = *b;
            int rot = any_rot && b->shape != RVE_PACK_SPHERE && (rve_pack_rng_next(&c->rng) & 1);
            if (rot) {
                double dq[4];
                random_rotation(&c->rng, dr, dq);
                quat_mul(b->q, dq, old.q);
                rtry++;
            } else {
                for (int k = 0; k < 3; k++)
                    b->x[k] += (2 * rve_pack_rng_uniform(&c->rng) - 1) * dt;
                wrap_body(s, b);
                ttry++;
            }
            double wall = INFINITY;
            if (!s->periodic) {
                wall = pack_wall_clearance(b, s->L);
                if (wall <= gap) {
                    *b = old;
                    continue;
                }
            }
            double R1 = c->orig[i].rbound;
            double grow_reach = c->lam[i] < lam_target ? margin : 0;
            if (dgrid_query(&g, b->x, b->rbound, grow_reach, i, &cd, &ncd, &capcd) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
            double m;
            st = min_sep(c, i, cd, ncd, gap, &m, &c->res->narrow_calls);
            if (st != RVE_OK)
                goto done;
            if (m <= gap) {
                *b = old;
                continue;
            }
            if (rot)
                racc++;
            else
                tacc++;
            if (!rot && g.cell_of[i] >= 0) {
                /* keep the grid current */
                int cold[3], cnew[3];
                if (!g.brute) {
                    cell_coords(&g, old.x, cold);
                    cell_coords(&g, b->x, cnew);
                    if (cold[0] != cnew[0] || cold[1] != cnew[1] || cold[2] != cnew[2]) {
                        dgrid_remove(&g, i);
                        if (dgrid_insert(&g, i) < 0) {
                            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                            goto done;
                        }
                    }
                }
            }
            if (c->lam[i] < lam_target) {
                /* grow inside the free space: surface points move by at most dl*R1 */
                double room = fmin(m, wall) - gap;
                double dl = fmin(0.5 * room, margin) / R1;
                if (dl > 0) {
                    /* stay within a band above the smallest body scale */
                    double ln = fmin(fmin(lam_target, c->lam[i] + dl), band_top);
                    set_scale(c, i, ln);
                }
            }
        }
        c->res->steps++;
        double cps = (double)(c->res->narrow_calls - calls0);
        c->res->calls_per_step += cps; /* summed; averaged at the end */
        double at = ttry ? (double)tacc / ttry : 0.3, ar = rtry ? (double)racc / rtry : 0.3;
        if (at > 0.4) dt = fmin(dt * 1.1, 0.5 * c->rmean * lam_target);
        if (at < 0.25) dt *= 0.9;
        if (ar > 0.4) dr = fmin(dr * 1.1, M_PI / 2);
        if (ar < 0.25) dr *= 0.9;
        double lmin = INFINITY;
        for (int i = 0; i < n; i++)
            lmin = fmin(lmin, c->lam[i]);
        band_top = lmin * (1 + kappa);
        if (lmin >= lam_target) {
            if (!open_ended)
                break;
            /* raise the common target: the box keeps its size, bodies grow again */
            lam_target *= 1.01;
            dgrid_free(&g);
            if (dgrid_init(&g, s, 2 * c->rmax * lam_target + margin + 1e-9) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
            for (int i = 0; i < n; i++)
                if (dgrid_insert(&g, i) < 0) {
                    st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                    goto done;
                }
        }
        if (lmin > best_min * (1 + 1e-6)) {
            best_min = lmin;
            stuck = 0;
        } else if (++stuck > 2000 && open_ended)
            break;
        if ((sweep % 10) == 0) {
            double vmin = 0;
            for (int i = 0; i < n; i++)
                vmin += c->orig[i].volume;
            vmin *= lmin * lmin * lmin / (s->L[0] * s->L[1] * s->L[2]);
            char extra[96];
            snprintf(extra, sizeof extra, "sweep %ld, fraction (all grown) %.4f", sweep, vmin);
            report(c, current_fraction(c), 0, extra);
        }
        if (out_of_time(c))
            break;
    }
done:
    dgrid_free(&g);
    free(cd);
    return st;
}

/* ================================================================= run */
rve_status rve_pack_run(rve_pack_set *s, const rve_pack_params *p, rve_pack_result *res, rve_err *err)
{
    rve_pack_result dummy;
    if (!res)
        res = &dummy;
    memset(res, 0, sizeof *res);
    int n = (int)s->n;
    if (n == 0)
        return rve_err_set(err, RVE_EUSAGE, NULL, "no bodies to pack");
    if (p->target_fraction < 0 || p->target_fraction >= 1 || !isfinite(p->target_fraction))
        return rve_err_set(err, RVE_EUSAGE, NULL, "target fraction must be in [0,1)");
    int all_spheres = 1;
    for (int i = 0; i < n; i++)
        if (s->b[i].shape != RVE_PACK_SPHERE)
            all_spheres = 0;
    rve_pack_method method = p->method;
    if (method == RVE_PACK_AUTO)
        method = RVE_PACK_SOFT;
    (void)all_spheres;
    res->method = method;
    ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.p = p;
    c.res = res;
    c.err = err;
    c.t0 = rve_now();
    rve_pack_rng_seed(&c.rng, p->seed);
    c.orig = calloc((size_t)n, sizeof *c.orig);
    c.lam = malloc(sizeof(double) * (size_t)n);
    rve_status st = RVE_OK;
    if (!c.orig || !c.lam) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        if ((st = rve_pack_body_copy(&c.orig[i], &s->b[i], err)) != RVE_OK)
            goto done;
        c.lam[i] = 1;
        c.vsolid += s->b[i].volume;
        c.rmax = fmax(c.rmax, s->b[i].rbound);
        c.rmean += s->b[i].rbound / n;
        if (p->random_orientation && s->b[i].shape != RVE_PACK_SPHERE)
            rve_pack_rng_quat(&c.rng, s->b[i].q);
    }
    /* Box of the packing frame. */
    double asp[3] = {p->aspect[0], p->aspect[1], p->aspect[2]};
    if (!(asp[0] > 0 && asp[1] > 0 && asp[2] > 0))
        asp[0] = asp[1] = asp[2] = 1;
    double target = p->target_fraction;
    if (p->fixed_domain) {
        if (!(s->L[0] > 0 && s->L[1] > 0 && s->L[2] > 0)) {
            st = rve_err_set(err, RVE_EUSAGE, NULL, "domain sizes must be positive");
            goto done;
        }
        target = c.vsolid / (s->L[0] * s->L[1] * s->L[2]);
        if (target >= 0.9) {
            st = rve_err_set(err, RVE_EDATA, NULL, /* the data cannot be packed: exit 1 (README) */
                             "the bodies fill %.3g of the domain: no packing can hold them", target);
            goto done;
        }
    }
    if (method == RVE_PACK_SOFT) {
        /* start dilute: insert at fraction 0.25 (or the target if lower) */
        double phi0 = target > 0 ? fmin(0.25, target) : 0.25;
        double Lgiven[3];
        memcpy(Lgiven, s->L, sizeof Lgiven);
        if (!p->fixed_domain) {
            double a3 = asp[0] * asp[1] * asp[2];
            double lam = cbrt(c.vsolid / (phi0 * a3));
            for (int k = 0; k < 3; k++)
                s->L[k] = lam * asp[k];
        } else {
            double f = cbrt(target / phi0);
            for (int k = 0; k < 3; k++)
                s->L[k] *= f;
        }
        /* insertion can fail for a few large bodies in a small box: dilute more */
        for (int attempt = 0;; attempt++) {
            st = rsa(&c, 0);
            if (st != RVE_ECAP || attempt >= 30)
                break;
            for (int k = 0; k < 3; k++)
                s->L[k] *= 1.1;
        }
        if (st != RVE_OK)
            goto done;
        st = pack_soft(&c, target);
        if (st == RVE_OK && p->fixed_domain && res->reached_target) {
            /* the given box exactly (the bodies are a fraction of it apart) */
            for (size_t i = 0; i < s->n; i++)
                for (int k = 0; k < 3; k++)
                    s->b[i].x[k] *= Lgiven[k] / s->L[k];
            memcpy(s->L, Lgiven, sizeof Lgiven);
        }
    } else {
        /* MC: the box is fixed at the target fraction (0.45 when open-ended)
         * and the bodies grow from a dilute start. */
        int open_ended = target <= 0;
        double tf = open_ended ? 0.45 : target;
        if (!p->fixed_domain) {
            double a3 = asp[0] * asp[1] * asp[2];
            double lam = cbrt(c.vsolid / (tf * a3));
            for (int k = 0; k < 3; k++)
                s->L[k] = lam * asp[k];
        }
        double phi0 = fmin(0.2, tf);
        double l0 = cbrt(phi0 / tf);
        for (int i = 0; i < n; i++)
            set_scale(&c, i, l0);
        if ((st = rsa(&c, 1e-12 * c.rmean)) != RVE_OK)
            goto done;
        st = pack_mc(&c, 1.0, open_ended);
        if (st != RVE_OK)
            goto done;
        /* common scale: the smallest one reached; shrinking never overlaps */
        double lmin = INFINITY;
        for (int i = 0; i < n; i++)
            lmin = fmin(lmin, c.lam[i]);
        /* back to the bodies' own sizes: the box scales by 1/lmin */
        if (lmin != 1.0) {
            for (int i = 0; i < n; i++)
                set_scale(&c, i, 1.0);
            for (int k = 0; k < 3; k++)
                s->L[k] /= lmin;
            for (int i = 0; i < n; i++)
                v3_scale(s->b[i].x, s->b[i].x, 1.0 / lmin);
        }
        res->reached_target = open_ended ? 1 : lmin >= 1.0;
        pack_wrap(s);
    }
    if (st == RVE_OK && !res->reached_target && p->fixed_domain)
        st = rve_err_set(err, RVE_ECAP, NULL,
                         "could not compact the bodies into the domain (reached fraction %.4f of %.4f)",
                         c.vsolid / (s->L[0] * s->L[1] * s->L[2]), target);
done:
    res->fraction = c.vsolid / (s->L[0] * s->L[1] * s->L[2]);
    res->seconds = rve_now() - c.t0;
    if (res->steps > 0)
        res->calls_per_step = method == RVE_PACK_MC ? res->calls_per_step / res->steps
                                                     : (double)res->narrow_calls / res->steps;
    if (c.orig)
        for (int i = 0; i < n; i++)
            rve_pack_body_free(&c.orig[i]);
    free(c.orig);
    free(c.lam);
    return st;
}
