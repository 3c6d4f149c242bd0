/* periodic_snap.c - thin caps removed before the periodic cut (internal).
 *
 * A cell crossing a box plane by less than the short-edge threshold over a
 * wide area (a wide thin cap) cannot be regularised away once cut: the
 * collapses flatten it into a wedge and removing it needs a topology change.
 * Before the cut the change is free: every tessellation vertex within d of a
 * periodic box plane lo + k L is put onto it (per axis, both sides).  A cap
 * thinner than d then has no vertex beyond the plane and yields no piece;
 * the faces it shared with the cells beyond lie on the plane and become box
 * faces of both sides (periodic.c tags them), which is the split of the
 * opposite polygon.  Moving a vertex moves it in every cell that has it, so
 * the cells still tile the space (faces bend by less than d). */
#include "config.h"
#include "mesh/periodic_internal.h"
#include "util/mathconst.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

double mesh_periodic_plane(const rve_tess *t, int a, long k)
{
    return t->lo[a] + (double)k * (t->hi[a] - t->lo[a]);
}

/* Nearest plane index of coordinate x on axis a. */
static long plane_index(const rve_tess *t, int a, double x)
{
    return lround((x - t->lo[a]) / (t->hi[a] - t->lo[a]));
}

/* Class of every cell vertex, merged modulo the period within eps. */
static int classify(const rve_tess *t, const size_t *off, double eps, int *cls, mesh_vmerge *m)
{
    if (mesh_vmerge_init(m, off[t->n]) != 0)
        return -1;
    for (int k = 0; k < t->n; k++)
        for (int i = 0; i < t->cells[k].nv; i++) {
            double r[3];
            for (int a = 0; a < 3; a++) {
                double L = t->hi[a] - t->lo[a], x = t->cells[k].v[3 * i + a];
                r[a] = x;
                if (t->periodic[a]) {
                    r[a] = x - floor((x - t->lo[a]) / L) * L;
                    if (r[a] >= t->hi[a])
                        r[a] -= L;
                    else if (r[a] < t->lo[a])
                        r[a] += L;
                }
            }
            cls[off[k] + (size_t)i] = mesh_vmerge_find(m, r, 2 * eps, eps);
        }
    return 0;
}

/* Mark the vertices of the thin caps of cell k: where it crosses a
 * periodic box plane and its part on one side lies within d of the plane
 * (the thinner side if both do), that part's vertices go onto the plane.
 * whole: instead, withdraw the rest of every cap that lost a vertex (a cap
 * half moved would be thinner, not gone); 1 if any. */
static int mark_caps(const rve_tess *t, int k, double d, const int *cls, unsigned char *snap, int whole)
{
    int changed = 0;
    const rve_tess_poly *c = &t->cells[k];
    for (int a = 0; a < 3; a++) {
        if (!t->periodic[a] || c->nv == 0)
            continue;
        double mn = INFINITY, mx = -INFINITY;
        for (int i = 0; i < c->nv; i++) {
            mn = fmin(mn, c->v[3 * i + a]);
            mx = fmax(mx, c->v[3 * i + a]);
        }
        for (long g = plane_index(t, a, mn); g <= plane_index(t, a, mx); g++) {
            double P = mesh_periodic_plane(t, a, g), lo = P - mn, hi = mx - P;
            if (!(lo > 0 && hi > 0) || fmin(lo, hi) > d)
                continue;
            int up = hi <= lo, all = 1; /* the cap is above the plane */
            unsigned char bit = (unsigned char)(1u << a);
            for (int i = 0; i < c->nv && whole && all; i++) {
                double x = c->v[3 * i + a];
                all = !(up ? x > P : x < P) || (snap[cls[i]] & bit);
            }
            for (int i = 0; i < c->nv; i++) {
                double x = c->v[3 * i + a];
                if (!(up ? x > P : x < P))
                    continue;
                if (!whole)
                    snap[cls[i]] |= bit;
                else if (!all && (snap[cls[i]] & bit)) {
                    snap[cls[i]] &= (unsigned char)~bit;
                    changed = 1;
                }
            }
        }
    }
    return changed;
}

