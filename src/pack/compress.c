/* Compression at fixed body sizes (compound bodies cannot be rescaled):
 * hard-particle Monte Carlo sweeps (translations, rotations, every trial
 * certified by the exact distance), and after each sweep a trial shrink of
 * the box (positions with it) whose overlaps are pushed apart along the
 * contact normals by the penetration depths of the exact kernels (EPA, the
 * compound hierarchy, Wellmann).  A shrink whose overlaps do not resolve is
 * undone and the step halved, so every accepted state is overlap-free by
 * the exact kernels (GJK intersection tests: touching counts as overlap). */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mathconst.h"

static void scale_all(rve_pack_set *s, double f)
{
    for (int k = 0; k < 3; k++)
        s->L[k] *= f;
    for (size_t i = 0; i < s->n; i++)
        v3_scale(s->b[i].x, s->b[i].x, f);
}

rve_status pack_mc_sweep(pack_ctx *c, double gap, double *dt, double *dr, double kT)
{
    rve_pack_set *s = c->s;
    int n = (int)s->n;
    pack_grid g;
    pack_cand *cd = NULL;
    int ncd = 0, capcd = 0;
    rve_status st = RVE_OK;
    if (pack_grid_init_all(&g, s, 2 * c->rmax + 1e-9 * c->rmean) < 0)
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    long tacc = 0, ttry = 0, racc = 0, rtry = 0;
    for (int t = 0; t < n && st == RVE_OK; t++) {
        int i = (int)(rve_rng_next(&c->rng) % (uint64_t)n);
        rve_pack_body *b = &s->b[i];
        rve_pack_body old = *b;
        int rot = b->shape != RVE_PACK_SPHERE && (rve_rng_next(&c->rng) & 1);
        if (rot) {
            double dq[4];
            pack_random_rotation(&c->rng, *dr, dq);
            pack_quat_mul(b->q, dq, old.q);
            rtry++;
        } else {
            for (int k = 0; k < 3; k++)
                b->x[k] += (2 * rve_rng_uniform(&c->rng) - 1) * *dt;
            pack_wrap_body(s, b);
            ttry++;
            /* gravity along -z: a rise dz is accepted with probability exp(-dz / kT) */
            double dz = b->x[2] - old.x[2];
            if (kT > 0 && dz > 0 && rve_rng_uniform(&c->rng) >= exp(-dz / kT)) {
                *b = old;
                continue;
            }
        }
        if (!s->periodic && pack_wall_clearance(b, s->L) <= gap) {
            *b = old;
            continue;
        }
        if (pack_grid_query(&g, b->x, b->rbound, 0, i, &cd, &ncd, &capcd) < 0) {
            st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
            break;
        }
        /* a boolean test per candidate (cheaper than distances): any overlap
         * or touch rejects the move */
        int hit = 0;
        for (int q = 0; q < ncd && !hit; q++) {
            double tq[3];
            pack_shift_vec(s, cd[q].shift, tq);
            hit = pack_bodies_overlap(b, &s->b[cd[q].j], tq);
            c->res->narrow_calls++;
        }
        if (hit < 0) {
            st = rve_err_set(c->err, RVE_EDATA, NULL, "narrow phase failed on body %d", i + 1);
            break;
        }
        if (hit) {
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

/* Overlap resolution: every overlapping (or touching) pair is
 * pushed apart along the kernel's contact normal by its penetration depth
 * plus a small margin, half each, one pair after the other (Gauss-Seidel),
 * until no pair overlaps; 1 when resolved within maxit rounds.  disp only
 * flags the bodies moved in a round. */
static int resolve(pack_ctx *c, double gap, int maxit, double *disp, unsigned char *moved, rve_status *st)
{
    rve_pack_set *s = c->s;
    size_t n = s->n;
    double margin = 1e-4 * c->rmean;
    for (int it = 0; it < maxit; it++) {
        rve_pack_pair *pairs = NULL;
        size_t np = 0, cap = 0;
        if ((*st = rve_pack_broad_phase(s, gap, &pairs, &np, &cap, c->err)) != RVE_OK)
            return 0;
        memset(disp, 0, sizeof(double) * 3 * n);
        long nov = 0;
        for (size_t k = 0; k < np && *st == RVE_OK; k++) {
            /* after the first round only pairs with a moved body can overlap:
             * a body that did not move had no overlapping pair */
            if (it > 0 && !moved[pairs[k].i] && !moved[pairs[k].j])
                continue;
            const rve_pack_body *A = &s->b[pairs[k].i], *B = &s->b[pairs[k].j];
            double t[3], depth, nrm[3];
            pack_shift_vec(s, pairs[k].shift, t);
            int ov = pack_bodies_overlap(A, B, t);
            c->res->narrow_calls++;
            if (ov < 0)
                *st = RVE_EDATA;
            if (ov <= 0)
                continue;
            *st = pack_penetration(A, B, t, &depth, nrm);
            if (*st != RVE_OK)
                break;
            /* a non-positive depth: touching within the gap, open by the margin */
            double push = 0.5 * (fmax(depth, 0) + gap + margin);
            nov++;
            if (pairs[k].i == pairs[k].j)
                continue; /* a body against its own image: unresolvable, the shrink is undone */
            /* Gauss-Seidel: moved at once, so the next pairs see the new
             * positions (on 60 grains: fraction 0.44 after 200 sweeps,
             * where summed pushes jam at 0.39); a tenth of the mean size at most */
            push = fmin(push, 0.1 * c->rmean);
            for (int a = 0; a < 3; a++) {
                s->b[pairs[k].i].x[a] -= push * nrm[a];
                s->b[pairs[k].j].x[a] += push * nrm[a];
            }
            disp[3 * pairs[k].i] = disp[3 * pairs[k].j] = 1; /* moved */
        }
        free(pairs);
        if (*st != RVE_OK) {
            *st = rve_err_set(c->err, *st, NULL, "contact kernel failed during overlap resolution");
            return 0;
        }
        if (!s->periodic)
            for (size_t i = 0; i < n; i++) {
                /* walls: back inside along each axis */
                const rve_pack_body *b = &s->b[i];
                for (int a = 0; a < 3; a++) {
                    double dir[3] = {0, 0, 0}, p[3];
                    dir[a] = -1;
                    rve_pack_body_support(b, dir, p);
                    if (p[a] < gap) {
                        s->b[i].x[a] += fmin(gap + margin - p[a], 0.1 * c->rmean);
                        disp[3 * i] = 1;
                        nov++;
                    }
                    dir[a] = 1;
                    rve_pack_body_support(b, dir, p);
                    if (p[a] > s->L[a] - gap) {
                        s->b[i].x[a] -= fmin(p[a] - s->L[a] + gap + margin, 0.1 * c->rmean);
                        disp[3 * i] = 1;
                        nov++;
                    }
                }
            }
        if (nov == 0)
            return 1;
        for (size_t i = 0; i < n; i++)
            moved[i] = disp[3 * i] != 0;
        pack_wrap(s);
    }
    return 0;
}

rve_status pack_compress(pack_ctx *c, double target)
{
    rve_pack_set *s = c->s;
    size_t n = s->n;
    double gap = 1e-9 * c->rmean; /* smallest separation kept: bodies never touch */
    double dt = 0.2 * c->rmean, dr = 0.2;
    long maxsweeps = c->p->max_sweeps > 0 ? c->p->max_sweeps : 200000;
    double step = 0.01; /* relative shrink of the box per trial */
    int jammed = 0;
    /* jamming window: the fraction must gain jam_tol (relative) every window sweeps */
    double jtol = c->p->jam_tol != 0 ? c->p->jam_tol : 2e-3;
    long window = c->p->jam_window > 0 ? c->p->jam_window : 400;
    double phi_then = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
    c->res->stop = RVE_PACK_STOP_ITERATIONS;
    double *save = malloc(sizeof(double) * 3 * n + 1), *disp = malloc(sizeof(double) * 3 * n + 1);
    unsigned char *moved = malloc(n + 1);
    rve_status st = RVE_OK;
    if (!save || !disp || !moved)
        st = rve_err_set(c->err, RVE_ENOMEM, NULL, "out of memory");
    for (long k = 0; k < maxsweeps && st == RVE_OK; k++) {
        if ((st = pack_mc_sweep(c, gap, &dt, &dr, 0)) != RVE_OK)
            break;
        c->res->steps++;
        double phi = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
        if (target > 0 && phi >= target * (1 - 1e-12)) {
            c->res->stop = RVE_PACK_STOP_TARGET;
            break;
        }
        /* trial shrink, then push the overlaps it made apart; undone if they stay */
        double f = 1 - step;
        if (target > 0 && phi / (f * f * f) >= target)
            f = cbrt(phi / target);
        double L0[3];
        memcpy(L0, s->L, sizeof L0);
        for (size_t i = 0; i < n; i++)
            v3_copy(save + 3 * i, s->b[i].x);
        scale_all(s, f);
        int ok = resolve(c, gap, 20, disp, moved, &st);
        if (st != RVE_OK)
            break;
        if (ok) {
            step = fmin(step * 1.2, 0.02);
            jammed = 0;
        } else {
            memcpy(s->L, L0, sizeof L0);
            for (size_t i = 0; i < n; i++)
                v3_copy(s->b[i].x, save + 3 * i);
            step *= 0.5;
            if (step < 1e-5) {
                /* jammed at this step: a few more rounds of Monte Carlo, then stop */
                step = 1e-4;
                jammed++;
            }
        }
        phi = c->vsolid / (s->L[0] * s->L[1] * s->L[2]);
        if ((k % 5) == 0) {
            char extra[96];
            snprintf(extra, sizeof extra, "sweep %ld, shrink step %.1e", k, step);
            pack_report(c, phi, target, extra);
        }
        if (target > 0 && phi >= target * (1 - 1e-12)) {
            c->res->stop = RVE_PACK_STOP_TARGET;
            break;
        }
        int stalled = 0;
        if ((k + 1) % window == 0) {
            /* jammed when the window gained less than jtol (relative) */
            stalled = jtol > 0 && phi - phi_then < jtol * phi;
            phi_then = phi;
        }
        if (jammed > 20 || stalled) {
            c->res->stop = RVE_PACK_STOP_JAMMED;
            break;
        }
        if (pack_out_of_time(c)) {
            c->res->stop = RVE_PACK_STOP_TIME;
            break;
        }
    }
    free(save);
    free(disp);
    free(moved);
    pack_wrap(s);
    c->res->reached_target = target > 0 ? c->vsolid / (s->L[0] * s->L[1] * s->L[2]) >= target * (1 - 1e-9) : 1;
    return st;
}
