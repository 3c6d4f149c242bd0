/* reg_periodic.c - collapses on periodic box complexes: every periodic copy
 * of an edge on the box faces collapses with it, to the exact translate. */
#include "config.h"
#include "mesh/reg_state.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------- periodic (mirrored) collapses */
/* Links between the periodic copies of the frozen vertices (once: copies
 * then move together, so the links stay). */
int reg_frozen_links(reg *r)
{
    unsigned frz = reg_frozen_planes(r->c);
    if (!frz)
        return 0;
    r->plink = rve_cx_periodic_links(r->c, r->mask, r->valive, frz);
    return r->plink ? 0 : -1;
}

/* The periodic copy of frozen vertex v across the axes axes[i] for the bits
 * i of S, or -1. */
static int frozen_copy(const reg *r, int v, const int *axes, unsigned S)
{
    for (int i = 0; i < 3 && v >= 0; i++)
        if (S >> i & 1)
            v = r->plink[3 * v + axes[i]];
    return v >= 0 && r->valive[v] ? v : -1;
}

/* Do the vertex sets p[0..2) and q[0..2) (-1: none) share a live face? */
static int faces_shared(const reg *r, const int p[2], const int q[2])
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; p[i] >= 0 && q[j] >= 0 && k < r->vf[p[i]].n; k++)
                if (r->flen[r->vf[p[i]].a[k]] >= 3 && il_has(&r->vf[q[j]], r->vf[p[i]].a[k]))
                    return 1;
    return 0;
}

/* Merge b into a (b < 0: move a only) at the forced position r->fpos. */
static int forced_merge(reg *r, int a, int b)
{
    r->mset[0] = a;
    r->mset[1] = b;
    r->mk = b >= 0 ? 2 : 1;
    r->dying = -1;
    return reg_try_merge(r);
}

/* Collapse edge (a, b) into a.  On a periodic box complex a vertex on a
 * periodic box face has copies on the opposite faces, which must stay exact
 * translates: the first collapse chooses the position within a's box planes
 * (least squares, as any), then every copy of a moves to the translate of
 * that position, merging the copy of b when b has that copy too (an edge on
 * the box faces) or moving alone.  All copies are checked before any is
 * done, and their neighbourhoods must be disjoint so that the checks still
 * hold when they are done.  *copies receives the copies of a (up to 7). */
int reg_collapse_any(reg *r, int a, int b, int *copies, int *ncopies)
{
    unsigned frz = reg_frozen_planes(r->c), fa = r->mask[a] & frz, fb = r->mask[b] & frz;
    *ncopies = 0;
    if (!fa) /* the caller keeps the vertex with the larger constraint set */
        return fb ? 0 : reg_try_collapse(r, a, b);
    if ((r->mask[a] | r->mask[b]) != r->mask[a])
        return 0;
    int axes[3], na = 0;
    unsigned bS = 0;
    for (int ax = 0; ax < 3; ax++)
        if (fa >> (2 * ax) & 3u) {
            if (fb >> (2 * ax) & 3u)
                bS |= 1u << na;
            axes[na++] = ax;
        }
    int ca[8], cb[8], n = 0;
    unsigned Sv[8];
    for (unsigned S = 0; S < (1u << na); S++) {
        int edge = (S & ~bS) == 0; /* b has this copy: the edge has one */
        ca[n] = S ? frozen_copy(r, a, axes, S) : a;
        cb[n] = !edge ? -1 : S ? frozen_copy(r, b, axes, S) : b;
        if (ca[n] < 0 || (edge && (cb[n] < 0 || !reg_edge_exists(r, ca[n], cb[n]))))
            return 0;
        for (int i = 0; i < n; i++)
            if (faces_shared(r, (int[2]){ca[i], cb[i]}, (int[2]){ca[n], cb[n]}))
                return 0;
        Sv[n++] = S;
    }
    r->allow_frozen = r->free_frozen = r->dry = 1;
    int res = reg_try_collapse(r, a, b);
    r->free_frozen = 0;
    double p[3];
    v3_copy(p, r->dry_pos);
    for (int k = 0; k < na && res == 1; k++) /* on its box planes exactly, as placed */
        if (p[axes[k]] != r->c->dom_lo[axes[k]] && p[axes[k]] != r->c->dom_hi[axes[k]])
            res = 0;
    r->force = 1;
    for (int pass = 0; pass < 2 && res == 1; pass++) {
        r->dry = pass == 0; /* all checks first, then all commits */
        for (int i = pass == 0 ? 1 : 0; i < n && res == 1; i++) {
            v3_copy(r->fpos, p);
            for (int k = 0; k < na; k++)
                if (Sv[i] >> k & 1) {
                    int ax = axes[k];
                    r->fpos[ax] = p[ax] == r->c->dom_lo[ax] ? r->c->dom_hi[ax] : r->c->dom_lo[ax];
                }
            res = forced_merge(r, ca[i], cb[i]);
            if (pass == 1 && res == 0)
                res = -2; /* the neighbourhoods are disjoint: cannot happen */
            if (pass == 1 && i > 0 && res == 1)
                copies[(*ncopies)++] = ca[i];
        }
    }
    r->force = r->allow_frozen = r->dry = 0;
    return res;
}

