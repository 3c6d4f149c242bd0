/* rve/dist.h - distance and contact kernels: GJK with signed volumes, shapes, penetration depth, contacts. */
#ifndef RVE_DIST_H
#define RVE_DIST_H

#include <rve/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================= distance */
/* Exact distance between convex bodies: GJK (Montanari 2017, Algorithm 5)
 * with the Signed Volumes sub-algorithm (S1D/S2D/S3D), or Johnson's
 * sub-algorithm for comparison.  Every query is allocation-free,
 * re-entrant and thread-safe: the shapes are read-only, all state lives in
 * the caller's rve_gjk_simplex / rve_dist_result.
 *
 * Conventions: distances in the units of the coordinates; a pose maps body
 * coordinates x to world coordinates pos + R(quat) x, quat = (w, x, y, z)
 * a unit quaternion.  Witness points p (on A) and q (on B) are in world
 * coordinates, |p - q| = d; intersecting bodies give d = 0 and p = q a
 * common point. */

typedef enum {
    RVE_SHAPE_POINT = 0,    /* v[0] */
    RVE_SHAPE_SEGMENT,      /* v[0], v[1] */
    RVE_SHAPE_TRIANGLE,     /* v[0..2] */
    RVE_SHAPE_TETRA,        /* v[0..3] */
    RVE_SHAPE_POLYTOPE,     /* convex hull of verts[0..3nv-1] */
    RVE_SHAPE_SPHERE,       /* centre v[0] (body frame), radius in `radius` */
    RVE_SHAPE_BOX,          /* half extents axes[0..2] */
    RVE_SHAPE_ELLIPSOID,    /* semi-axes axes[0..2] */
    RVE_SHAPE_SUPERQUADRIC  /* (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1 <= 1, n1, n2 >= 2 */
} rve_shape_kind;

/* Optional vertex adjacency of a polytope (edges of its convex hull, built
 * with qhull) for hill-climbing support queries on large polytopes (ignored
 * for polytopes of at most 32 vertices, where a brute-force scan is faster).
 * Neighbours of vertex i: nbr[off[i] .. off[i+1]-1]; vertices that are not
 * on the hull have none.  `start` is a hull vertex.  `dir` holds the
 * vertices extreme along the 6 axis directions (+x, -x, +y, -y, +z, -z) and
 * the 8 diagonals (octant o: sign bits x 1, y 2, z 4 set for negative),
 * where a climb may start (ndir = 14; 0 when not filled in, as in a graph
 * assembled by hand: climbs then start from the previous support vertex).
 * The table holds for the vertices it was built from: dir_at is vertex
 * dir[0] then, and a vertex array where dir[0] is elsewhere (the same
 * graph on rotated or moved copies) climbs without it.  dir_mid is the
 * middle of the extremes' box: a previous vertex on d's side of it is
 * kept as the start. */
typedef struct {
    int nv;
    int *off;   /* nv + 1 entries */
    int *nbr;
    int start;
    int ndir;
    int dir[14];
    double dir_at[3];
    double dir_mid[3];
} rve_poly_graph;

/* Builds the hull edge graph of nv points (nv*3 doubles).  Flat or
 * degenerate point sets (coplanar, collinear, fewer than 4 points) give
 * RVE_EDATA: use the polytope without a graph then (brute-force support). */
rve_status rve_poly_graph_build(const double *verts, int nv, rve_poly_graph *g, rve_err *err);
void rve_poly_graph_free(rve_poly_graph *g);

/* A convex shape.  The caller owns it (and the vertex array it points to);
 * fill it with the constructors below, then optionally set a pose and a
 * rounding radius. */
