/* periodic_internal.h - helpers of the periodic box complex (internal). */
#ifndef RVE_MESH_PERIODIC_INTERNAL_H
#define RVE_MESH_PERIODIC_INTERNAL_H

#include <rve/tess.h>
#include <stddef.h>
#include <stdint.h>

/* Points merged within eps: a hash of grid cells of size h = 2 eps (a
 * point's partners within eps lie in the 27 cells around it); every class
 * keeps the coordinates of its first point (periodic_vmerge.c). */
typedef struct {
    int64_t *key; /* 3 per slot */
    int *head;    /* first class in the slot's chain, -1 empty */
    size_t cap;
    int *next;    /* per class: next class in the same grid cell */
    double *rep;  /* per class: coordinates */
    int ncls;
} mesh_vmerge;

/* Room for n points; 0, or -1 out of memory (m is then freed). */
int mesh_vmerge_init(mesh_vmerge *m, size_t n);
void mesh_vmerge_free(mesh_vmerge *m);
/* Class of point x (a new one if no class lies within eps in every coordinate). */
int mesh_vmerge_find(mesh_vmerge *m, const double x[3], double h, double eps);

/* A polyhedron being cut: vertex loops, counter-clockwise seen from
 * outside, and per face the domain plane it lies on (-1 inside the box);
 * capacities cv, cf, cfv (periodic_clip.c). */
typedef struct {
    int nv, nf, nfv;
    int cv, cf, cfv;
    double *v;
    int *foff, *fv, *fdom;
} mesh_cpoly;

void mesh_cpoly_free(mesh_cpoly *p);
/* Make room for nv vertices, nf faces and nfv incidences; -1 out of memory. */
int mesh_cpoly_reserve(mesh_cpoly *p, int nv, int nf, int nfv);
/* Keep the part of in where x[axis] >= P (ge) or <= P (!ge) into out; the
 * section faces on the plane get domain plane dom.  Returns 0, -1 out of
 * memory, -2 a section whose boundary is not a set of simple loops. */
int mesh_cpoly_clip(const mesh_cpoly *in, mesh_cpoly *out, int axis, double P, int ge, int dom);

/* The box plane lo + k L of axis a (the one expression every caller uses,
 * so that points put on a plane compare equal to it). */
double mesh_periodic_plane(const rve_tess *t, int a, long k);

/* The cell vertices of periodic t with every vertex within d of a periodic
 * box plane lo + k L put onto it, per axis (periodic_snap.c): *sv receives
 * 3 sum(nv) coordinates, cell k's from 3 (*off)[k].  The decision is taken
 * once per vertex (its copies in different cells, merged within eps modulo
 * the period, move alike), and is withdrawn for the vertices of a cell
 * that would lose its volume or keep a face on a plane it crosses.
 * *nsnap counts the vertex classes moved.  d <= 0 copies.  0, or -1 out of
 * memory. */
int mesh_periodic_snap(const rve_tess *t, double d, double eps, double **sv, size_t **off, int *nsnap);

/* The window of a periodic tessellation (periodic_shift.c): per periodic
 * axis, the shift of the box planes (in [0, L)) that maximises the smallest
 * angle between a cell face the planes cut and the planes, or of a cap
 * thinner than thr they leave (angle[a], degrees; 90 when none binds;
 * angle[3 + a] the same for the box as given); 0 on other axes.  -1 when
 * out of memory. */
int mesh_periodic_shift(const rve_tess *t, double thr, double shift[3], double angle[6]);

#endif
