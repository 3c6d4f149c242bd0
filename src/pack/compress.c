/* Certified compression: hard-particle Monte Carlo moves (translations,
 * rotations) at fixed body sizes, and after each sweep the box (positions
 * with it) shrinks by a factor that provably keeps every pair apart.
 *
 * Why it is safe: scaling positions and box by f < 1 moves the bodies of a
 * pair (any periodic image) towards each other by (1 - f)|c_ij|, c_ij the
 * vector between their origins, so a pair at distance d_ij stays apart while
 * (1 - f)|c_ij| < d_ij.  The distances come from the exact kernels (the
 * compound hierarchy for non-convex grains, GJK otherwise) on the pairs
 * whose bounding spheres are within M = rmax; a pair beyond that has
 * |c_ij| >= 2 rmax + M and d_ij >= |c_ij| - 2 rmax, so it stays apart for
 * 1 - f < M / (2 rmax + M) = 1/3.  Only the sizes are never changed, so
 * non-convex compound bodies (which cannot be rescaled) pack this way. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void scale_all(rve_pack_set *s, double f)
{
    for (int k = 0; k < 3; k++)
        s->L[k] *= f;
    for (size_t i = 0; i < s->n; i++)
        v3_scale(s->b[i].x, s->b[i].x, f);
}

/* Largest certified relative shrink 1 - f (before the safety half). */
static rve_status safe_shrink(pack_ctx *c, double gap, double *out)
{
    rve_pack_set *s = c->s;
    double M = c->rmax;
    double r = M / (2 * c->rmax + M);
    rve_pack_pair *pairs = NULL;
    size_t np = 0, cap = 0;
    rve_status st = rve_pack_broad_phase(s, M, &pairs, &np, &cap, c->err);
    for (size_t k = 0; k < np && st == RVE_OK; k++) {
        double t[3], d[3], sep;
        int ov;
        pack_shift_vec(s, pairs[k].shift, t);
        for (int a = 0; a < 3; a++)
            d[a] = s->b[pairs[k].j].x[a] + t[a] - s->b[pairs[k].i].x[a];
        st = pack_separation_bodies(&s->b[pairs[k].i], &s->b[pairs[k].j], t, &sep, &ov);
        c->res->narrow_calls++;
        if (st != RVE_OK)
            st = rve_err_set(c->err, st, NULL, "narrow phase failed on bodies %d and %d", pairs[k].i + 1,
                             pairs[k].j + 1);
        else if (ov)
            st = rve_err_set(c->err, RVE_EINTERNAL, NULL, "bodies %d and %d overlap during compression",
                             pairs[k].i + 1, pairs[k].j + 1);
        else
            r = fmin(r, fmax(sep - gap, 0) / v3_norm(d));
    }
    free(pairs);
    if (!s->periodic) {
        /* walls: a body moves by at most (1 - f) max L towards a wall */
        double Lm = fmax(s->L[0], fmax(s->L[1], s->L[2]));
        for (size_t i = 0; i < s->n; i++)
            r = fmin(r, fmax(pack_wall_clearance(&s->b[i], s->L) - gap, 0) / Lm);
    }
    *out = r;
    return st;
}

/* One Monte Carlo sweep at fixed sizes; *acc_t, *acc_r acceptance rates. */
static rve_status sweep(pack_ctx *c, double gap, double *dt, double *dr)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    pack_grid g;
    pack_cand *cd = NULL;
    int ncd = 0, capcd = 0;
    rve_status st = RVE_OK;
    if (pack_grid_init(&g, s, 2 * c->rmax + 1e-9 * c->rmean) < 0)
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < n && st == RVE_OK; i++)
        if (pack_grid_insert(&g, i) < 0)
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    long tacc = 0, ttry = 0, racc = 0, rtry = 0;
    for (int t = 0; t < n && st == RVE_OK; t++) {
        int i = (int)(rve_pack_rng_next(&c->rng) % (uint64_t)n);
        rve_pack_body *b = &s->b[i];
        rve_pack_body old = *b;
        int rot = b->shape != RVE_PACK_SPHERE && (rve_pack_rng_next(&c->rng) & 1);
        if (rot) {
            double dq[4];
            pack_random_rotation(&c->rng, *dr, dq);
            pack_quat_mul(b->q, dq, old.q);
            rtry++;
        } else {
            for (int k = 0; k < 3; k++)
                b->x[k] += (2 * rve_pack_rng_uniform(&c->rng) - 1) * *dt;
            pack_wrap_body(s, b);
            ttry++;
        }
        if (!s->periodic && pack_wall_clearance(b, s->L) <= gap) {
            *b = old;
            continue;
        }
        if (pack_grid_query(&g, b->x, b->rbound, 0, i, &cd, &ncd, &capcd) < 0) {
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            break;
        }
        double m;
        st = pack_min_sep(c, i, cd, ncd, gap, &m, &c->res->narrow_calls);
        if (st != RVE_OK)
            break;
        if (m <= gap) {
            *b = old;
            continue;
        }
        if (rot)
            racc++;
        else
            tacc++;
        if (!rot && pack_grid_moved(&g, i, old.x) < 0)
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    }
    pack_grid_free(&g);
    free(cd);
    /* step sizes kept near 30 % acceptance */
    double at = ttry ? (double)tacc / ttry : 0.3, ar = rtry ? (double)racc / rtry : 0.3;
    if (at > 0.4)
        *dt = fmin(*dt * 1.1, c->rmean);
    if (at < 0.25)
        *dt *= 0.9;
    if (ar > 0.4)
        *dr = fmin(*dr * 1.1, M_PI / 2);
    if (ar < 0.25)
        *dr *= 0.9;
    return st;
}

rve_status pack_compress(pack_ctx *c, double target)
{
    rve_pack_set *s = c->s;
    double gap = 1e-9 * c->rmean; /* smallest separation kept: bodies never touch */
    double dt = 0.2 * c->rmean, dr = 0.2;
    long maxsweeps = c->p->max_sweeps > 0 ? c->p->max_sweeps : 200000;
    long flat = 0;
    rve_status st = RVE_OK;
    for (long k = 0; k < maxsweeps && st == RVE_OK; k++) {
        st = sweep(c, gap, &dt, &dr);
        if (st != RVE_OK)
            break;
        c->res->steps++;
        double r;
        if ((st = safe_shrink(c, gap, &r)) != RVE_OK)
            break;
        double f = 1 - 0.5 * r;
        double phi = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
        if (target > 0 && phi / (f * f * f) >= target)
            f = cbrt(phi / target);
        scale_all(s, f);
        phi = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
        /* jammed: the box has not shrunk by 1e-6 over 200 sweeps */
        flat = (1 - f) < 5e-9 ? flat + 1 : 0;
        if ((k % 10) == 0) {
            char extra[96];
            snprintf(extra, sizeof extra, "sweep %ld, step %.1e, shrink %.1e", k, dt / c->rmean, 1 - f);
            pack_report(c, phi, target, extra);
        }
        if ((target > 0 && phi >= target * (1 - 1e-12)) || flat > 200 || pack_out_of_time(c))
            break;
    }
    pack_wrap(s);
    c->res->reached_target = target > 0 ? c->vsolid / (s->L[0] * s->L[1] * s->L[2]) >= target * (1 - 1e-9) : 1;
    return st;
}