typedef struct {
    /* what a polytope query reads first, together (two or three cache
     * lines of a shape in an array, not five) */
    rve_shape_kind kind;
    int rotated;             /* 0 when quat is the identity (set by rve_shape_set_pose) */
    int nv;
    double radius;           /* sphere radius, or the rounding radius of any other kind */
    const double *verts;     /* polytope: nv * 3 coordinates (body frame), caller-owned */
    const rve_poly_graph *graph; /* optional, may be NULL */
    const double *mid_of;    /* the vertex array mid belongs to (a shape pointed at other
                                vertices takes its middle per query: only speed differs) */
    double pos[3];           /* world position of the body origin */
    double mid[3];           /* polytope: the middle of (a sample of) its vertices' box, GJK's
                                first direction; taken once per shape by rve_shape_polytope */
    double R[9];             /* rotation matrix of quat, row-major (set by rve_shape_set_pose
                                once per pose, not per query) */
    double quat[4];          /* unit quaternion (w, x, y, z), body -> world */
    double v[4][3];          /* point / segment / triangle / tetrahedron vertices, sphere centre */
    double axes[3];          /* box half extents, ellipsoid / superquadric semi-axes */
    double n1, n2;           /* superquadric exponents */
    double *owned;           /* storage allocated by rve_shape_parse (freed by rve_shape_free) */
} rve_shape;

/* Constructors: identity pose, zero rounding radius.  Vertices are body
 * coordinates (= world coordinates until a pose is set). */
void rve_shape_point(rve_shape *s, const double p[3]);
void rve_shape_segment(rve_shape *s, const double a[3], const double b[3]);
void rve_shape_triangle(rve_shape *s, const double a[3], const double b[3], const double c[3]);
void rve_shape_tetra(rve_shape *s, const double a[3], const double b[3], const double c[3],
                     const double d[3]);
/* verts is NOT copied; graph may be NULL. */
void rve_shape_polytope(rve_shape *s, const double *verts, int nv, const rve_poly_graph *graph);
void rve_shape_sphere(rve_shape *s, const double centre[3], double r);
void rve_shape_box(rve_shape *s, double hx, double hy, double hz);
void rve_shape_ellipsoid(rve_shape *s, double a, double b, double c);
void rve_shape_superquadric(rve_shape *s, double a, double b, double c, double n1, double n2);
/* Pose: quat is normalised here (it must be non-zero). */
void rve_shape_set_pose(rve_shape *s, const double pos[3], const double quat[4]);
/* Grow the shape by a sphere of radius r >= 0 (a rounded shape). */
void rve_shape_set_radius(rve_shape *s, double r);
/* RVE_EDATA (message in err) for NaN/inf, negative sizes, n1 or n2 < 2,
 * empty polytopes, non-unit quaternions. */
rve_status rve_shape_check(const rve_shape *s, rve_err *err);
/* World-frame support point of s in direction d (rounding radius included). */
void rve_shape_support(const rve_shape *s, const double d[3], double out[3]);
/* Frees what rve_shape_parse allocated (safe on any shape). */
void rve_shape_free(rve_shape *s);

/* Shape text (shared by `rve dist`, `rve contact`, `rve pack`): whitespace-
 * separated tokens, '#' comments to the end of the line.
 *   point x y z | sphere cx cy cz r | box cx cy cz hx hy hz qw qx qy qz |
 *   ellipsoid cx cy cz a b c qw qx qy qz |
 *   superquadric cx cy cz a b c n1 n2 qw qx qy qz | poly n x1 y1 z1 ... xn yn zn
 * rve_shape_parse reads one shape at *cursor and advances it.  On a
 * malformed shape it returns RVE_EDATA with err->msg naming the offending
 * token, e.g. "bad token 'x' (sphere radius: expected a number)".
 * A `poly` allocates its vertices (s->owned): call rve_shape_free. */
rve_status rve_shape_parse(const char **cursor, rve_shape *s, rve_err *err);
/* Skips blanks and comments; returns 1 when only those remain. */
int rve_shape_text_end(const char **cursor);
/* One query of `rve dist` / `rve contact`: two shapes in a row, each parsed
 * and checked (rve_shape_check). On failure the caller still frees both. */
rve_status rve_shape_parse_pair(const char **cursor, rve_shape *a, rve_shape *b, rve_err *err);

/* Sub-algorithm of GJK. */
typedef enum { RVE_SUB_SV = 0, RVE_SUB_JOHNSON = 1 } rve_gjk_sub;

