/* periodic_shift.c - where the box of a periodic tessellation goes (internal).
 *
 * A periodic microstructure has no preferred window: any translate of the box
 * is the same RVE.  The window decides which cell faces the box planes cut,
 * and a face cut at a shallow angle theta (its plane within theta of the box
 * plane) leaves, on one side of the cut, a piece with a dihedral angle theta
 * at the box face: a thin wedge (a wide thin cap) that no vertex move can
 * open and that forces flat tetrahedra (docs/periodic.md, "Measured").  Per
 * periodic axis (the axes are independent: a plane normal to x cuts the same
 * faces whatever the y and z planes do), the shift chosen maximises the
 * smallest angle over the faces the plane cuts and over the flat caps it
 * leaves (a piece thinner than the short-edge threshold, depth d over a
 * section of diameter D: angle atan(2 d / D)), on a grid of
 * MESH_SHIFT_GRID positions over the period; among the positions reaching it,
 * the middle of the longest run (the farthest from the faces that bind it). */
#include "config.h"
#include "mesh/periodic_internal.h"
#include "util/mathconst.h"
#include <math.h>
#include <stdlib.h>

#define MESH_SHIFT_GRID 4096
#define MESH_SHIFT_MAXDEG 45.0 /* steeper faces never bind */

/* Smallest angle (degrees) between face f of cell c and the planes normal
 * to axis a; the face's extent along a in *mn, *mx. */
static double face_angle(const rve_tess_poly *c, int f, int a, double *mn, double *mx)
{
    double n[3] = {0, 0, 0};
    int i0 = c->foff[f], m = c->foff[f + 1] - i0;
    *mn = INFINITY;
    *mx = -INFINITY;
    for (int i = 0; i < m; i++) {
        const double *p = c->v + 3 * c->floop[i0 + i], *q = c->v + 3 * c->floop[i0 + (i + 1) % m];
        n[0] += (p[1] - q[1]) * (p[2] + q[2]); /* Newell's normal */
        n[1] += (p[2] - q[2]) * (p[0] + q[0]);
        n[2] += (p[0] - q[0]) * (p[1] + q[1]);
        *mn = fmin(*mn, p[a]);
        *mx = fmax(*mx, p[a]);
    }
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0))
        return 90;
    return acos(fmin(1.0, fabs(n[a]) / len)) * 180.0 / M_PI;
}

/* Smallest cut angle of every grid position of axis a in J. */
static void cut_angles(const rve_tess *t, int a, float *J)
{
    double L = t->hi[a] - t->lo[a], h = L / MESH_SHIFT_GRID;
    for (int j = 0; j < MESH_SHIFT_GRID; j++)
        J[j] = 90;
    for (int k = 0; k < t->n; k++) {
        const rve_tess_poly *c = &t->cells[k];
        for (int f = 0; f < c->nf; f++) {
            double mn, mx, th = face_angle(c, f, a, &mn, &mx);
            if (th >= MESH_SHIFT_MAXDEG)
                continue;
            /* grid positions strictly inside (mn, mx) cut the face */
            double i0 = floor((mn - t->lo[a]) / h) + 1, i1 = ceil((mx - t->lo[a]) / h) - 1;
            if (i1 - i0 + 1 >= MESH_SHIFT_GRID)
                i1 = i0 + MESH_SHIFT_GRID - 1;
            for (double i = i0; i <= i1; i++) {
                double r = fmod(i, (double)MESH_SHIFT_GRID);
                int j = (int)(r < 0 ? r + MESH_SHIFT_GRID : r);
                if (th < J[j])
                    J[j] = (float)th;
            }
        }
    }
}

/* Section of cell c by the plane x_a = P: its diameter (largest distance
 * between the points where edges cross the plane). */