/* ------------------------------------------------ pieces smaller than tiny */
/* Do two vertex groups share a live face? */
static int groups_touch(const reg *r, const int *p, int np, const int *q, int nq)
{
    for (int i = 0; i < np; i++)
        for (int k = 0; k < r->vf[p[i]].n; k++) {
            int f = r->vf[p[i]].a[k];
            if (r->flen[f] < 3)
                continue;
            for (int j = 0; j < nq; j++)
                if (il_has(&r->vf[q[j]], f))
                    return 1;
        }
    return 0;
}

/* The distinct live vertices of piece k into vs (at most RVE_REG_MAXSET);
 * returns their count, -1 when there are more. */
static int piece_vertices(const reg *r, int k, int *vs)
{
    const rve_cx *c = r->c;
    int n = 0;
    for (int j = r->coff[k]; j < r->coff[k + 1]; j++) {
        int f = r->cfac[j];
        for (int i = 0; i < r->flen[f]; i++) {
            int v = c->fv[c->foff[f] + i], seen = 0;
            for (int q = 0; q < n; q++)
                seen |= vs[q] == v;
            if (seen)
                continue;
            if (n == RVE_REG_MAXSET)
                return -1;
            vs[n++] = v;
        }
    }
    return n;
}

/* Put a vertex of vs[0..n) whose box planes hold those of all the others
 * first; 0 when none does. */
static int kept_first(const reg *r, int *vs, int n)
{
    unsigned mu = 0;
    for (int i = 0; i < n; i++)
        mu |= r->mask[vs[i]];
    for (int i = 0; i < n; i++)
        if (r->mask[vs[i]] == mu) {
            int t = vs[0];
            vs[0] = vs[i];
            vs[i] = t;
            return 1;
        }
    return 0;
}

/* Delete piece k of a periodic box complex (a cap a cell sticks through a
 * box face with, smaller than a cube of the threshold: every edge of it is
 * short and no edge collapse keeps it a cell) by merging its vertices into
 * one point on its box planes; the periodic copies of its box-face vertices
 * (the polygons its translates share with the other pieces of the grain)
 * merge into the translates of that point, so the grain's other pieces stay
 * exact translates across the box.  All merges are checked before any is
 * done and their neighbourhoods must be disjoint.  Returns 1 if done, 0 if
 * refused, -1 on memory, -2 when a checked copy failed (cannot happen). */