/* Outcome of a query. */
typedef enum {
    RVE_GJK_CONVERGED = 0,  /* separated (or touching): d and witnesses exact to rounding */
    RVE_GJK_INTERSECT = 1,  /* the bodies overlap (or touch within rounding): d = 0, p = q */
    RVE_GJK_CAP = 2,        /* iteration cap reached: best estimate returned */
    RVE_GJK_DEGENERATE = 3, /* bad input (NaN/inf coordinates, empty polytope): d = NaN */
    RVE_GJK_RANGE = 4       /* the distance exceeds DBL_MAX: d = inf, p and q are the
                               witnesses (finite) */
} rve_gjk_status;
const char *rve_gjk_status_name(rve_gjk_status s);

/* Options; NULL means the defaults (SV, cap 1000, tolerances below). */
typedef struct {
    rve_gjk_sub sub;
    int max_iter;     /* 0: default 1000 */
    double eps_rel;   /* stop when |v|^2 - v.w <= eps_rel |v|^2 (or <= 16 DBL_EPSILON |v|
                         max|w|, the rounding of v.w); 0: default 4 DBL_EPSILON */
    double eps_abs;   /* contact when |v| <= eps_abs max|y|; 0: default 4 DBL_EPSILON */
} rve_gjk_opts;
void rve_gjk_opts_default(rve_gjk_opts *o);

/* Warm start kept by the caller between queries on (nearly) the same pair
 * (spatial coherence).  Zero it (or rve_gjk_simplex_init) before the first
 * query; each query reads and updates it.  For vertex-based shapes (point
 * .. tetrahedron, polytope) it stores the vertex indices of the last
 * simplex, else the last separating direction. 64 bytes. */
typedef struct {
    int n;            /* vertices kept, 0 = cold start */
    int ia[4], ib[4]; /* vertex indices on A and B (-1: not vertex-based) */
    double v[3];      /* last separating vector (on A minus on B) */
} rve_gjk_simplex;
void rve_gjk_simplex_init(rve_gjk_simplex *w);

typedef struct {
    double d;              /* distance >= 0 (NaN only for RVE_GJK_DEGENERATE) */
    double p[3], q[3];     /* witnesses on A and on B (world frame) */
    rve_gjk_status status;
    int iterations;
    /* Final simplex of the cores (radii excluded), for EPA-like methods:
     * support points on A and B, barycentric coordinates; y = a - b. */
    int n;
    double a[4][3], b[4][3], lambda[4];
    int exact;             /* sign decisions that needed the exact fallback */
} rve_dist_result;

/* Distance between two convex shapes.  warm and opts may be NULL.
 * Returns out->status. */
rve_gjk_status rve_gjk_dist(const rve_shape *a, const rve_shape *b, const rve_gjk_opts *opts,
                            rve_gjk_simplex *warm, rve_dist_result *out);

/* The lean distance query (default options): returns the distance, the same
 * value rve_gjk_dist gives (0 for intersecting shapes, inf beyond the double
 * range, NaN for invalid shapes), and fills the witnesses p (on A) and q (on
 * B) only when they are not NULL; the final simplex is not kept.  warm may
 * be NULL. */
double rve_gjk_distance(const rve_shape *a, const rve_shape *b, rve_gjk_simplex *warm, double p[3], double q[3]);

/* Boolean intersection test (GJK stopped at the first separating plane):
 * 1 when the shapes (radii included) overlap or touch, 0 when separated,
 * -1 for invalid shapes.  warm may be NULL. */
int rve_gjk_intersect(const rve_shape *a, const rve_shape *b, rve_gjk_simplex *warm);

/* Fast path for the fitting loop: distance from point p to the convex hull
 * of verts[0 .. 3nv-1] (world frame), 0 inside.  warm (may be NULL) keeps
 * the vertex indices of the last simplex; out (may be NULL) gets the
 * closest point q (p in out->p) and the status.  Returns the distance
 * (NaN for nv < 1 or non-finite input).  Without out, only the distance is
 * computed (the lean path). */
double rve_dist_point_polytope(const double p[3], const double *verts, int nv,
                               rve_gjk_simplex *warm, rve_dist_result *out);
/* Same with the sub-algorithm and tolerances of opts (NULL = defaults). */
double rve_dist_point_polytope_opts(const double p[3], const double *verts, int nv,
                                    const rve_gjk_opts *opts, rve_gjk_simplex *warm,
                                    rve_dist_result *out);