/* 0 if face f of cell c (coordinates sv) meets plane x[a] = P as the clip
 * can read it, 1 if not (see withdraw); mn, mx: the cell's extent. */
static int face_meets_plane_bad(const rve_tess_poly *c, int f, const double *sv, int a, double P, double mn,
                               double mx)
{
    int a0 = c->foff[f], n = c->foff[f + 1] - a0, zeros = 0, runs = 0, cross = 0, run = 0, maxrun = 0;
    int neg = 0, pos = 0;
    for (int j = 0; j < n; j++) {
        double x = sv[3 * c->floop[a0 + j] + a] - P, y = sv[3 * c->floop[a0 + (j + 1) % n] + a] - P;
        zeros += x == 0;
        neg |= x < 0;
        pos |= x > 0;
        runs += x != 0 && y == 0;
        cross += x * y < 0;
    }
    if (zeros == n)
        return mn < P && P < mx; /* flat on a plane the cell crosses */
    for (int j = 0; j < 2 * n; j++) { /* longest run of on-plane vertices, cyclic */
        run = sv[3 * c->floop[a0 + j % n] + a] == P ? run + 1 : 0;
        maxrun = run > maxrun ? run : maxrun;
    }
    return runs + cross > 2 || (maxrun >= 2 && neg && pos);
}

/* Withdraw the snaps of cell k on axis a that would flatten it (all its
 * vertices on one plane) or leave a face on a plane it crosses; 1 if any. */
static int withdraw(const rve_tess *t, int k, int a, const double *sv, const int *cls,
                    unsigned char *snap)
{
    const rve_tess_poly *c = &t->cells[k];
    double mn = INFINITY, mx = -INFINITY;
    for (int i = 0; i < c->nv; i++) {
        mn = fmin(mn, sv[3 * i + a]);
        mx = fmax(mx, sv[3 * i + a]);
    }
    int changed = 0;
    unsigned char bit = (unsigned char)(1u << a);
    if (mn == mx) {
        for (int i = 0; i < c->nv; i++)
            if (snap[cls[i]] & bit) {
                snap[cls[i]] &= (unsigned char)~bit;
                changed = 1;
            }
        return changed;
    }
    /* per face and plane: all its vertices on the plane (flat; allowed where
     * the cell only touches the plane), or a meeting the clip reads as a
     * planar face's: at most two contacts (runs of on-plane vertices and
     * crossing edges), and an on-plane edge only on a face that keeps to
     * one side */
    for (int f = 0; f < c->nf; f++) {
        for (int j0 = c->foff[f]; j0 < c->foff[f + 1]; j0++) {
            int i0 = c->floop[j0];
            if (!(snap[cls[i0]] & bit))
                continue;
            double P = sv[3 * i0 + a];
            if (!face_meets_plane_bad(c, f, sv, a, P, mn, mx))
                continue;
            for (int j = c->foff[f]; j < c->foff[f + 1]; j++)
                if (sv[3 * c->floop[j] + a] == P)
                    snap[cls[c->floop[j]]] &= (unsigned char)~bit;
            changed = 1;
            break;
        }
    }
    return changed;
}

/* Withdraw every snap of the vertices of a face of cell k that would be
 * folded onto the box planes: each vertex on some plane, no plane holding
 * them all (a face across a box edge); 1 if any. */
