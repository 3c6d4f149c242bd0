/* Deposition with a lid (gravity-like compaction): the bodies are inserted
 * at random in a tall walled box, then settle under gravity along -z by
 * hard-particle Monte Carlo (every trial checked by the exact boolean
 * overlap kernels and the walls; a rise dz is accepted with probability
 * exp(-dz / kT)), while a lid (the top wall) comes down after every sweep
 * onto the highest body.  The footprint LX x LY stays; the packing stops
 * when neither the lid nor the mean height of the bodies comes down by
 * 1e-3 of the mean size in 200 sweeps (settled), at the target fraction (or
 * the given height), or at the time budget.  Bodies keep their sizes, so compounds
 * (non-convex grains) are packed as they are. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Height of the highest point of all bodies. */
static double top_height(const rve_pack_set *s)
{
    double top = 0;
    const double up[3] = {0, 0, 1};
    for (size_t i = 0; i < s->n; i++) {
        double p[3];
        rve_pack_body_support(&s->b[i], up, p);
        top = fmax(top, p[2]);
    }
    return top;
}

/* The footprint and the initial (dilute) height of the box. */
static void lid_box(pack_ctx *c, double target, const double asp[3], double *height)
{
    rve_pack_set *s = c->s;
    const double phi0 = 0.15; /* insertion fraction */
    if (c->p->fixed_domain) {
        *height = s->L[2];
    } else {
        /* footprint of a box of the given proportions at the expected final fraction */
        double phi = target > 0 ? target : 0.5;
        double lam = cbrt(c->vsolid / (phi * asp[0] * asp[1] * asp[2]));
        s->L[0] = lam * asp[0];
        s->L[1] = lam * asp[1];
        *height = target > 0 ? lam * asp[2] : 0;
    }
    /* tall enough for a dilute insertion, and for the largest body */
    s->L[2] = fmax(c->vsolid / (phi0 * s->L[0] * s->L[1]), 4 * c->rmax);
}

rve_status pack_lid(pack_ctx *c, double target, const double asp[3])
{
    rve_pack_set *s = c->s;
    if (s->periodic)
        return rve_err_set(c->err, RVE_EUSAGE, NULL, "the lid method packs into a walled box: no --periodic");
    double height;
    lid_box(c, target, asp, &height);
    double gap = 1e-9 * c->rmean;
    rve_status st;
    for (int attempt = 0;; attempt++) {
        st = pack_rsa(c, gap);
        if (st != RVE_ECAP || attempt >= 30)
            break;
        s->L[2] *= 1.2;
    }
    if (st != RVE_OK)
        return st;
    double dt = 0.2 * c->rmean, dr = 0.2, kT = 0.02 * c->rmean;
    long maxsweeps = c->p->max_sweeps > 0 ? c->p->max_sweeps : 200000;
    const int window = 200; /* sweeps over which the lid or the mean height must come down by 1e-3 of the mean size */
    double lid_then = INFINITY, z_then = INFINITY;
    s->L[2] = top_height(s) + gap;
    c->res->stop = RVE_PACK_STOP_ITERATIONS;
    for (long k = 0; k < maxsweeps; k++) {
        if ((st = pack_mc_sweep(c, gap, &dt, &dr, kT)) != RVE_OK)
            return st;
        c->res->steps++;
        /* the lid comes down onto the highest body (never up) */
        s->L[2] = fmin(s->L[2], top_height(s) + gap);
        double phi = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
        if ((k % 10) == 0) {
            char extra[96];
            snprintf(extra, sizeof extra, "sweep %ld, lid %.6g", k, s->L[2]);
            pack_report(c, phi, target, extra);
        }
        if (height > 0 && s->L[2] <= height)
            break;
        if (!c->p->fixed_domain && target > 0 && phi >= target)
            break;
        if (k % window == 0) {
            double zmean = 0;
            for (size_t i = 0; i < s->n; i++)
                zmean += s->b[i].x[2] / (double)s->n;
            if (lid_then - s->L[2] < 1e-3 * c->rmean && z_then - zmean < 1e-3 * c->rmean) {
                c->res->stop = RVE_PACK_STOP_JAMMED; /* settled: neither the lid nor the mean height comes down */
                break;
            }
            lid_then = s->L[2];
            z_then = zmean;
        }
        if (pack_out_of_time(c)) {
            c->res->stop = RVE_PACK_STOP_TIME;
            break;
        }
    }
    c->res->reached_target = height > 0 ? s->L[2] <= height : 1;
    if (c->res->reached_target && height > 0)
        s->L[2] = height; /* the given (or target) height: the lid is at or above the bodies */
    return RVE_OK;
}