/* The Signed Volumes sub-algorithm alone (thesis Algorithm 1): closest
 * point of the simplex y[0..n-1] (1 <= n <= 4) to the origin.  Keeps in
 * y/lambda the smallest supporting subset (written to idx as original
 * indices), returns its size; v gets the closest point. With
 * newest >= 0 only the Voronoi regions containing y[newest] are searched
 * (the GJK tailoring); -1 searches all. */
int rve_sv_closest(const double y[][3], int n, int newest, double v[3], int idx[4],
                   double lambda[4]);
/* Johnson's sub-algorithm, same interface (for comparisons). */
int rve_johnson_closest(const double y[][3], int n, int newest, double v[3], int idx[4],
                        double lambda[4]);


/* ============================================ contact kernels */
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
    rve_poly_graph graph; /* the edges as a hill-climbing graph, built with the hull above
                             32 vertices (empty, nv = 0, below): pass &P->graph to
                             rve_shape_polytope; owned by P */
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
 * Descantes' revised Cundall algorithm (three starting planes, the two through
 * the centre line with both normal orientations; orientation perturbation from
 * tan 5 deg down to tan 1e-7 deg, with a step along the ridge of the gap when
 * the four compass steps fail) or revised Nezami fast common plane (candidate
 * planes from all vertices of the support features).  Both are local searches:
 * a local maximum of the gap can be returned (about 1 pair in 200 of random
 * DEM-like pairs).  Both also return the separation distance of disjoint
 * polyhedra. Bounded loops; RVE_ECAP if a cap was reached (out holds the best
 * plane found). */
rve_status rve_contact_cundall(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out,
                               rve_err *err);
rve_status rve_contact_nezami(const rve_polyhedron *A, const rve_polyhedron *B, rve_contact *out,
                              rve_err *err);

/* Penetration depth of any two shapes (rounding radii included): GJK, then,
 * when the cores overlap, expansion of GJK's final simplex (GJK-TD / EPA) to
 * the face of A - B closest to the origin. Bounded (at most max_iter added
 * vertices); RVE_ECAP with the best estimate when the cap is reached or the
 * polytope cannot be expanded consistently; RVE_EDATA for invalid shapes.
 * Never NaN for valid shapes, touching and flat (zero-volume) overlaps included. */
typedef struct {
    double tol;   /* stop when support - face offset <= tol * size of A - B; 0: 1e-18 (the
                     face planes are kept in long double); a coarse tol (above 1e-11)
                     gives a depth at most the true one and within tol * size of it */
    int max_iter; /* 0: the maximum, 316 */
} rve_epa_opts;
rve_status rve_contact_epa(const rve_shape *A, const rve_shape *B, const rve_epa_opts *opts,
                           rve_contact *out, rve_err *err);
/* Same for two polyhedra of this module (no rounding). */
rve_status rve_contact_epa_polyhedra(const rve_polyhedron *A, const rve_polyhedron *B,
                                     const rve_epa_opts *opts, rve_contact *out, rve_err *err);

/* Intersection of two convex polyhedra (Solfec): interior point (Chebyshev
 * centre of A n B, found from the GJK-TD/EPA witnesses), face planes made dual,
 * hull of the dual points (qhull), back to the intersection polyhedron. */
typedef struct {
    double volume;    /* volume of A n B (0 when disjoint or touching) */
    double area;      /* contact area: half the surface area of A n B */
    double point[3];  /* contact point: area centroid of the surface of A n B */
    double normal[3]; /* unit normal A to B: faces on A's surface minus faces on B's,
                         weighted by squared area (the EPA normal when that sum
                         cancels, e.g. for symmetric overlaps) */
    double gap;       /* < 0 overlap along the normal (Solfec's code convention: A moved
                         by -|g| n, B by +|g| n, gap = min(distance - 2|g|, 0));
                         the separation distance when disjoint */
    size_t nverts, nfaces; /* of the intersection polyhedron */
} rve_intersection;
/* poly (may be NULL) receives the intersection polyhedron (NULL when it has
 * no volume); free it with rve_polyhedron_free. */
rve_status rve_polyhedra_intersection(const rve_polyhedron *A, const rve_polyhedron *B,
                                      rve_intersection *out, rve_polyhedron **poly, rve_err *err);

