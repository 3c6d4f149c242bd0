/* periodic_clip.c - a polyhedron cut by a box plane (internal).
 *
 * The cells are convex, but the thin-cap snap (periodic_snap.c) puts some of
 * their vertices onto the box planes, so a cell may touch a plane at a
 * vertex or an edge without crossing it there, and its section need not be
 * convex.  The section faces are therefore chained from the edges the kept
 * faces leave on the plane (libccd and voro++ cut the same way), not sorted
 * by angle: a kept face contributes the on-plane pair it jumps across the
 * removed part (a gap) and every edge it has on the plane that no kept face
 * shares; such edges, reversed, bound the section. */
#include "config.h"
#include "mesh/periodic_internal.h"
#include "util/mathconst.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void mesh_cpoly_free(mesh_cpoly *p)
{
    free(p->v);
    free(p->foff);
    free(p->fv);
    free(p->fdom);
    memset(p, 0, sizeof *p);
}

int mesh_cpoly_reserve(mesh_cpoly *p, int nv, int nf, int nfv)
{
    if (nv > p->cv) {
        double *x = realloc(p->v, (size_t)(3 * nv) * sizeof *x);
        if (!x)
            return -1;
        p->v = x;
        p->cv = nv;
    }
    if (nf + 1 > p->cf) {
        int *a = realloc(p->foff, (size_t)(nf + 1) * sizeof *a);
        if (a)
            p->foff = a;
        int *b = realloc(p->fdom, (size_t)(nf + 1) * sizeof *b);
        if (b)
            p->fdom = b;
        if (!a || !b)
            return -1;
        p->cf = nf + 1;
    }
    if (nfv > p->cfv) {
        int *a = realloc(p->fv, (size_t)nfv * sizeof *a);
        if (!a)
            return -1;
        p->fv = a;
        p->cfv = nfv;
    }
    return 0;
}

/* The section edges of out (pairs from, to into e, *ne of them): gaps and
 * unshared on-plane edges of the kept faces, reversed. */
static void section_edges(const mesh_cpoly *out, const unsigned char *gap, const unsigned char *onp,
                          int *e, int *ne)
{
    *ne = 0;
    for (int f = 0; f < out->nf; f++) {
        int a0 = out->foff[f], n = out->foff[f + 1] - a0;
        for (int s = 0; s < n; s++) {
            int u = out->fv[a0 + s], w = out->fv[a0 + (s + 1) % n];
            if (!onp[u] || !onp[w])
                continue;
            int shared = 0;
            for (int g = 0; g < out->nf && !gap[a0 + s] && !shared; g++) {
                int b0 = out->foff[g], m = out->foff[g + 1] - b0;
                for (int r = 0; r < m && !shared; r++)
                    shared = out->fv[b0 + r] == w && out->fv[b0 + (r + 1) % m] == u && !gap[b0 + r];
            }
            if (!shared) {
                e[2 * *ne] = w;
                e[2 * *ne + 1] = u;
                ++*ne;
            }
        }
    }
}

/* Angle of d in the plane normal to axis, counter-clockwise about sgn e_axis. */
static double plane_angle(const double *d, int axis, int sgn)
{
    return atan2(sgn * d[(axis + 2) % 3], d[(axis + 1) % 3]);
}

/* At a vertex where two section loops touch (arriving from vertex from at
 * vertex to), the unused section edge leaving to that is first clockwise
 * from the way back: it keeps the loops apart, and the section seen from
 * the other side (edges reversed, normal flipped) splits alike. */
static int pinch_next(const mesh_cpoly *out, const int *e, int ne, const char *used, int from, int to,
                      int axis, int sgn)
{
    double back[3], best = INFINITY;
    int nxt = -1;
    v3_sub(back, out->v + 3 * from, out->v + 3 * to);
    double a0 = plane_angle(back, axis, sgn);
    for (int j = 0; j < ne; j++) {
        if (used[j] || e[2 * j] != to)
            continue;
        double dj[3];
        v3_sub(dj, out->v + 3 * e[2 * j + 1], out->v + 3 * to);
        double cw = a0 - plane_angle(dj, axis, sgn); /* clockwise from back */
        if (cw <= 0)
            cw += 2 * M_PI;
        if (cw < best) {
            best = cw;
            nxt = j;
        }
    }
    return nxt;
}

/* Chain the section edges into loops, each a face on domain plane dom;
 * 0, -1 out of memory, -2 not simple loops. */