static int unfold(const rve_tess *t, int k, const double *sv, const int *cls, unsigned char *snap)
{
    const rve_tess_poly *c = &t->cells[k];
    int changed = 0;
    for (int f = 0; f < c->nf; f++) {
        int all = 1, common = 0;
        for (int j = c->foff[f]; j < c->foff[f + 1] && all; j++)
            all = snap[cls[c->floop[j]]] != 0;
        for (int a = 0; a < 3 && all && !common; a++) {
            double P = sv[3 * c->floop[c->foff[f]] + a];
            common = 1;
            for (int j = c->foff[f]; j < c->foff[f + 1] && common; j++)
                common = (snap[cls[c->floop[j]]] >> a & 1) && sv[3 * c->floop[j] + a] == P;
        }
        if (!all || common)
            continue;
        for (int j = c->foff[f]; j < c->foff[f + 1]; j++)
            snap[cls[c->floop[j]]] = 0;
        changed = 1;
    }
    return changed;
}

/* Withdraw every snap of the vertices of cell k if the snap folds it: a
 * tetrahedron of its centroid, a face edge and the face's vertex mean
 * without positive volume (the fans of a convex cell all have it); 1 if any. */
static int unfold_cell(const rve_tess *t, int k, const double *sv, const int *cls, unsigned char *snap)
{
    const rve_tess_poly *c = &t->cells[k];
    const double *o = c->centroid;
    int bad = 0, moved = 0;
    for (int i = 0; i < c->nv && !moved; i++)
        moved = snap[cls[i]] != 0;
    for (int f = 0; f < c->nf && moved && !bad; f++) {
        int a0 = c->foff[f], n = c->foff[f + 1] - a0;
        double m[3] = {0, 0, 0};
        for (int j = 0; j < n; j++)
            for (int a = 0; a < 3; a++)
                m[a] += sv[3 * c->floop[a0 + j] + a] / n;
        for (int j = 0; j < n && !bad; j++) {
            const double *p = sv + 3 * c->floop[a0 + j], *q = sv + 3 * c->floop[a0 + (j + 1) % n];
            double u[3], w[3], x[3], r[3];
            v3_sub(u, p, o);
            v3_sub(w, q, o);
            v3_sub(r, m, o);
            v3_cross(x, w, r);
            bad = !(v3_dot(u, x) > 0);
        }
    }
    if (!bad)
        return 0;
    for (int i = 0; i < c->nv; i++)
        snap[cls[i]] = 0;
    return 1;
}

/* Withdraw the snaps of the vertices of every face of cell k that the snap
 * bends by more than SNAP_MAX_BEND_DEG, measured as the regularisation
 * measures a face's bend: atan(h / r), h the largest distance of a vertex
 * from the plane through the vertex mean along the vector area, r the
 * radius of a disc of the face's area (a face moved whole onto a box plane
 * turns but stays flat).  The collapses keep every face within max_angle
 * (default 20 deg); a snap past it would leave them stuck.  1 if any. */
#define SNAP_MAX_BEND_DEG 10.0
static int unbend(const rve_tess *t, int k, const double *sv, const int *cls, unsigned char *snap)
{
    const rve_tess_poly *c = &t->cells[k];
    int changed = 0;
    for (int f = 0; f < c->nf; f++) {
        int a0 = c->foff[f], n = c->foff[f + 1] - a0, moved = 0;
        for (int j = 0; j < n && !moved; j++)
            moved = snap[cls[c->floop[a0 + j]]] != 0;
        if (!moved)
            continue;
        double N[3] = {0, 0, 0}, m[3] = {0, 0, 0}, h = 0;
        for (int j = 0; j < n; j++) { /* Newell vector area */
            const double *p = sv + 3 * c->floop[a0 + j], *q = sv + 3 * c->floop[a0 + (j + 1) % n];
            N[0] += (p[1] - q[1]) * (p[2] + q[2]);
            N[1] += (p[2] - q[2]) * (p[0] + q[0]);
            N[2] += (p[0] - q[0]) * (p[1] + q[1]);
            for (int a = 0; a < 3; a++)
                m[a] += sv[3 * c->floop[a0 + j] + a] / n;
        }
        double area = 0.5 * v3_normalize(N);
        for (int j = 0; j < n; j++) {
            double u[3];
            v3_sub(u, sv + 3 * c->floop[a0 + j], m);
            h = fmax(h, fabs(v3_dot(u, N)));
        }
        if (area > 0 && atan2(h, sqrt(area / M_PI)) <= SNAP_MAX_BEND_DEG * M_PI / 180)
            continue;
        for (int j = 0; j < n; j++)
            snap[cls[c->floop[a0 + j]]] = 0;
        changed = 1;
    }
    return changed;
}

