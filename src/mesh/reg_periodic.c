/* reg_periodic.c - collapses on periodic box complexes: every periodic copy
 * of an edge on the box faces collapses with it, to the exact translate. */
#include "config.h"
#include "mesh/reg_state.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------- periodic (mirrored) collapses */
static uint64_t xbits_hash(const double x[3])
{
    uint64_t b[3], h = 0x243F6A8885A308D3ull;
    memcpy(b, x, sizeof b);
    for (int k = 0; k < 3; k++)
        h = (h ^ b[k]) * 0x9E3779B97F4A7C15ull, h ^= h >> 29;
    return h;
}

/* Links between the periodic copies of the frozen vertices (by exact
 * coordinates, once: copies then move together, so the links stay). */
int reg_frozen_links(reg *r)
{
    const rve_cx *c = r->c;
    unsigned frz = reg_frozen_planes(c);
    if (!frz)
        return 0;
    size_t cap = 16;
    while (cap < 2 * (size_t)c->nv + 16)
        cap *= 2;
    int *tab = calloc(cap, sizeof *tab); /* vertex + 1, 0 empty */
    r->plink = malloc((3 * (size_t)c->nv + 1) * sizeof *r->plink);
    if (!tab || !r->plink) {
        free(tab);
        return -1;
    }
    for (int v = 0; v < c->nv; v++)
        if (r->valive[v] && (r->mask[v] & frz)) {
            size_t s = (size_t)xbits_hash(c->v + 3 * v) & (cap - 1);
            while (tab[s])
                s = (s + 1) & (cap - 1);
            tab[s] = v + 1;
        }
    for (int v = 0; v < c->nv; v++)
        for (int ax = 0; ax < 3; ax++) {
            r->plink[3 * v + ax] = -1;
            if (!r->valive[v] || !(r->mask[v] & frz & (3u << (2 * ax))))
                continue;
            double x[3];
            v3_copy(x, c->v + 3 * v);
            x[ax] = x[ax] == c->dom_lo[ax] ? c->dom_hi[ax] : c->dom_lo[ax];
            for (size_t s = (size_t)xbits_hash(x) & (cap - 1); tab[s]; s = (s + 1) & (cap - 1))
                if (memcmp(c->v + 3 * (tab[s] - 1), x, sizeof x) == 0) {
                    r->plink[3 * v + ax] = tab[s] - 1;
                    break;
                }
        }
    free(tab);
    return 0;
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