/* ---- superquadrics (shapes of kind RVE_SHAPE_SUPERQUADRIC, ELLIPSOID or SPHERE) ----
 * Two conventions: Peng & Hanley / LIGGGHTS (and rve_shape_superquadric) use
 *   F = (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1;
 * Wellmann uses Barr's squareness eps1 (x-y plane) and eps2 (z): n2 = 2/eps1,
 * n1 = 2/eps2.  The kernels below accept any exponents > 1 (convex bodies). */
void rve_superquadric_barr(rve_shape *s, double r1, double r2, double r3, double eps1, double eps2);
/* F at a world point: < 1 inside, 1 on the surface. */
double rve_superquadric_F(const rve_shape *s, const double x[3]);

/* Convex polyhedron A vs superquadric B (Peng & Hanley 2019): the initial face
 * (normal closest to the centre line), the superquadric's deepest point below
 * it (closed form), switching to the maximal positive face, and the
 * search-and-return edge/vertex check when the search comes back to a face.
 * *pcase (may be NULL) gets the paper's case: 1 (positive initial face), 3 or 5
 * (no contact), 2, 4 (face contact), 6 (edge or vertex contact), 7 (contact the
 * search-and-return missed: the superquadric crosses a face without reaching
 * its edges while its deepest point lies beyond another face; GJK-TD/EPA then
 * gives s, n, p, q).  Contact: s <
 * 0 the overlap against the contact plane (face plane; for an edge the plane of
 * normalised sum of its face normals, for a vertex the sum of its edge
 * directions), n that plane's normal (A to B), p the contact point on A, q = p +
 * s n.  No contact: s > 0 the exact separation distance (GJK), p, q witnesses. */
rve_status rve_contact_polyhedron_superquadric(const rve_polyhedron *A, const rve_shape *B,
                                               rve_contact *out, int *pcase, rve_err *err);

/* Superellipsoid pairs by the common normal (Wellmann, Lillie, Wriggers 2008):
 * the contact direction c(alpha1, alpha2) in the frame of the centre line, the
 * points p1 of A with normal c and p2 of B with normal -c (closed form), and
 * min |p2 - p1|^2 by Gauss-Newton steps with Levenberg-Marquardt damping and an
 * Armijo test.  Early exclusion: c.(p2 - p1) > 0 proves separation (s is then a
 * positive lower bound of the distance, not the distance).  Restart rule: a
 * minimum with p2 - p1 not parallel to c, or penetrating contact points outside
 * the other body, restarts from the best of 32 random directions refined by
 * Nelder-Mead (the best valid minimum over all starts is kept).  Result: n =
 * c, p = p1, q = p2, s = c.(p2 - p1) (-depth when penetrating). c0 (may be NULL)
 * is the start direction (default: the centre line). */
typedef struct {
    double tol;        /* stop when |grad f| <= tol size^2; 0: 1e-13 */
    int max_iter;      /* per start; 0: 50 */
    int max_restarts;  /* 0: 15 */
    int no_early_exit; /* 1: iterate separated pairs to the exact distance */
} rve_sep_opts;
typedef struct {
    int iterations;    /* Newton / LM iterations, all starts */
    int newton, lm;    /* accepted undamped and damped steps */
    int restarts;
    int excluded;      /* 1 if separation was proven early */
} rve_sep_info;
rve_status rve_contact_superellipsoids(const rve_shape *A, const rve_shape *B, const double c0[3],
                                       const rve_sep_opts *opts, rve_contact *out, rve_sep_info *info,
                                       rve_err *err);

/* Witness points for a known normal: given n (A to B), finds the support
 * features of A along n and of B along -n and puts p, q at the centroid of the
 * overlap of their projections (s = gap along n). */
void rve_contact_witness(const rve_polyhedron *A, const rve_polyhedron *B, const double n[3],
                         rve_contact *c);


/* ====================== compound bodies: the intrinsic hierarchy */
/* A non-convex body as a union of convex pieces (Montanari 2017, section
 * 3.3): a binary tree of bounding spheres over the pieces, in the body frame,
 * and pair queries that walk both trees nearest first, prune node pairs whose
 * spheres are farther apart than the best piece distance found so far, and
 * run GJK (distance, intersection) or GJK-TD/EPA (penetration) on the
 * surviving piece pairs only.  Read-only after creation; queries are
 * allocation-free and re-entrant (the per-pair state is the caller's cache). */