/* Coordinates of cell k with the current decisions. */
static void place(const rve_tess *t, int k, const int *cls, const unsigned char *snap, double *sv)
{
    const rve_tess_poly *c = &t->cells[k];
    for (int i = 0; i < c->nv; i++)
        for (int a = 0; a < 3; a++) {
            double x = c->v[3 * i + a];
            sv[3 * i + a] = snap[cls[i]] >> a & 1 ? mesh_periodic_plane(t, a, plane_index(t, a, x)) : x;
        }
}

int mesh_periodic_snap(const rve_tess *t, double d, double eps, double **sv_out, size_t **off_out,
                       int *nsnap)
{
    size_t *off = malloc(((size_t)t->n + 1) * sizeof *off);
    if (!off)
        return -1;
    off[0] = 0;
    for (int k = 0; k < t->n; k++)
        off[k + 1] = off[k] + (size_t)t->cells[k].nv;
    double *sv = malloc((3 * off[t->n] + 1) * sizeof *sv);
    int *cls = malloc((off[t->n] + 1) * sizeof *cls);
    mesh_vmerge m = {0};
    unsigned char *snap = NULL;
    int rc = !sv || !cls ? -1 : 0;
    *nsnap = 0;
    if (rc == 0 && d > 0 && classify(t, off, eps, cls, &m) != 0)
        rc = -1;
    if (rc == 0 && d > 0 && !(snap = calloc((size_t)m.ncls + 1, 1)))
        rc = -1;
    for (int k = 0; rc == 0 && d > 0 && k < t->n; k++)
        mark_caps(t, k, d, cls + off[k], snap, 0);
    /* withdrawals only clear decisions, so this settles; bounded anyway,
     * and a complex that does not settle is cut unsnapped */
    int changed = 1;
    for (int pass = 0; rc == 0 && d > 0 && pass < 64 && changed; pass++) {
        changed = 0;
        for (int k = 0; k < t->n; k++) {
            place(t, k, cls + off[k], snap, sv + 3 * off[k]);
            for (int a = 0; a < 3; a++)
                if (t->periodic[a])
                    changed |= withdraw(t, k, a, sv + 3 * off[k], cls + off[k], snap);
            changed |= unfold(t, k, sv + 3 * off[k], cls + off[k], snap);
            changed |= unfold_cell(t, k, sv + 3 * off[k], cls + off[k], snap);
            changed |= unbend(t, k, sv + 3 * off[k], cls + off[k], snap);
            changed |= mark_caps(t, k, d, cls + off[k], snap, 1); /* a cap goes whole or stays */
        }
    }
    if (rc == 0 && d > 0 && changed)
        memset(snap, 0, (size_t)m.ncls);
    for (int k = 0; rc == 0 && k < t->n; k++) {
        if (d > 0)
            place(t, k, cls + off[k], snap, sv + 3 * off[k]);
        else
            memcpy(sv + 3 * off[k], t->cells[k].v, (size_t)(3 * t->cells[k].nv) * sizeof *sv);
    }
    for (int c = 0; rc == 0 && d > 0 && c < m.ncls; c++)
        *nsnap += snap[c] != 0;
    mesh_vmerge_free(&m);
    free(cls);
    free(snap);
    if (rc != 0) {
        free(sv);
        free(off);
        return rc;
    }
    *sv_out = sv;
    *off_out = off;
    return 0;
}
