/* polish.c - after regularisation, move vertices to open the small angles
 * that force flat tetrahedra and to win back voxel accuracy against the
 * grain map, keeping the topology.
 *
 * Collapsing edges moves vertices by up to half the threshold and leaves the
 * data behind; thin wedges where a grain boundary meets another face (or the
 * sample surface) at a few degrees survive it and cap the mesh quality: every
 * tetrahedron in such a wedge is flat.  The polish is a pattern search over
 * vertex positions: each vertex tries steps along the axes (within the domain
 * faces that hold it) with the face points fixed.
 *
 * Accuracy is counted exactly and incrementally.  Moving vertex v moves only
 * the fan triangles that hold v; a voxel centre can change cells only inside
 * the hull of such a triangle's old and new positions, and its new cell
 * follows from the change of the generalised winding numbers (solid angles)
 * of the cells around v, whose union does not change. */
#include "config.h"
#include "mesh/polish_state.h"
#include "util/vec3.h"
#include <limits.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


static rve_status build_incidence(pol *P, rve_err *err)
{
    const rve_cx *c = P->c;
    P->vfo = calloc((size_t)c->nv + 2, sizeof(int));
    P->cfo = calloc((size_t)c->nc + 2, sizeof(int));
    P->mask = calloc((size_t)c->nv + 1, sizeof(unsigned));
    P->dirty = calloc((size_t)c->nv + 1, 1);
    P->vmark = calloc((size_t)c->nv + 1, sizeof(uint32_t));
    int nfv = c->foff[c->nf];
    P->vfl = malloc(((size_t)nfv + 1) * sizeof(int));
    P->cfl = malloc(((size_t)c->nf * 2 + 1) * sizeof(int));
    if (!P->vfo || !P->cfo || !P->mask || !P->dirty || !P->vmark || !P->vfl || !P->cfl)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int f = 0; f < c->nf; f++) {
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++) {
            P->vfo[c->fv[i] + 1]++;
            if (c->fdom[f] >= 0)
                P->mask[c->fv[i]] |= 1u << c->fdom[f];
        }
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                P->cfo[c->fc[2 * f + s] + 1]++;
    }
    for (int v = 0; v < c->nv; v++)
        P->vfo[v + 1] += P->vfo[v];
    for (int k = 0; k < c->nc; k++)
        P->cfo[k + 1] += P->cfo[k];
    int *pv = malloc(((size_t)c->nv + 1) * sizeof(int)), *pc = malloc(((size_t)c->nc + 1) * sizeof(int));
    if (!pv || !pc) {
        free(pv);
        free(pc);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(pv, P->vfo, (size_t)c->nv * sizeof(int));
    memcpy(pc, P->cfo, (size_t)c->nc * sizeof(int));
    for (int f = 0; f < c->nf; f++) {
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
            P->vfl[pv[c->fv[i]]++] = f;
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                P->cfl[pc[c->fc[2 * f + s]]++] = f;
    }
    free(pv);
    free(pc);
    return RVE_OK;
}

/* Unit step directions of v: the axes, projected on the domain planes
 * through v (box domains: the free axes).  Returns their count. */
static int directions(const pol *P, int v, double dir[6][3])
{
    const rve_cx *c = P->c;
    int nd = 0;
    for (int a = 0; a < 3; a++)
        for (int sg = -1; sg <= 1; sg += 2) {
            double d[3] = {0, 0, 0};
            d[a] = sg;
            for (int k = 0; k < c->ndom; k++)
                if (P->mask[v] & (1u << k)) {
                    const double *n = c->dom + 4 * k;
                    v3_axpy(d, d, -v3_dot(d, n), n);
                }
            if (v3_normalize(d) > 0.5)
                v3_copy(dir[nd++], d);
        }
    return nd;
}

static int inside_domain(const pol *P, const double p[3])
{
    for (int a = 0; a < 3; a++)
        if (p[a] < P->c->dom_lo[a] || p[a] > P->c->dom_hi[a])
            return 0;
    return 1;
}

/* Smallest face corner or dihedral angle of the complex (radians) and the
 * count of angles below qang. */