int reg_delete_piece(reg *r, int k)
{
    const rve_cx *c = r->c;
    unsigned frz = reg_frozen_planes(c);
    int grp[8][RVE_REG_MAXSET], ng[8], na = 0, axes[3];
    int n = piece_vertices(r, k, grp[0]);
    if (n < 4 || !kept_first(r, grp[0], n))
        return 0;
    ng[0] = n;
    unsigned fa = r->mask[grp[0][0]] & frz;
    for (int ax = 0; ax < 3; ax++)
        if (fa >> (2 * ax) & 3u)
            axes[na++] = ax;
    for (unsigned S = 1; S < (1u << na); S++) {
        ng[S] = 0;
        for (int i = 0; i < n; i++) {
            int v = grp[0][i], on = 1;
            for (int j = 0; j < na; j++)
                if ((S >> j & 1) && !(r->mask[v] >> (2 * axes[j]) & 3u))
                    on = 0;
            if (!on)
                continue;
            int w = frozen_copy(r, v, axes, S);
            if (w < 0)
                return 0;
            grp[S][ng[S]++] = w;
        }
        if (ng[S] == 0 || !kept_first(r, grp[S], ng[S]))
            return 0;
        for (unsigned T = 0; T < S; T++)
            if (groups_touch(r, grp[T], ng[T], grp[S], ng[S]))
                return 0;
    }
    memcpy(r->mset, grp[0], (size_t)n * sizeof(int));
    r->mk = n;
    r->dying = k;
    r->allow_frozen = r->free_frozen = r->dry = 1;
    int res = reg_try_merge(r);
    r->free_frozen = 0;
    double p[3];
    memcpy(p, r->dry_pos, sizeof p);
    for (int j = 0; j < na && res == 1; j++)
        if (p[axes[j]] != c->dom_lo[axes[j]] && p[axes[j]] != c->dom_hi[axes[j]])
            res = 0;
    r->force = 1;
    for (int pass = 0; pass < 2 && res == 1; pass++) {
        r->dry = pass == 0;
        for (unsigned S = pass == 0 ? 1 : 0; S < (1u << na) && res == 1; S++) {
            memcpy(r->fpos, p, sizeof p);
            for (int j = 0; j < na; j++)
                if (S >> j & 1) {
                    int ax = axes[j];
                    r->fpos[ax] = p[ax] == c->dom_lo[ax] ? c->dom_hi[ax] : c->dom_lo[ax];
                }
            memcpy(r->mset, grp[S], (size_t)ng[S] * sizeof(int));
            r->mk = ng[S];
            r->dying = S ? -1 : k;
            res = reg_try_merge(r);
            if (pass == 1 && res == 0)
                res = -2;
        }
    }
    r->force = r->allow_frozen = r->dry = 0;
    return res;
}

/* ------------------------------------------ short edges no collapse removes */
/* Do the edges at v keep at least min(threshold, their length) with v at p? */
static int edges_kept(const reg *r, int v, const double p[3])
{
    const rve_cx *c = r->c;
    for (int k = 0; k < r->vf[v].n; k++) {
        int f = r->vf[v].a[k], n = r->flen[f];
        const int *lp = c->fv + c->foff[f];
        for (int i = 0; n >= 3 && i < n; i++) {
            if (lp[i] != v)
                continue;
            for (int s = n - 1; s <= n + 1; s += 2) {
                int w = lp[(i + s) % n];
                if (v3_dist(p, c->v + 3 * w) < fmin(r->threshold, reg_elen(r, v, w)))
                    return 0;
            }
        }
    }
    return 1;
}

/* Move v away from u until |v - u| = len, along the edge (tilt 0) or tilted
 * by half towards +-e1 or +-e2 (tilt 1..4, e1, e2 perpendicular to the
 * edge), within v's box planes, every
 * periodic copy of v to the exact translate (as reg_collapse_any): all
 * copies are checked (faces bent, cells star-shaped, no edge at them
 * shortened below the threshold) before any moves, and their
 * neighbourhoods must be disjoint.  1 done, 0 refused, -1 on memory, -2
 * when a checked copy failed (cannot happen). */
