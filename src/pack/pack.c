/* Placement and compaction: random sequential insertion, soft-sphere
 * compression with FIRE relaxation (spheres), hard-particle Monte Carlo with
 * individual growth (any shape). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <float.h>
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
        for (int attempt = 0; attempt < 200000 && !placed; attempt++) {
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

/* ================================================ soft spheres (FIRE) */
typedef struct {
    double *x, *v, *f, *x0;
    rve_pack_pair *pairs;
    size_t np, capp;
    double skin;
} soft_ws;

/* Forces of the harmonic overlap energy; returns the largest overlap. */
static double soft_forces(ctx *c, soft_ws *w, double *energy)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    memset(w->f, 0, sizeof(double) * 3 * n);
    double e = 0, maxov = 0;
    for (size_t k = 0; k < w->np; k++) {
        int i = w->pairs[k].i, j = w->pairs[k].j;
        double d[3];
        for (int a = 0; a < 3; a++)
            d[a] = w->x[3 * j + a] + w->pairs[k].shift[a] * s->L[a] - w->x[3 * i + a];
        double r = s->b[i].a[0] + s->b[j].a[0];
        double d2 = v3_norm2(d);
        if (d2 >= r * r)
            continue;
        double dist = sqrt(d2);
        double ov = r - dist;
        if (ov > maxov)
            maxov = ov;
        e += 0.5 * ov * ov;
        if (dist > 0) {
            double fs = ov / dist;
            for (int a = 0; a < 3; a++) {
                w->f[3 * i + a] -= fs * d[a];
                w->f[3 * j + a] += fs * d[a];
            }
        }
    }
    if (!s->periodic)
        for (int i = 0; i < n; i++) {
            double r = s->b[i].a[0];
            for (int a = 0; a < 3; a++) {
                double lo = r - w->x[3 * i + a], hi = w->x[3 * i + a] + r - s->L[a];
                if (lo > 0) {
                    w->f[3 * i + a] += lo;
                    e += 0.5 * lo * lo;
                    maxov = fmax(maxov, lo);
                }
                if (hi > 0) {
                    w->f[3 * i + a] -= hi;
                    e += 0.5 * hi * hi;
                    maxov = fmax(maxov, hi);
                }
            }
        }
    *energy = e;
    return maxov;
}

static rve_status soft_neighbours(ctx *c, soft_ws *w)
{
    rve_pack_set *s = c->s;
    for (size_t i = 0; i < s->n; i++)
        v3_copy(s->b[i].x, w->x + 3 * i);
    pack_wrap(s);
    for (size_t i = 0; i < s->n; i++)
        v3_copy(w->x + 3 * i, s->b[i].x);
    memcpy(w->x0, w->x, sizeof(double) * 3 * s->n);
    return rve_pack_broad_phase(s, w->skin, &w->pairs, &w->np, &w->capp, c->err);
}

/* FIRE minimisation. Returns 1 when all overlaps vanished, 0 when jammed
 * (positive energy at a minimum or iteration cap), -1 on error. */
static int soft_relax(ctx *c, soft_ws *w, long maxit)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    for (int i = 0; i < n; i++)
        v3_copy(w->x + 3 * i, s->b[i].x);
    if (soft_neighbours(c, w) != RVE_OK)
        return -1;
    memset(w->v, 0, sizeof(double) * 3 * n);
    const double dt0 = 0.05, dtmax = 0.3, finc = 1.1, fdec = 0.5, a0 = 0.1, fa = 0.99;
    double dt = dt0, alpha = a0;
    int npos = 0;
    double e, maxov = soft_forces(c, w, &e);
    double rref = c->rmean;
    for (long it = 0; it < maxit; it++) {
        c->res->steps++;
        c->res->narrow_calls += (long)w->np;
        if (maxov <= 1e-11 * rref)
            return 1; /* residual overlaps are opened exactly at the end */
        double fmaxc = 0;
        for (int k = 0; k < 3 * n; k++)
            fmaxc = fmax(fmaxc, fabs(w->f[k]));
        if (fmaxc < 1e-6 * maxov) {
            if (getenv("RVE_PACK_DEBUG")) fprintf(stderr, "jammed it %ld e %g maxov %g\n", it, e, maxov);
            return 0; /* a minimum with overlaps: jammed */
        }
        /* FIRE mixing */
        double P = 0, vn = 0, fn = 0;
        for (int k = 0; k < 3 * n; k++) {
            P += w->f[k] * w->v[k];
            vn += w->v[k] * w->v[k];
            fn += w->f[k] * w->f[k];
        }
        vn = sqrt(vn);
        fn = sqrt(fn);
        if (P > 0) {
            double mix = fn > 0 ? alpha * vn / fn : 0;
            for (int k = 0; k < 3 * n; k++)
                w->v[k] = (1 - alpha) * w->v[k] + mix * w->f[k];
            if (++npos > 5) {
                dt = fmin(dt * finc, dtmax);
                alpha *= fa;
            }
        } else {
            npos = 0;
            dt *= fdec;
            alpha = a0;
            memset(w->v, 0, sizeof(double) * 3 * n);
        }
        /* semi-implicit Euler (mass 1) */
        double maxd2 = 0;
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < 3; a++) {
                w->v[3 * i + a] += dt * w->f[3 * i + a];
                w->x[3 * i + a] += dt * w->v[3 * i + a];
            }
            double dd[3];
            v3_sub(dd, w->x + 3 * i, w->x0 + 3 * i);
            maxd2 = fmax(maxd2, v3_norm2(dd));
        }
        if (4 * maxd2 > w->skin * w->skin) {
            for (int i = 0; i < n; i++)
                v3_copy(s->b[i].x, w->x + 3 * i);
            if (soft_neighbours(c, w) != RVE_OK)
                return -1;
        }
        maxov = soft_forces(c, w, &e);
        if ((it & 1023) == 0 && out_of_time(c))
            break;
    }
    if (getenv("RVE_PACK_DEBUG")) fprintf(stderr, "cap e %g maxov %g\n", e, maxov);
    return 0;
}