static void global_angles(pol *P, double *amin, size_t *below)
{
    const rve_cx *c = P->c;
    double m = PI;
    size_t nb = 0;
    P->v = -1;
    P->nvf = 0;
    for (int f = 0; f < c->nf; f++) {
        int n = pol_loop_len(c, f);
        if (c->fdom[f] < 0 && !c->fflat[f]) /* each fan triangle: its smallest angle */
            for (int i = 0; i < n; i++) {
                const double *o = c->fpt + 3 * f, *a = c->v + 3 * pol_loop_at(c, f, i),
                             *b = c->v + 3 * pol_loop_at(c, f, i + 1);
                double fa = fmin(pol_corner(o, a, b), fmin(pol_corner(a, o, b), pol_corner(b, a, o)));
                m = fmin(m, fa);
                nb += fa < P->qang;
            }
        for (int i = 0; i < n; i++) {
            int a = pol_loop_at(c, f, i - 1), q = pol_loop_at(c, f, i), b = pol_loop_at(c, f, i + 1);
            double ang = pol_corner(c->v + 3 * q, c->v + 3 * a, c->v + 3 * b);
            m = fmin(m, ang);
            nb += ang < P->qang;
        }
    }
    /* dihedral angles: every edge of every cell, once */
    for (int k = 0; k < c->nc; k++)
        for (int j = P->cfo[k]; j < P->cfo[k + 1]; j++) {
            int f = P->cfl[j], n = pol_loop_len(c, f);
            for (int i = 0; i < n; i++) {
                int a = pol_loop_at(c, f, i), b = pol_loop_at(c, f, i + 1);
                if ((c->fc[2 * f] == k) != (a < b))
                    continue; /* the edge runs a -> b in one face of k, b -> a in the other */
                double d = pol_dihedral(P, k, a, b);
                m = fmin(m, d);
                nb += d < P->qang;
            }
        }
    *amin = m;
    *below = nb;
}

/* One trial step of vertex v (set up in Q) along dir: whether it passes the
 * checks and the mode's rule, its local quality, gain and convexity. */
typedef struct {
    int pass, convex, fail, why; /* why: the check that failed (rve_reg_report.group_refused) */
    double m1, p[3];
    long long gain;
} step_result;

static void try_pos(pol *Q, int v, int mode, double m0, const double p[3], step_result *r)
{
    memset(r, 0, sizeof *r);
    v3_copy(r->p, p);
    pol_place(Q, r->p);
    r->why = !inside_domain(Q, Q->p) ? 3 : !pol_edges_ok(Q) ? 1 : !pol_faces_ok(Q) ? 2 : !pol_cells_ok(Q) ? 3 : 0;
    if (r->why)
        return;
    r->m1 = pol_local_quality(Q, v, 1);
    if (mode == 0 ? !(r->m1 > m0 + 1e-9) : r->m1 < m0)
        return;
    if (pol_count_gain(Q, &r->gain)) {
        r->fail = 1;
        return;
    }
    r->pass = 1;
    /* mode 1 takes only gains (> 0): no need to check the others' convexity */
    r->convex = (mode == 0 || r->gain > 0) && pol_convex_ok(Q);
}

static void try_step(pol *Q, int v, int mode, double m0, const double v0[3], double step,
                     const double dir[3], step_result *r)
{
    double p[3];
    v3_axpy(p, v0, step, dir);
    try_pos(Q, v, mode, m0, p, r);
}

/* Move the vertex set up in P to p for good: the voxels it changes, its
 * face points, and its neighbours are tried again.  -1 on allocation failure. */
static int move_to(pol *P, const double p[3])
{
    const rve_cx *c = P->c;
    pol_place(P, p);
    long long g = 0;
    if (pol_count_gain(P, &g))
        return -1;
    pol_commit(P);
    P->good += g;
    for (int j = 0; j < P->nvf; j++)
        for (int i = c->foff[P->vf[j]]; i < c->foff[P->vf[j] + 1]; i++)
            P->dirty[c->fv[i]] = 1;
    return 0;
}

