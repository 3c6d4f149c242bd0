/* Packing driver: parameters, shared helpers of the algorithms (rsa.c,
 * soft.c, mc.c) and rve_pack_run, which chains them. */
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

void rve_pack_params_init(rve_pack_params *p)
{
    memset(p, 0, sizeof *p);
    p->method = RVE_PACK_AUTO;
    p->aspect[0] = p->aspect[1] = p->aspect[2] = 1.0;
    p->seed = 1;
    p->random_orientation = 1;
}

const char *rve_pack_stop_name(rve_pack_stop s)
{
    switch (s) {
    case RVE_PACK_STOP_TARGET: return "target";
    case RVE_PACK_STOP_JAMMED: return "jammed";
    case RVE_PACK_STOP_TIME: return "time";
    case RVE_PACK_STOP_ITERATIONS: return "iterations";
    }
    return "unknown";
}

/* ============================================================ shared helpers */

void pack_set_scale(pack_ctx *c, int i, double lam)
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

static double pack_elapsed(const pack_ctx *c) { return rve_now() - c->t0; }

int pack_out_of_time(const pack_ctx *c)
{
    return c->p->max_seconds > 0 && pack_elapsed(c) > c->p->max_seconds;
}

void pack_report(pack_ctx *c, double frac, double target, const char *extra)
{
    if (c->p->progress)
        c->p->progress(c->p->progress_ctx, frac, target, extra);
}

double pack_current_fraction(const pack_ctx *c)
{
    double v = 0;
    for (size_t i = 0; i < c->s->n; i++)
        v += c->s->b[i].volume;
    return v / (c->s->L[0] * c->s->L[1] * c->s->L[2]);
}

void pack_random_rotation(rve_rng *r, double maxang, double dq[4])
{
    double ax[3];
    do {
        for (int k = 0; k < 3; k++)
            ax[k] = 2 * rve_rng_uniform(r) - 1;
    } while (v3_norm2(ax) > 1 || v3_norm2(ax) < 1e-12);
    v3_normalize(ax);
    double ang = (2 * rve_rng_uniform(r) - 1) * maxang;
    double sh = sin(0.5 * ang);
    dq[0] = cos(0.5 * ang);
    dq[1] = sh * ax[0];
    dq[2] = sh * ax[1];
    dq[3] = sh * ax[2];
}

void pack_quat_mul(double r[4], const double a[4], const double b[4])
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

void pack_wrap_body(const rve_pack_set *s, rve_pack_body *b)
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
rve_status pack_min_sep(pack_ctx *c, int i, const pack_cand *cd, int n, double stop, double *out, long *calls)
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

/* ================================================================= run */
/* Growth Monte Carlo: the box is fixed at the target fraction (0.45 when
 * open-ended) and the bodies grow from a dilute start. */
static rve_status run_mc(pack_ctx *c, double target, const double asp[3])
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    int open_ended = target <= 0;
    double tf = open_ended ? 0.45 : target;
    if (!c->p->fixed_domain) {
        double a3 = asp[0] * asp[1] * asp[2];
        double lam = cbrt(c->vsolid / (tf * a3));
        for (int k = 0; k < 3; k++)
            s->L[k] = lam * asp[k];
    }
    double phi0 = fmin(0.2, tf);
    double l0 = cbrt(phi0 / tf);
    for (int i = 0; i < n; i++)
        pack_set_scale(c, i, l0);
    rve_status st = pack_rsa(c, 1e-12 * c->rmean);
    if (st == RVE_OK)
        st = pack_mc(c, 1.0, open_ended);
    if (st != RVE_OK)
        return st;
    /* common scale: the smallest one reached; shrinking never overlaps */
    double lmin = INFINITY;
    for (int i = 0; i < n; i++)
        lmin = fmin(lmin, c->lam[i]);
    /* back to the bodies' own sizes: the box scales by 1/lmin */
    if (lmin != 1.0) {
        for (int i = 0; i < n; i++)
            pack_set_scale(c, i, 1.0);
        for (int k = 0; k < 3; k++)
            s->L[k] /= lmin;
        for (int i = 0; i < n; i++)
            v3_scale(s->b[i].x, s->b[i].x, 1.0 / lmin);
    }
    c->res->reached_target = open_ended ? 1 : lmin >= 1.0;
    pack_wrap(s);
    return RVE_OK;
}

/* Dilute random insertion at fixed sizes, then certified compression. */
static rve_status run_compress(pack_ctx *c, double target, const double asp[3])
{
    rve_pack_set *s = c->s;
    double phi0 = target > 0 ? fmin(0.15, target) : 0.15;
    double Lgiven[3];
    memcpy(Lgiven, s->L, sizeof Lgiven);
    if (!c->p->fixed_domain) {
        double lam = cbrt(c->vsolid / (phi0 * asp[0] * asp[1] * asp[2]));
        for (int k = 0; k < 3; k++)
            s->L[k] = lam * asp[k];
    } else
        for (int k = 0; k < 3; k++)
            s->L[k] *= cbrt(target / phi0);
    rve_status st;
    for (int attempt = 0;; attempt++) {
        st = pack_rsa(c, 1e-9 * c->rmean);
        if (st != RVE_ECAP || attempt >= 30)
            break;
        for (int k = 0; k < 3; k++)
            s->L[k] *= 1.1;
    }
    if (st == RVE_OK)
        st = pack_compress(c, target);
    if (st == RVE_OK && c->p->fixed_domain && c->res->reached_target) {
        /* the given box: at most a rounding larger than the one reached */
        for (size_t i = 0; i < s->n; i++)
            for (int k = 0; k < 3; k++)
                s->b[i].x[k] *= Lgiven[k] / s->L[k];
        memcpy(s->L, Lgiven, sizeof Lgiven);
    }
    return st;
}

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
    int any_compound = 0;
    for (int i = 0; i < n; i++)
        any_compound |= s->b[i].shape == RVE_PACK_COMPOUND;
    rve_pack_method method = p->method;
    if (method == RVE_PACK_AUTO)
        method = any_compound ? RVE_PACK_COMPRESS : RVE_PACK_SOFT;
    if (any_compound && method != RVE_PACK_COMPRESS && method != RVE_PACK_LID)
        return rve_err_set(err, RVE_EUSAGE, NULL,
                           "compound (non-convex) bodies keep their size: only the compress and lid methods pack them");
    if (method == RVE_PACK_LID && s->periodic)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the lid method packs into a walled box: no --periodic");
    (void)all_spheres;
    res->method = method;
    pack_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.p = p;
    c.res = res;
    c.err = err;
    c.t0 = rve_now();
    rve_rng_seed(&c.rng, p->seed);
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
            rve_rng_quat(&c.rng, s->b[i].q);
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
    if (method == RVE_PACK_COMPRESS) {
        st = run_compress(&c, target, asp);
    } else if (method == RVE_PACK_LID) {
        st = pack_lid(&c, target, asp);
    } else if (method == RVE_PACK_SOFT) {
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
            st = pack_rsa(&c, 0);
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
        st = run_mc(&c, target, asp);
    }
    if (st == RVE_OK && !res->reached_target && p->fixed_domain)
        st = rve_err_set(err, RVE_ECAP, NULL,
                         "could not compact the bodies into the domain (reached fraction %.4f of %.4f)",
                         c.vsolid / (s->L[0] * s->L[1] * s->L[2]), target);
done:
    if ((p->target_fraction > 0 || p->fixed_domain) && res->reached_target)
        res->stop = RVE_PACK_STOP_TARGET;
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
