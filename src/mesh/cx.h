/* cx.h - the polyhedral complex the regulariser and the mesher work on (internal).
 *
 * A complex is a set of vertices, polygonal faces given as vertex loops and
 * cells given as signed face lists.  Faces may be non-planar after
 * regularisation: their geometry is then the fan of triangles joining the
 * face point fpt to each loop edge.  A face has one or two cells: fc[2f] is
 * the cell for which the loop turns counter-clockwise seen from outside
 * (right-hand normal pointing out of it), fc[2f+1] the cell on the other
 * side or -1 when the face lies on the domain boundary (then fdom[f] is the
 * index of the domain plane, else -1).  Domain planes are n.x = d. */
#ifndef RVE_MESH_CX_H
#define RVE_MESH_CX_H

#include <stddef.h>
#include <stdint.h>
#include <rve/util.h>

typedef struct {
    int nv;
    double *v;        /* 3 nv */
    int nf;
    int *foff;        /* nf + 1 offsets into fv */
    int *fv;          /* loops */
    double *fpt;      /* 3 nf face points (fan centre) */
    int *fflat;       /* 1: planar face, mesh as one polygon; 0: fan of triangles */
    int *fc;          /* 2 nf cells */
    int *fdom;        /* nf domain plane or -1 */
    int nc;
    int *cid;         /* nc grain labels */
    int ndom;
    double dom[6 * 4];   /* up to 6 planes: n[3], d (outward normals) */
    double dom_lo[3], dom_hi[3]; /* bounding box of the domain */
    /* Periodic box complexes (rve_cx_from_periodic): the faces on an upper
     * box face and their translates on the lower one point to each other
     * (fper; -1 elsewhere; NULL when not periodic).  Several cells (pieces)
     * may then share a grain label cid. */
    int *fper;
    int periodic[3];
    int *ccell;       /* nc: tessellation cell of each piece (periodic; else NULL) */
    int *cshift;      /* 3 nc: lattice box g of the piece (cell in its frame, minus g L) */
} rve_cx;

void rve_cx_free(rve_cx *c);
/* Face point = mean of the loop vertices. */
void rve_cx_face_centre(const rve_cx *c, int f, double p[3]);
/* Signed volume of cell k, from its faces' fans (positive for a valid cell). */
double rve_cx_cell_volume(const rve_cx *c, int k);
/* Folded face pairs (fold.c): each bent quadrilateral sharing three vertices
 * a-m-b with another bent quadrilateral of a common cell gets its face point
 * on m (its fan becomes the diagonal split u-m) when the new triangles face
 * as the fan did and its cells keep positive volumes; returns how many face
 * points moved, -1 when out of memory. */
int rve_cx_fold_quads(rve_cx *c);
/* Area-weighted normal of a face (fan), not normalised: length = 2 area. */
void rve_cx_face_normal(const rve_cx *c, int f, double n[3]);
/* Structural check: loops of >= 3 distinct vertices, every cell closed
 * (each of its edges used twice, in opposite directions).  0 if valid. */
int rve_cx_check(const rve_cx *c, char *why, size_t n);
/* A 64-bit hash of the bits of a point (exact-coordinate lookups). */
uint64_t rve_cx_xyz_hash(const double x[3]);
/* Periodic copies of the vertices on the box planes of the bit set planes
 * (bit 2a: the lower plane of axis a, 2a + 1: the upper one), mask[v] the
 * planes through v, alive (may be NULL) the vertices to link: link[3 v + a]
 * is the vertex at exactly v's coordinates with coordinate a moved to the
 * opposite box plane, or -1.  malloc'd, NULL when out of memory. */
int *rve_cx_periodic_links(const rve_cx *c, const unsigned *mask, const int *alive, unsigned planes);

#endif