/* ------------------------------------------------- periodic (mirrored) moves */
/* The copies of box-face vertex v (v first) across every subset of the
 * periodic axes whose planes hold it; 0 when one is missing. */
static int copies_of(const pol *P, int v, int cp[8])
{
    int axes[3], na = 0, n = 0;
    for (int a = 0; a < 3; a++)
        if (P->mask[v] & P->frz & (3u << (2 * a)))
            axes[na++] = a;
    for (unsigned S = 0; S < (1u << na); S++) {
        int w = v;
        for (int i = 0; i < na && w >= 0; i++)
            if (S >> i & 1)
                w = P->plink[3 * w + axes[i]];
        if (w < 0)
            return 0;
        cp[n++] = w;
    }
    return n;
}

/* The copy of v on the lower planes (the one that moves the group), or -1. */
static int canonical(const pol *P, int v)
{
    for (int a = 0; a < 3 && v >= 0; a++)
        if ((P->mask[v] & P->frz & (3u << (2 * a))) && P->c->v[3 * v + a] != P->c->dom_lo[a])
            v = P->plink[3 * v + a];
    return v;
}

/* One pattern-search step of the vertex group of v (on the lower box planes)
 * and its periodic copies: every copy moves by the same step within its box
 * planes, so the copies stay exact translates (their tangential coordinates
 * are computed once).  Their cell stars must be disjoint, so that each copy's
 * checks and voxel gain hold when all move; the group's quality is its
 * worst copy's, its gain the sum.  Returns 1 if moved, 0 if not, -1 on
 * allocation failure. */
static int sweep_group(pol *P, int v, int mode, double step)
{
    const rve_cx *c = P->c;
    int cp[8], n = copies_of(P, v, cp);
    int stars[8][MAXS], ns[8];
    double m0 = 2;
    for (int i = 0; i < n; i++) {
        if (!pol_setup_vertex(P, cp[i]))
            return 0;
        ns[i] = P->nstar;
        memcpy(stars[i], P->star, (size_t)P->nstar * sizeof(int));
        for (int j = 0; j < i; j++)
            for (int a = 0; a < ns[i]; a++)
                for (int b = 0; b < ns[j]; b++)
                    if (stars[i][a] == stars[j][b]) {
                        P->rep->group_refused[0] += mode == 0;
                        return 0;
                    }
        m0 = fmin(m0, pol_local_quality(P, cp[i], 0));
    }
    if (n == 0 || (mode == 0 && m0 >= 1))
        return 0;
    P->rep->group_tried += mode == 0;
    double dir[6][3], v0[3], pos_i[8][3], best_pos[8][3];
    int nd = directions(P, v, dir), best = -1;
    long long best_gain = mode == 0 ? LLONG_MIN : 0;
    double best_m = m0;
    v3_copy(v0, c->v + 3 * v);
    for (int d = 0; d < nd; d++) {
        double base[3];
        v3_axpy(base, v0, step, dir[d]);
        long long gain = 0;
        double m1 = 2;
        int pass = 1, convex = 1;
        for (int i = 0; i < n && pass; i++) {
            for (int a = 0; a < 3; a++) /* tangential: the same bits; normal: its plane */
                pos_i[i][a] = (P->mask[cp[i]] & P->frz & (3u << (2 * a))) ? c->v[3 * cp[i] + a] : base[a];
            step_result r;
            pol_setup_vertex(P, cp[i]);
            try_pos(P, cp[i], 1, -1, pos_i[i], &r);
            if (r.fail)
                return -1;
            pass = r.pass;
            if (!pass && mode == 0)
                P->rep->group_refused[r.why]++;
            gain += r.gain;
            m1 = fmin(m1, r.m1);
            convex = convex && pol_convex_ok(P);
        }
        if (pass && mode == 0 && (!convex || !(m1 > m0 + 1e-9)))
            P->rep->group_refused[!convex ? 4 : 5]++;
        if (!pass || !convex || (mode == 0 ? !(m1 > m0 + 1e-9) : m1 < m0))
            continue;
        if (gain > best_gain || (mode == 0 && gain == best_gain && m1 > best_m)) {
            best_gain = gain;
            best_m = m1;
            best = d;
            memcpy(best_pos, pos_i, sizeof pos_i);
        }
    }
    if (best < 0)
        return 0;
    P->rep->group_moved += mode == 0;
    for (int i = 0; i < n; i++) {
        pol_setup_vertex(P, cp[i]);
        if (move_to(P, best_pos[i]))
            return -1;
    }
    return 1;
}