typedef struct {
    double pos[3];  /* world position of the body origin */
    double quat[4]; /* unit quaternion (w, x, y, z), body -> world */
} rve_pose;

typedef struct rve_compound rve_compound;

/* Pieces are convex shapes in the body frame (their own pose places them in
 * it); they are copied, polytope vertices included (graphs are dropped).
 * RVE_EDATA for no piece or an invalid one (*out untouched). */
rve_status rve_compound_build(const rve_shape *pieces, size_t n, rve_compound **out, rve_err *err);
/* Pieces given as polyhedra (their vertices, body frame). */
rve_status rve_compound_build_polyhedra(const rve_polyhedron *const *pieces, size_t n, rve_compound **out,
                                        rve_err *err);
void rve_compound_free(rve_compound *c);
size_t rve_compound_npieces(const rve_compound *c);
/* Bounding sphere of the whole body (tree root), body frame. */
void rve_compound_bound(const rve_compound *c, double centre[3], double *radius);
/* Piece k posed in the world by the body pose. */
void rve_compound_piece(const rve_compound *c, const rve_pose *pose, size_t k, rve_shape *out);

/* Per-pair state kept by the caller between queries (spatial coherence):
 * the last closest piece pair and its GJK simplex, tried first and warm-
 * started; the last distance and poses, for the bound of Eq. 3.14
 * (d - largest displacement of A - largest displacement of B <= new d). */
typedef struct {
    int valid;
    size_t ia, ib;
    rve_gjk_simplex warm;
    rve_pose pa, pb;
    double d;
} rve_compound_cache;
void rve_compound_cache_init(rve_compound_cache *c);

typedef struct {
    double d;              /* distance (0 when overlapping) */
    double p[3], q[3];     /* witnesses on A and on B (world) */
    size_t ia, ib;         /* the piece pair realising it */
    rve_gjk_status status; /* of that pair's GJK */
    long gjk_calls;        /* piece-pair kernel calls */
    long node_tests;       /* bounding-sphere tests */
    int cached;            /* intersect: 1 when Eq. 3.14 proved separation (d: the bound) */
} rve_compound_result;

/* Distance between two compounds: the minimum over all piece pairs, exact
 * as GJK is (pruning only drops pairs provably farther than the minimum).
 * cache may be NULL. */
rve_status rve_compound_dist(const rve_compound *A, const rve_pose *pa, const rve_compound *B,
                             const rve_pose *pb, rve_compound_cache *cache, rve_compound_result *out,
                             rve_err *err);
/* 1 when some piece pair overlaps or touches, 0 when separated, -1 for
 * invalid poses.  With a valid cache (filled by rve_compound_dist) a
 * positive bound of Eq. 3.14 answers 0 without any GJK call.  stats (may be
 * NULL) gets the counters and, on 1, the first overlapping pair. */
int rve_compound_intersect(const rve_compound *A, const rve_pose *pa, const rve_compound *B,
                           const rve_pose *pb, const rve_compound_cache *cache, rve_compound_result *stats);

typedef struct {
    rve_contact c; /* conventions of the contact kernels (s < 0: -depth, n from A to B) */
    size_t ia, ib; /* piece pair */
} rve_compound_contact;
/* Penetration: every overlapping piece pair through rve_contact_epa;
 * deepest gets the smallest s (the deepest piece-pair contact).  all (may
 * be NULL) receives up to max_all contacts, *nall (may be NULL) their
 * number (may exceed max_all).  Separated bodies: s = distance, n the unit
 * witness direction, *nall = 0.  RVE_ECAP when EPA hit its cap on a pair
 * (results are the best estimates). */
rve_status rve_compound_penetration(const rve_compound *A, const rve_pose *pa, const rve_compound *B,
                                    const rve_pose *pb, const rve_epa_opts *opts,
                                    rve_compound_contact *deepest, rve_compound_contact *all,
                                    size_t max_all, size_t *nall, rve_compound_result *stats,
                                    rve_err *err);


#ifdef __cplusplus
}
#endif
#endif