static double section_diameter(const rve_tess_poly *c, int a, double P, double *pt, int cap)
{
    int n = 0;
    for (int f = 0; f < c->nf; f++) {
        int i0 = c->foff[f], m = c->foff[f + 1] - i0;
        for (int i = 0; i < m && n < cap; i++) {
            int u = c->floop[i0 + i], v = c->floop[i0 + (i + 1) % m];
            if (u > v) /* each edge once (it is in two faces, both ways) */
                continue;
            const double *x = c->v + 3 * u, *y = c->v + 3 * v;
            if (!((x[a] < P && y[a] > P) || (x[a] > P && y[a] < P)))
                continue;
            double s = (P - x[a]) / (y[a] - x[a]);
            for (int b = 0; b < 3; b++)
                pt[3 * n + b] = x[b] + s * (y[b] - x[b]);
            n++;
        }
    }
    double d2 = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double e = 0;
            for (int b = 0; b < 3; b++)
                e += (pt[3 * i + b] - pt[3 * j + b]) * (pt[3 * i + b] - pt[3 * j + b]);
            d2 = fmax(d2, e);
        }
    return sqrt(d2);
}

/* Caps: where the plane leaves a piece of a cell thinner than thr (depth d
 * beyond the plane, on the thinner side) over a section of diameter D, the
 * piece is a flat cap whose angle atan(2 d / D) lowers J. */
static int cap_angles(const rve_tess *t, int a, double thr, float *J)
{
    double L = t->hi[a] - t->lo[a], h = L / MESH_SHIFT_GRID;
    int cap = 0;
    for (int k = 0; k < t->n; k++)
        cap = t->cells[k].nfv > cap ? t->cells[k].nfv : cap;
    double *pt = malloc(((size_t)cap + 1) * 3 * sizeof *pt);
    if (!pt)
        return -1;
    for (int k = 0; k < t->n; k++) {
        const rve_tess_poly *c = &t->cells[k];
        if (c->nv == 0)
            continue;
        double mn = INFINITY, mx = -INFINITY;
        for (int i = 0; i < c->nv; i++) {
            mn = fmin(mn, c->v[3 * i + a]);
            mx = fmax(mx, c->v[3 * i + a]);
        }
        double i0 = floor((mn - t->lo[a]) / h) + 1, i1 = ceil((mx - t->lo[a]) / h) - 1;
        for (double i = i0; i <= i1; i++) {
            double P = t->lo[a] + i * h, d = fmin(P - mn, mx - P);
            if (d >= thr)
                continue;
            double D = section_diameter(c, a, P, pt, cap);
            double th = D > 0 ? atan2(2 * d, D) * 180.0 / M_PI : 90;
            double r = fmod(i, (double)MESH_SHIFT_GRID);
            int j = (int)(r < 0 ? r + MESH_SHIFT_GRID : r);
            if (th < J[j])
                J[j] = (float)th;
        }
    }
    free(pt);
    return 0;
}

int mesh_periodic_shift(const rve_tess *t, double thr, double shift[3], double angle[6])
{
    float *J = malloc(MESH_SHIFT_GRID * sizeof *J);
    if (!J)
        return -1;
    for (int a = 0; a < 3; a++) {
        shift[a] = 0;
        angle[a] = angle[3 + a] = 90;
        if (!t->periodic[a])
            continue;
        cut_angles(t, a, J);
        if (cap_angles(t, a, thr, J) != 0) {
            free(J);
            return -1;
        }
        angle[3 + a] = J[0];
        float best = J[0];
        for (int j = 1; j < MESH_SHIFT_GRID; j++)
            best = J[j] > best ? J[j] : best;
        /* the longest circular run of best: start at a position below it */
        int start = 0;
        while (start < MESH_SHIFT_GRID && J[start] == best)
            start++;
        int bj = 0, blen = 0, run = 0;
        if (start == MESH_SHIFT_GRID) { /* no face binds anywhere: keep the box */
            angle[a] = best;
            continue;
        }
        for (int s = 1; s <= MESH_SHIFT_GRID; s++) {
            int j = (start + s) % MESH_SHIFT_GRID;
            run = J[j] == best ? run + 1 : 0;
            if (run > blen) {
                blen = run;
                bj = j;
            }
        }
        int mid = ((bj - (blen - 1) / 2) % MESH_SHIFT_GRID + MESH_SHIFT_GRID) % MESH_SHIFT_GRID;
        shift[a] = mid * ((t->hi[a] - t->lo[a]) / MESH_SHIFT_GRID);
        angle[a] = best;
    }
    free(J);
    return 0;
}