/* One pattern-search sweep over the vertices in order.  Mode 0 mends the
 * neighbourhoods of quality below 1 (angles under qang, edges shorter than
 * the threshold): the best accuracy among the moves that raise the vertex's
 * local quality; mode 1 wins accuracy without lowering any local quality.
 * The steps of one vertex are tried by nw workers (copies of P with their
 * own trial buffers) at once; the choice is made in direction order, so the
 * result does not depend on the number of workers.  Returns the moves made,
 * -1 on allocation failure. */
static long sweep(pol *P, pol *W, int nw, int mode, double step, size_t *moves)
{
    rve_cx *c = P->c;
    long made = 0;
    for (int v = 0; v < c->nv; v++) {
        if (!P->dirty[v])
            continue;
        P->dirty[v] = 0; /* tried: again only once something around it moves */
        if (P->frz && (P->mask[v] & P->frz)) { /* a box-face vertex: with its copies */
            int w = canonical(P, v), res = 0;
            if (w >= 0 && w != v)
                P->dirty[w] = 1; /* moved by its lower copy */
            if (w == v && (res = sweep_group(P, v, mode, step)) < 0)
                return -1;
            made += res;
            *moves += (size_t)res;
            continue;
        }
        if (P->vfo[v + 1] == P->vfo[v] || !pol_setup_vertex(P, v))
            continue;
        double dir[6][3];
        int nd = directions(P, v, dir);
        if (!nd)
            continue;
        double m0 = pol_local_quality(P, v, 0);
        if (mode == 0 && m0 >= 1)
            continue;
        double v0[3];
        v3_copy(v0, c->v + 3 * v);
        step_result res[6];
        if (nw > 1) {
#pragma omp parallel num_threads(nw)
            {
#ifdef _OPENMP
                pol *Q = &W[omp_get_thread_num()];
#else
                pol *Q = &W[0];
#endif
                pol_setup_vertex(Q, v);
#pragma omp for schedule(static)
                for (int d = 0; d < nd; d++)
                    try_step(Q, v, mode, m0, v0, step, dir[d], &res[d]);
            }
        } else {
            for (int d = 0; d < nd; d++)
                try_step(P, v, mode, m0, v0, step, dir[d], &res[d]);
        }
        long long best_gain = mode == 0 ? LLONG_MIN : 0;
        double best_m = m0;
        int best = -1;
        for (int d = 0; d < nd; d++) {
            if (res[d].fail)
                return -1;
            if (!res[d].pass)
                continue;
            int better = res[d].gain > best_gain || (mode == 0 && res[d].gain == best_gain && res[d].m1 > best_m);
            if (better && res[d].convex) {
                best_gain = res[d].gain;
                best_m = res[d].m1;
                best = d;
            }
        }
        if (best < 0)
            continue;
        /* recount on the master: the trial's candidate lists were overwritten
         * by later trials (one count per move against about six per vertex) */
        if (move_to(P, res[best].p))
            return -1;
        made++;
        (*moves)++;
    }
    return made;
}