static int stretch_end(reg *r, int v, int u, double len, int tilt)
{
    const rve_cx *c = r->c;
    unsigned frz = reg_frozen_planes(c), fv = r->mask[v] & frz;
    double d[3], w[3];
    v3_sub(w, c->v + 3 * v, c->v + 3 * u);
    v3_copy(d, w);
    if (tilt) {
        double e1[3], e2[3], x[3] = {1, 0, 0}, wl = v3_norm(w);
        if (fabs(w[0]) > 0.6 * wl)
            x[0] = 0, x[1] = 1;
        v3_cross(e1, w, x);
        v3_scale(e1, e1, 1.0 / v3_norm(e1));
        v3_cross(e2, w, e1);
        v3_scale(e2, e2, 1.0 / wl);
        v3_axpy(d, w, (tilt & 1 ? 0.5 : -0.5) * wl, tilt <= 2 ? e1 : e2);
    }
    int axes[3], na = 0;
    for (int ax = 0; ax < 3; ax++)
        if (r->mask[v] >> (2 * ax) & 3u) { /* on a plane of this axis: stays on it */
            d[ax] = 0;
            if (fv >> (2 * ax) & 3u)
                axes[na++] = ax;
        }
    double dn = v3_norm(d);
    if (!(dn > 1e-6 * r->threshold))
        return 0;
    v3_scale(d, d, 1.0 / dn);
    double wd = v3_dot(w, d), disc = wd * wd - v3_dot(w, w) + len * len;
    if (!(disc > 0))
        return 0;
    double p[3];
    v3_axpy(p, c->v + 3 * v, -wd + sqrt(disc), d);
    for (int ax = 0; ax < 3; ax++)
        if (r->mask[v] >> (2 * ax) & 3u)
            p[ax] = c->v[3 * v + ax];
    int cv[8];
    for (unsigned S = 0; S < (1u << na); S++) {
        cv[S] = S ? frozen_copy(r, v, axes, S) : v;
        if (cv[S] < 0)
            return 0;
        for (unsigned T = 0; T < S; T++)
            if (faces_shared(r, (int[2]){cv[T], -1}, (int[2]){cv[S], -1}))
                return 0;
    }
    int res = 1;
    r->force = 1;
    for (int pass = 0; pass < 2 && res == 1; pass++) {
        r->dry = pass == 0;
        for (unsigned S = 0; S < (1u << na) && res == 1; S++) {
            v3_copy(r->fpos, p);
            for (int k = 0; k < na; k++)
                if (S >> k & 1) {
                    int ax = axes[k];
                    r->fpos[ax] = p[ax] == c->dom_lo[ax] ? c->dom_hi[ax] : c->dom_lo[ax];
                }
            if (pass == 0 && !edges_kept(r, cv[S], r->fpos))
                res = 0;
            if (res == 1)
                res = forced_merge(r, cv[S], -1);
            if (pass == 1 && res == 0)
                res = -2;
        }
    }
    r->force = r->dry = 0;
    return res;
}

static int nbits(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* The short edges left after the collapses, lengthened instead: one end (the
 * one on fewer box planes first) moves away from the other, within its box
 * planes and with its periodic copies, until the edge is a little longer
 * than the threshold (1.01, 1.05, 1.15 of it, the least that passes; along
 * the edge first, then tilted, stretch_end), when
 * no face bends past the maximum, every cell stays star-shaped and no other
 * edge at the moved vertices gets shorter than the threshold (or than it
 * was).  Returns the edges lengthened, -1 on memory, -2 as stretch_end. */
int reg_stretch_short(reg *r)
{
    const rve_cx *c = r->c;
    ilist e = {NULL, 0, 0};
    for (int f = 0; f < c->nf; f++) {
        int n = r->flen[f];
        const int *lp = c->fv + c->foff[f];
        for (int i = 0; n >= 3 && i < n; i++)
            if (lp[i] < lp[(i + 1) % n] && reg_elen(r, lp[i], lp[(i + 1) % n]) < r->threshold)
                if (il_push(&e, lp[i]) || il_push(&e, lp[(i + 1) % n])) {
                    free(e.a);
                    return -1;
                }
    }
    static const double grow[3] = {1.01, 1.05, 1.15};
    int done = 0, res = 0;
    for (int i = 0; i + 1 < e.n && res >= 0; i += 2) {
        int a = e.a[i], b = e.a[i + 1]; /* a: the end on fewer planes moves first */
        if (nbits(r->mask[a]) > nbits(r->mask[b])) {
            a = e.a[i + 1];
            b = e.a[i];
        }
        res = 0;
        for (int k = 0; k < 30 && res == 0; k++) { /* ends, tilts, lengths */
            if (!r->valive[a] || !r->valive[b] || !reg_edge_exists(r, a, b) ||
                !(reg_elen(r, a, b) < r->threshold))
                break;
            res = stretch_end(r, k < 15 ? a : b, k < 15 ? b : a, grow[k % 3] * r->threshold, k % 15 / 3);
        }
        done += res == 1;
    }
    free(e.a);
    return res < 0 ? res : done;
}
