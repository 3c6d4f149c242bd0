/* contact_oracle.h - exact reference answers for convex polytope pairs, independent of
 * the library's kernels (own qhull call, long double arithmetic). Used by the tests
 * and the contact benchmark.
 *
 * Penetration depth of overlapping convex polytopes A, B is min over unit n of
 * h(n) = max_{a in A} n.a - min_{b in B} n.b, attained at a facet normal of A - B:
 * a face normal of A, of B, or the cross product of an edge of A and an edge of B
 * whose arcs cross on the Gauss map (the separating-axis candidates).  Every
 * candidate gives an upper bound, so keeping extra candidates is harmless; the
 * Gauss-map test is therefore applied with a conservative tolerance.  Separation
 * distance of disjoint polytopes comes from brute force over vertex-face and
 * edge-edge feature pairs. */
#ifndef RVE_CONTACT_ORACLE_H
#define RVE_CONTACT_ORACLE_H

#include <stddef.h>

typedef struct {
    size_t nv, nf, ne;
    long double *v;   /* nv x 3 */
    long double *fn;  /* nf x 3 outward unit face normals */
    size_t *ftri;     /* nt x 3 triangles (fan of each face) */
    size_t nt;
    size_t *fstart, *fvert; /* faces as vertex loops */
    size_t *edge;     /* ne x 2 vertex indices */
    size_t *eface;    /* ne x 2 faces */
} oracle_poly;

typedef struct {
    long double s;     /* signed distance: > 0 separation, < 0 -depth */
    long double n[3];  /* unit normal from A to B (penetration: argmin of h) */
    int unique;        /* 1 if the normal is unique (next candidate clearly worse) */
    int kind;          /* winning candidate: 0 face of A, 1 face of B, 2 edge pair, -1 separated */
    size_t ncand;      /* candidates evaluated */
} oracle_result;

/* Hull of n points; returns 0 on success. */
int oracle_poly_build(oracle_poly *P, const double *pts, size_t n);
void oracle_poly_free(oracle_poly *P);
/* Signed distance and normal. brute = 1 evaluates every edge pair (no Gauss-map pruning). */
void oracle_contact(const oracle_poly *A, const oracle_poly *B, int brute, oracle_result *r);
/* h(n) in long double for a unit direction n (support of A - B). */
long double oracle_h(const oracle_poly *A, const oracle_poly *B, const long double n[3]);
/* Inside test of a point (1 inside or on the boundary within tol). */
int oracle_inside(const oracle_poly *P, const long double x[3], long double tol);

#endif