rve_status rve_cx_polish(rve_cx *c, const rve_map *map, const int *ids, double threshold,
                         double max_angle, double min_angle, const rve_reg_opts *o,
                         rve_reg_report *rep, rve_err *err)
{
    pol P, *W = NULL; /* W: workers, see below */
    int nw = 1;
    memset(&P, 0, sizeof P);
    P.c = c;
    P.map = map;
    P.thr = threshold;
    P.max_bend = max_angle * PI / 180;
    P.qang = min_angle * PI / 180;
    P.rep = rep;
    if (!map)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the polish needs a grain map");
    rve_status st = build_incidence(&P, err);
    for (int a = 0; c->fper && a < 3; a++)
        if (c->periodic[a])
            P.frz |= 3u << (2 * a);
    if (st == RVE_OK && P.frz && !(P.plink = rve_cx_periodic_links(c, P.mask, NULL, P.frz)))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK) {
        size_t nvox = rve_map_nvox(map);
        P.truth = malloc(nvox * sizeof(int32_t));
        P.cur = malloc(nvox * sizeof(int32_t));
        if (!P.truth || !P.cur)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        if (st == RVE_OK)
            st = pol_build_truth(&P, ids, err);
        if (st == RVE_OK)
            st = pol_rasterise(&P, err);
        if (st == RVE_OK) {
            rep->acc_reg = P.nvox ? (double)P.good / (double)P.nvox : 0;
        }
    }
    if (st != RVE_OK)
        goto out;
    global_angles(&P, &rep->angle_before, &rep->sharp_before);
    double h = fmin(map->h[0], fmin(map->h[1], map->h[2]));
    /* workers for the steps of one vertex: copies of P with their own trial
     * buffers (candidates, voxels met); at most one per direction */
#ifdef _OPENMP
    nw = omp_get_max_threads();
#endif
    if (nw > 6)
        nw = 6;
    if (nw > 1) {
        W = calloc((size_t)nw, sizeof *W);
        if (!W)
            nw = 1;
        for (int w = 0; w < nw && W; w++) {
            W[w] = P;
            W[w].cand = NULL;
            W[w].cnew = NULL;
            W[w].ncand = W[w].capcand = 0;
            W[w].seen = NULL;
            W[w].seen_cap = W[w].seen_n = 0;
            W[w].gen = 0;
            W[w].vmark = calloc((size_t)c->nv + 1, sizeof(uint32_t));
            W[w].vgen = 0;
            if (!W[w].vmark) {
                for (int x = 0; x < w; x++)
                    free(W[x].vmark);
                free(W);
                W = NULL;
                nw = 1; /* no room for the workers: one */
            }
        }
    }
    /* angles first (they need the room), then accuracy; coarse to fine */
    static const double steps[3] = {0.5, 0.25, 0.125};
    for (int mode = 0; mode < 2; mode++) {
        for (int s = 0; s < 3; s++) {
            memset(P.dirty, 1, (size_t)c->nv);
            for (int it = 0; it < 12; it++) {
                long made = sweep(&P, W, nw, mode, steps[s] * h, &rep->polish_moves);
                if (o && o->progress) /* stages of equal weight: 2 modes x 3 steps */
                    o->progress(o->progress_ctx, (mode * 3 + s + (it + 1) / 12.0) / 6.0,
                                rep->polish_moves, P.nvox ? (double)P.good / (double)P.nvox : 0);
                if (made < 0) {
                    st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                    goto out;
                }
                if (made == 0)
                    break;
            }
        }
    }
    global_angles(&P, &rep->angle_after, &rep->sharp_after);
    rep->angle_before *= 180 / PI;
    rep->angle_after *= 180 / PI;
    /* folded face pairs (fold.c) after the moves, which keep face points at
     * the vertex means, and after the angles (the periodic window is chosen
     * by them: rve_reg_box); the voxels are counted again on the result */
    int folded = rve_cx_fold_quads(c);
    P.v = -1;
    P.nvf = 0;
    if (folded < 0)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    else if (folded > 0)
        st = pol_rasterise(&P, err);
    if (st != RVE_OK)
        goto out;
    rep->acc_polish = P.nvox ? (double)P.good / (double)P.nvox : 0;
out:
    if (W)
        for (int w = 0; w < nw; w++) {
            free(W[w].seen);
            free(W[w].vmark);
            free(W[w].cand);
            free(W[w].cnew);
        }
    free(W);
    free(P.vfo);
    free(P.vfl);
    free(P.cfo);
    free(P.cfl);
    free(P.mask);
    free(P.dirty);
    free(P.vmark);
    free(P.truth);
    free(P.cur);
    free(P.seen);
    free(P.cand);
    free(P.cnew);
    free(P.plink);
    return st;
}

