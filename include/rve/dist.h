/* rve/dist.h - distance and contact kernels: GJK with signed volumes, shapes, penetration depth, contacts. */
#ifndef RVE_DIST_H
#define RVE_DIST_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================= distance (issue 3) */

/* ============================================ contact kernels (issue 4) */
/* Overlapping convex bodies: signed distance, contact normal and points.
 * Conventions shared by every kernel below:
 *   s > 0  separation distance, s < 0 penetration depth (-depth), s = 0 touching;
 *   n      unit normal from A to B;
 *   p, q   a point on A's surface and one on B's surface with q - p = s n
 *          (for common-plane methods, p and q lie on the contact features). */
typedef struct {
    double s;
    double n[3];
    double p[3];
    double q[3];
    int iterations; /* main-loop iterations spent (kernel-specific meaning) */
} rve_contact;

/* A convex polyhedron for the contact kernels: the convex hull of a point set
 * (qhull, coplanar facets merged), with planar faces, edges and adjacency.
 * Read-only after creation; safe to share between threads. */
typedef struct {
    size_t nv, nf, ne;
    double *v;          /* nv x 3 vertices */
    double *plane;      /* nf x 4: outward unit normal and offset d (n.x <= d inside) */
    size_t *fstart;     /* nf + 1 offsets into fvert */
    size_t *fvert;      /* vertices of each face, counter-clockwise seen from outside */
    size_t *edge;       /* ne x 2 vertex indices */
    size_t *eface;      /* ne x 2 faces sharing the edge; edge[0] -> edge[1] runs
                           counter-clockwise around eface[0] */
    size_t *vstart;     /* nv + 1 offsets into vedge */
    size_t *vedge;      /* edges incident to each vertex */
    double centroid[3]; /* centre of mass (uniform density) */
    double volume;
    double radius;      /* largest distance from the centroid to a vertex */
} rve_polyhedron;

/* Hull of n points (x,y,z triples). RVE_EDATA for fewer than 4 points,
 * non-finite coordinates or a flat (zero-volume) set. */
rve_status rve_polyhedron_alloc(rve_polyhedron **out, const double *pts, size_t n, rve_err *err);
/* Copy moved by the rigid motion x -> R(q) x + t (q unit quaternion w,x,y,z; NULL = identity). */
rve_status rve_polyhedron_transform(rve_polyhedron **out, const rve_polyhedron *P, const double q[4],
                                    const double t[3], rve_err *err);
void rve_polyhedron_free(rve_polyhedron *P);
/* Support point: a vertex maximising d.x. */
void rve_polyhedron_support(const rve_polyhedron *P, const double d[3], double out[3]);

/* Penetration depth and normal of two convex polyhedra by a common plane:
 * Descantes' revised Cundall algorithm (three starts, orientation perturbation
 * from tan 5 deg down to tan 1e-7 deg) or revised Nezami fast common plane.
 * Both also return the separation distance of disjoint polyhedra. Bounded
 * loops; RVE_ECAP if a cap was reached (out holds the best plane found). */
rve_status rve_contact_cundall(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out,
                               rve_err *err);
rve_status rve_contact_nezami(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out,
                              rve_err *err);

/* Witness points for a known normal: given n (A to B), finds the support
 * features of A along n and of B along -n and puts p, q at the centroid of the
 * overlap of their projections (s = gap along n). */
void rve_contact_witness(const rve_polyhedron *A, const rve_polyhedron *B, const double n[3],
                         rve_contact *c);


#ifdef __cplusplus
}
#endif
#endif
