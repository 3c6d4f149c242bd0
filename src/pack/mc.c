/* Hard-particle Monte Carlo: translations, rotations and individual growth,
 * every trial certified by the narrow phase. */
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

/* ================================================ hard-particle Monte Carlo */
rve_status pack_mc(pack_ctx *c, double lam_target, int open_ended)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    rve_status st = RVE_OK;
    double margin = 0.1 * c->rmax; /* growth reach per step */
    pack_grid g;
    pack_cand *cd = NULL;
    int ncd = 0, capcd = 0;
    double gap = 1e-12 * c->rmean; /* smallest separation accepted */
    if (pack_grid_init_all(&g, s, 2 * c->rmax * fmax(lam_target, 1.0) + margin + 1e-9) < 0) {
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
    c->res->stop = RVE_PACK_STOP_ITERATIONS;
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
            int i = (int)(rve_rng_next(&c->rng) % (uint64_t)n);
            rve_pack_body *b = &s->b[i];
            rve_pack_body old = *b;
            int rot = any_rot && b->shape != RVE_PACK_SPHERE && (rve_rng_next(&c->rng) & 1);
            if (rot) {
                double dq[4];
                pack_random_rotation(&c->rng, dr, dq);
                pack_quat_mul(b->q, dq, old.q);
                rtry++;
            } else {
                for (int k = 0; k < 3; k++)
                    b->x[k] += (2 * rve_rng_uniform(&c->rng) - 1) * dt;
                pack_wrap_body(s, b);
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
            if (pack_grid_query(&g, b->x, b->rbound, grow_reach, i, &cd, &ncd, &capcd) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
            double m;
            st = pack_min_sep(c, i, cd, ncd, gap, &m, &c->res->narrow_calls);
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
            /* keep the grid current */
            if (!rot && pack_grid_moved(&g, i, old.x) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
            if (c->lam[i] < lam_target) {
                /* grow inside the free space: surface points move by at most dl*R1 */
                double room = fmin(m, wall) - gap;
                double dl = fmin(0.5 * room, margin) / R1;
                if (dl > 0) {
                    /* stay within a band above the smallest body scale */
                    double ln = fmin(fmin(lam_target, c->lam[i] + dl), band_top);
                    pack_set_scale(c, i, ln);
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
            if (!open_ended) {
                c->res->stop = RVE_PACK_STOP_TARGET;
                break;
            }
            /* raise the common target: the box keeps its size, bodies grow again */
            lam_target *= 1.01;
            pack_grid_free(&g);
            if (pack_grid_init_all(&g, s, 2 * c->rmax * lam_target + margin + 1e-9) < 0) {
                st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
                goto done;
            }
        }
        if (lmin > best_min * (1 + 1e-6)) {
            best_min = lmin;
            stuck = 0;
        } else if (++stuck > 2000 && open_ended) {
            c->res->stop = RVE_PACK_STOP_JAMMED; /* no growth of the smallest body in 2000 sweeps */
            break;
        }
        if ((sweep % 10) == 0) {
            double vmin = 0;
            for (int i = 0; i < n; i++)
                vmin += c->orig[i].volume;
            vmin *= lmin * lmin * lmin / (s->L[0] * s->L[1] * s->L[2]);
            char extra[96];
            snprintf(extra, sizeof extra, "sweep %ld, fraction (all grown) %.4f", sweep, vmin);
            pack_report(c, pack_current_fraction(c), 0, extra);
        }
        if (pack_out_of_time(c)) {
            c->res->stop = RVE_PACK_STOP_TIME;
            break;
        }
    }
done:
    pack_grid_free(&g);
    free(cd);
    return st;
}