static void scale_box(rve_pack_set *s, double f)
{
    for (int k = 0; k < 3; k++)
        s->L[k] *= f;
    for (size_t i = 0; i < s->n; i++)
        v3_scale(s->b[i].x, s->b[i].x, f);
}

/* Exact final fix: grow the box (positions with it) by the smallest factor
 * that opens every remaining sphere overlap. */
static rve_status sphere_open_overlaps(ctx *c)
{
    rve_pack_set *s = c->s;
    for (int round = 0; round < 20; round++) {
        rve_pack_pair *pairs = NULL;
        size_t np = 0, cap = 0;
        rve_status st = rve_pack_broad_phase(s, 0, &pairs, &np, &cap, c->err);
        if (st != RVE_OK)
            return st;
        double f = 1.0;
        for (size_t k = 0; k < np; k++) {
            double t[3], d[3];
            pack_shift_vec(s, pairs[k].shift, t);
            for (int a = 0; a < 3; a++)
                d[a] = s->b[pairs[k].j].x[a] + t[a] - s->b[pairs[k].i].x[a];
            double dist = v3_norm(d), r = s->b[pairs[k].i].a[0] + s->b[pairs[k].j].a[0];
            if (dist < r)
                f = fmax(f, dist > 0 ? r / dist : 2.0);
        }
        free(pairs);
        if (!s->periodic)
            for (size_t i = 0; i < s->n; i++)
                for (int a = 0; a < 3; a++) {
                    /* x -> f x keeps the sphere inside when f min(x, L-x) >= r */
                    double r = s->b[i].a[0], x = s->b[i].x[a], L = s->L[a];
                    double den = fmin(x, L - x);
                    if (den < r)
                        f = fmax(f, den > 0 ? r / den : 2.0);
                }
        if (f == 1.0)
            return RVE_OK;
        f *= 1 + 4 * DBL_EPSILON;
        scale_box(s, f);
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
    double *save = malloc(sizeof(double) * 3 * n + 1);
    rve_status st = RVE_OK;
    if (!w.x || !w.v || !w.f || !w.x0 || !save) {
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    w.skin = 0.3 * c->rmean;
    double vs = c->vsolid;
    double phi = current_fraction(c);
    double dphi = 0.02;
    double Lsave[3];
    const long maxit = 10000;
    int reached = 0;
    report(c, phi, target, "relaxing");
    while (dphi > 2e-5 && !out_of_time(c)) {
        if (target > 0 && phi >= target * (1 - 1e-12)) {
            reached = 1;
            break;
        }
        for (int i = 0; i < n; i++)
            v3_copy(save + 3 * i, s->b[i].x);
        memcpy(Lsave, s->L, sizeof Lsave);
        double phin = phi + dphi;
        if (target > 0 && phin > target)
            phin = target;
        double f = cbrt(phi / phin);
        scale_box(s, f);
        int r = soft_relax(c, &w, maxit);
        if (r < 0) {
            st = c->err ? c->err->code : RVE_EINTERNAL;
            goto done;
        }
        for (int i = 0; i < n; i++)
            v3_copy(s->b[i].x, w.x + 3 * i);
        if (r == 1) {
            phi = vs / (s->L[0] * s->L[1] * s->L[2]);
            dphi *= 1.2;
            if (dphi > 0.02)
                dphi = 0.02;
        } else {
            for (int i = 0; i < n; i++)
                v3_copy(s->b[i].x, save + 3 * i);
            memcpy(s->L, Lsave, sizeof Lsave);
            dphi *= 0.5;
        }
        char extra[64];
        snprintf(extra, sizeof extra, "step %.1e", dphi);
        report(c, phi, target, extra);
    }
    if (target > 0 && phi >= target * (1 - 1e-12))
        reached = 1;
    pack_wrap(s);
    st = sphere_open_overlaps(c);
    c->res->reached_target = target > 0 ? reached : 1;
done:
    free(w.x);
    free(w.v);
    free(w.f);
    free(w.x0);
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
                    double ln = fmin(lam_target, c->lam[i] + dl);
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
        method = all_spheres ? RVE_PACK_SOFT : RVE_PACK_MC;
    if (method == RVE_PACK_SOFT && !all_spheres)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the soft-contact method packs spheres only; use MC");
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
            st = rve_err_set(err, RVE_EUSAGE, NULL,
                             "the bodies fill %.3g of the domain: no packing can hold them", target);
            goto done;
        }
    }
    if (method == RVE_PACK_SOFT) {
        /* start dilute: insert at fraction 0.25 (or the target if lower) */
        double phi0 = target > 0 ? fmin(0.25, target) : 0.25;
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
        if ((st = rsa(&c, 0)) != RVE_OK)
            goto done;
        st = pack_soft(&c, target);
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