static int section_faces(mesh_cpoly *out, const int *e, int ne, int dom, int axis, int sgn)
{
    char *used = calloc((size_t)ne + 1, 1);
    int *loop = malloc(((size_t)ne + 1) * sizeof *loop);
    int rc = !used || !loop ? -1 : 0;
    for (int s = 0; s < ne && rc == 0; s++) {
        if (used[s])
            continue;
        int n = 0, cur = s, closed = 0;
        used[s] = 1;
        loop[n++] = e[2 * s];
        for (int step = 0; step < ne && rc == 0 && !closed; step++) {
            int to = e[2 * cur + 1], nxt = -1, cand = 0;
            if (to == loop[0]) {
                closed = 1;
                break;
            }
            for (int j = 0; j < ne; j++)
                if (!used[j] && e[2 * j] == to) {
                    nxt = j;
                    cand++;
                }
            if (cand > 1) /* sections touching at a vertex */
                nxt = pinch_next(out, e, ne, used, e[2 * cur], to, axis, sgn);
            if (cand == 0)
                rc = -2;
            else {
                used[nxt] = 1;
                loop[n++] = to;
                cur = nxt;
            }
        }
        if (rc == 0 && !closed)
            rc = -2;
        if (rc != 0 || n < 3)
            continue;
        if (mesh_cpoly_reserve(out, out->nv, out->nf + 1, out->nfv + n) != 0) {
            rc = -1;
            break;
        }
        memcpy(out->fv + out->nfv, loop, (size_t)n * sizeof *loop);
        out->nfv += n;
        out->fdom[out->nf++] = dom;
        out->foff[out->nf] = out->nfv;
    }
    free(used);
    free(loop);
    return rc;
}

typedef struct {
    int i, j, k; /* edge i-j (i < j) cut at new vertex k */
} ecut;

/* The cut vertex of edge i-j (i inside, j beyond or the reverse), made once. */
static int cut_vertex(const mesh_cpoly *in, mesh_cpoly *out, ecut *cuts, int *ncut, int i, int j, int axis,
                      double P)
{
    int lo = i < j ? i : j, hi = i < j ? j : i;
    for (int c = 0; c < *ncut; c++)
        if (cuts[c].i == lo && cuts[c].j == hi)
            return cuts[c].k;
    const double *a = in->v + 3 * lo, *b = in->v + 3 * hi;
    double t = (P - a[axis]) / (b[axis] - a[axis]);
    int k = out->nv++;
    double *x = out->v + 3 * k;
    for (int c = 0; c < 3; c++)
        x[c] = a[c] + t * (b[c] - a[c]);
    x[axis] = P; /* on the plane exactly */
    cuts[*ncut].i = lo;
    cuts[*ncut].j = hi;
    cuts[(*ncut)++].k = k;
    return k;
}

int mesh_cpoly_clip(const mesh_cpoly *in, mesh_cpoly *out, int axis, double P, int ge, int dom)
{
    int nv = in->nv, nf = in->nf, ncut = 0;
    out->nv = out->nf = out->nfv = 0;
    /* at most one new vertex per edge (nfv / 2 edges) */
    int cv = nv + in->nfv / 2 + 1, cfv = in->nfv * 2 + 64;
    if (mesh_cpoly_reserve(out, cv, nf + 1, cfv) != 0)
        return -1;
    int *map = malloc((size_t)(nv + 1) * sizeof *map), *e = malloc((size_t)(2 * cfv) * sizeof *e);
    ecut *cuts = malloc((size_t)(in->nfv / 2 + 1) * sizeof *cuts);
    double *d = malloc((size_t)(nv + 1) * sizeof *d);
    unsigned char *gap = calloc((size_t)cfv, 1), *onp = calloc((size_t)cv, 1);
    int rc = !map || !e || !cuts || !d || !gap || !onp ? -1 : 0;
    for (int i = 0; i < nv && rc == 0; i++) {
        d[i] = ge ? P - in->v[3 * i + axis] : in->v[3 * i + axis] - P; /* inside: d <= 0 */
        map[i] = -1;
    }
    for (int f = 0; f < nf && rc == 0; f++) {
        int a0 = in->foff[f], n = in->foff[f + 1] - a0, start = out->nfv, off_plane = 0;
        out->foff[out->nf] = start;
        for (int s = 0; s < n; s++) {
            int i = in->fv[a0 + s], j = in->fv[a0 + (s + 1) % n];
            if (d[i] <= 0) {
                off_plane |= d[i] < 0;
                if (map[i] < 0) {
                    map[i] = out->nv++;
                    v3_copy(out->v + 3 * map[i], in->v + 3 * i);
                    onp[map[i]] = d[i] == 0;
                }
                gap[out->nfv] = 0;
                out->fv[out->nfv++] = map[i];
            }
            if ((d[i] < 0 && d[j] > 0) || (d[i] > 0 && d[j] < 0)) {
                int k = cut_vertex(in, out, cuts, &ncut, i, j, axis, P);
                onp[k] = 1;
                gap[out->nfv] = 0;
                out->fv[out->nfv++] = k;
            }
            if (d[j] > 0 && out->nfv > start)
                gap[out->nfv - 1] = 1; /* the loop jumps the removed part from here */
        }
        /* a face whose kept part lies on the plane (its other vertices
         * beyond, none inside) is covered by the section */
        if (out->nfv - start >= 3 && off_plane)
            out->fdom[out->nf++] = in->fdom[f];
        else
            out->nfv = start;
    }
    if (rc == 0) {
        out->foff[out->nf] = out->nfv;
        int ne = 0;
        if (out->nf > 0) {
            section_edges(out, gap, onp, e, &ne);
            rc = section_faces(out, e, ne, dom, axis, ge ? -1 : 1);
        }
    }
    if (rc == 0 && out->nf < 4) /* nothing (or a sliver of no volume) on this side */
        out->nf = out->nfv = out->nv = 0;
    free(map);
    free(e);
    free(cuts);
    free(d);
    free(gap);
    free(onp);
    return rc;
}
