/* rve/mesh.h - regularisation (short-edge removal) and conformal tetrahedral
 * meshing of tessellations (gmsh).
 *
 * Regularisation (thesis Montanari 2017, Sec. 6.3.2): the shortest edge below
 * a threshold is collapsed into one vertex placed by least squares against
 * the planes of the initial faces around it (Eq. 6.6), restricted to the
 * domain faces the vertex must stay on; topology is updated (faces lose an
 * edge, triangles vanish, edges merge).  Faces are no longer planar
 * afterwards: each face is the fan of triangles joining its face point (the
 * mean of its vertices) to its edges.  A collapse is refused when it bends a
 * face by more than max_angle (bend = atan(h / r), h the largest distance of
 * a vertex to the face's mean plane, r = sqrt(area / pi)), folds a fan triangle,
 * inverts a cell (some fan triangle not seen positively from the cell's
 * centre), pinches a face or makes two faces share the same two cells.
 *
 * Meshing builds one gmsh model with shared points, curves and surfaces, so
 * the mesh is conformal across grains by construction: planar faces are
 * plane surfaces, non-planar faces are their fans of planar triangles.  One
 * physical volume per grain (tag = grain label), physical surfaces: 1 = all
 * grain boundaries, 11..16 = domain faces x0 x1 y0 y1 z0 z1 (cube domains;
 * 10 + domain plane index + 1 otherwise).
 *
 * Periodic tessellations (whole cells around their seeds) are meshed in the
 * box: each cell crossing a box face is cut into pieces, translated into the
 * box, which form one grain (one physical volume with all its pieces); the
 * surfaces on opposite box faces are gmsh periodic copies (.msh 4.1 lists
 * them in $Periodic) and the mesh has the node pairs (rve_mesh.pairs).
 * rve_reg refuses them (RVE_EDATA); rve_mesh_tess_reg regularises the box
 * complex and meshes it, keeping it exactly periodic.  See docs/periodic.md.
 *
 * gmsh keeps global state: the meshing functions take a process-wide lock
 * and must not be called from several threads at once expecting parallelism. */
#ifndef RVE_MESH_H
#define RVE_MESH_H

#include <rve/util.h>
#include <rve/tess.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- regularisation */
#define RVE_REG_HIST 12 /* histogram bins of edge length / threshold: [0,0.25) .. [2.75,inf) */

typedef struct {
    double rsel;       /* threshold = rsel * 0.25 * (V/N)^(1/3); default 1 (Neper's -rsel 1) */
    double length;     /* absolute threshold; > 0 overrides rsel */
    double max_angle;  /* degrees; default 20 */
    int max_passes;    /* default 20 */
    int remove_small_cells; /* 1: cells smaller than threshold^3 (grains of a few voxels:
                               only short edges, or slivers) are merged into one vertex and
                               vanish (their grain is then absent); default 0: kept (the
                               polish then lengthens most of their edges) */
    double min_angle;  /* degrees: after the collapses, vertices move to open face corners
                          and dihedral angles below this (thin wedges force flat
                          tetrahedra); 0: off; default 12 */
    const rve_map *map;/* grain map of the fit (may be NULL): vertices then also move to
                          win back voxel accuracy, never narrowing an angle below
                          min_angle.  NULL: the polish keeps to the input tessellation
                          instead (its raster at threshold / 2) */
    const int *ids;    /* grain label of each cell in map (NULL: cell i is grain i + 1) */
    double box_snap;   /* periodic tessellations: before the cut at the box faces, the
                          vertices of cells crossing a box plane by less than box_snap
                          times the threshold (thin caps) go onto it, where no face is
                          bent by more than 10 deg nor a cell folded (docs/periodic.md);
                          default 0: off (it helps some RVEs and hurts others) */
    int box_shift;     /* periodic tessellations: 1 (default): a translate of the box
                          (the same periodic microstructure in another window) whose
                          planes cut no cell face at a shallow angle and leave no flat
                          cap, the cause of thin wedge pieces at the box faces
                          (docs/periodic.md), is regularised too, and kept when its
                          smallest face or dihedral angle is larger than the box's
                          as given (rve_reg_report.box_shift says which; about twice
                          the regularisation time); 0: the box as given only */
    /* optional progress of the polish (the long part): fraction done in [0, 1],
     * vertex moves so far and the current accuracy (0 before it is known) */
    void (*progress)(void *ctx, double frac, size_t moves, double accuracy);
    void *progress_ctx;
} rve_reg_opts;

void rve_reg_opts_default(rve_reg_opts *o);

typedef struct {
    double threshold;
    size_t edges_before, edges_after;
    size_t short_before, short_after;  /* edges shorter than the threshold */
    size_t removed;                    /* collapses done */
    size_t refused;                    /* short edges left because every collapse was refused */
    double min_before, min_after;      /* shortest edge */
    int passes;
    size_t hist_before[RVE_REG_HIST], hist_after[RVE_REG_HIST];
    double max_bend;                   /* largest face bend left (degrees) */
    size_t short_tiny;                 /* short edges left on cells smaller than threshold^3
                                          (they cannot go without the cell vanishing) */
    size_t stretched;                  /* periodic box complexes: short edges no collapse
                                          removed, lengthened past the threshold instead
                                          (one end moved away, with its periodic copies) */
    size_t cells_removed;              /* small cells merged into one vertex */
    size_t pieces_removed;             /* periodic box complexes: caps of cells through a box
                                          face, smaller than a cube of the threshold, merged
                                          into one point (with their translates) */
    /* polish (vertex moves after the collapses) */
    size_t polish_moves;
    double angle_before, angle_after;  /* smallest face corner or dihedral angle (degrees) */
    size_t sharp_before, sharp_after;  /* angles below min_angle */
    double acc_reg, acc_polish;        /* voxel accuracy after the collapses and after the
                                          polish: against the map, or (acc_vs_input) against
                                          a raster of the input at threshold / 2 */
    int acc_vs_input;
    /* periodic box complexes: the angle polish's grouped moves of box-face
     * vertices (with their periodic copies), why the trial steps failed */
    size_t box_snapped;                /* periodic: vertices put onto a box plane before
                                          the cut (thin caps removed; box_snap) */
    double box_shift[3];               /* periodic: the box's translation kept (box_shift):
                                          the output's point x is the input's
                                          x + box_shift (modulo the period); 0 0 0:
                                          the box as given */
    double box_cut_angle;              /* periodic, box_shift on: the window's smallest
                                          angle between a cell face and the box plane
                                          cutting it (faces below 45 deg) or of a flat
                                          cap it leaves (degrees; 0 when not computed) */
    size_t group_tried;                /* groups tried (angle stage) */
    size_t group_moved;                /* of them, moved */
    size_t group_refused[6];           /* trial steps refused: 0 a copy's cell stars meet,
                                          1 edge made shorter, 2 face folded or bent past
                                          the maximum, 3 cell not star-shaped or out of
                                          the box, 4 cell not convex enough, 5 quality not
                                          raised */
} rve_reg_report;

/* Regularise t into a new tessellation *out (free with rve_tess_free). */
rve_status rve_reg(const rve_tess *t, const rve_reg_opts *o, rve_tess **out,
                   rve_reg_report *rep, rve_err *err);

/* Regularise a periodic tessellation: its cells are cut at the box faces
 * into pieces (each translated into the box), which are regularised with
 * every periodic copy of a box-face edge collapsing together and box-face
 * vertices moving only within their faces together with their copies, so
 * that opposite box faces stay exact translates.  *out is the regularised
 * complex as a non-periodic tessellation of the pieces (cell k of *out is a
 * piece of grain (*out_ids)[k]: ids[cell] of its cell, or cell + 1; pieces of
 * one grain share the id); rve_mesh_tess meshes such a tessellation
 * periodically (rve_mesh_tess: periodic box complexes).  *out_ids is
 * malloc'd. */
rve_status rve_reg_periodic(const rve_tess *t, const int *ids, const rve_reg_opts *o, rve_tess **out,
                            int **out_ids, rve_reg_report *rep, rve_err *err);

/* Label every voxel centre of map (its grid is used, lab overwritten) with
 * the cell containing it geometrically: faces are the fans around their face
 * points, so regularised (non-planar) cells are rasterised as they are meshed.
 * lab = labels[i] if labels != NULL, else i + 1; 0 outside every cell. */
rve_status rve_mesh_rasterize(const rve_tess *t, const uint32_t *labels, rve_map *map, rve_err *err);

/* ------------------------------------------------------------------ meshing */
typedef enum {
    RVE_MESH_MSH41 = 0, /* gmsh .msh 4.1 */
    RVE_MESH_MSH22,     /* gmsh .msh 2.2 */
    RVE_MESH_INP,       /* Abaqus .inp */
    RVE_MESH_VTK,       /* legacy VTK */
    RVE_MESH_NFORMATS
} rve_mesh_format;

typedef struct {
    double cl;          /* element size; > 0 overrides rcl */
    double rcl;         /* element size relative to the mean grain size: cl = rcl * 0.5 * (V/N)^(1/3); default 1 */
    int order;          /* 1 or 2; default 1 */
    int algo3d;         /* gmsh Mesh.Algorithm3D: 10 HXT (default), 1 Delaunay (no Netgen: no frontal) */
    int optimize;       /* gmsh tetrahedral optimisation passes; default 2 */
    int threads;        /* gmsh threads; 0 = 1 */
    int verbose;        /* gmsh terminal output */
    double max_elements; /* refuse before meshing when the estimated tetrahedron count
                            (volume / (cl^3 / (6 sqrt 2))) is above it; default 1e7, 0 = no cap */
} rve_mesh_opts;

void rve_mesh_opts_default(rve_mesh_opts *o);

/* A tetrahedral mesh.  Node i is xyz[3i..3i+2].  Element nodes are 0-based
 * node indices in gmsh order (4 per tet, 10 when order 2; 3 or 6 per
 * triangle).  tet_grain is the grain label of each tet; tri_tag the physical
 * surface of each boundary triangle (1 grain boundary, 11.. domain faces). */
typedef struct {
    int order;
    size_t nnodes;
    double *xyz;
    size_t ntets;
    size_t *tets;
    int *tet_grain;
    size_t ntris;
    size_t *tris;
    int *tri_tag;
    double cl;          /* element size used */
    double seconds;     /* wall time in gmsh */
    /* The box, and for a periodic tessellation its periodic axes and the
     * periodic node pairs: node pairs[2i] is node pairs[2i+1] translated by
     * the period (hi - lo) along each axis a with bit a of pair_mask[i].
     * Every node on an upper box face (x[a] == hi[a], a periodic) is the
     * first node of exactly one pair, whose second node lies on no upper
     * face: face nodes are tied to the opposite face, edge nodes to the
     * lower edge, corner nodes to the lower corner (the standard periodic
     * boundary construction).  Copies differ by the period in the masked
     * coordinates only (they are lo and hi exactly) and are bit-identical in
     * the others. */
    double lo[3], hi[3];
    int periodic[3];
    size_t npairs;
    size_t *pairs;            /* 2 npairs */
    unsigned char *pair_mask; /* npairs */
    /* rve_mesh_tess: the edges of the meshed tessellation shorter than
     * rve_reg's default threshold (rsel 1), which force flat tetrahedra
     * (regularise first); rve_mesh_tess_reg: the short edges left. */
    size_t short_edges;
    double short_threshold;
} rve_mesh;

void rve_mesh_free(rve_mesh *m);

/* Mesh t; ids (may be NULL: 1..n) are the grain labels of its cells.  outputs[f] (may be NULL) is the path to write in format f; files
 * are written atomically (temporary name in the same folder, then rename).
 * *out (may be NULL) receives the mesh. */
rve_status rve_mesh_tess(const rve_tess *t, const int *ids, const rve_mesh_opts *o,
                         const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out,
                         rve_err *err);

/* Regularise and mesh in one go.  Non-periodic tessellations: rve_reg then
 * rve_mesh_tess.  Periodic ones (which rve_reg refuses): rve_reg_periodic
 * (cells cut at the box faces, short edges collapsed with their periodic
 * copies, box-face vertices polished within their faces, ro->map NULL) then
 * rve_mesh_tess of its pieces at the grains' element size (o->cl, else
 * o->rcl * 0.5 (V / grains)^(1/3)): what rve reg then rve mesh --cl give,
 * exactly periodic.  Short edges left: rep->short_after.  ro, rep, o may be
 * NULL. */
rve_status rve_mesh_tess_reg(const rve_tess *t, const int *ids, const rve_reg_opts *ro,
                             rve_reg_report *rep, const rve_mesh_opts *o,
                             const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out,
                             rve_err *err);

/* Write m as Abaqus .inp (C3D4/C3D10, one elset per grain "grainL", node
 * sets of the grain boundaries and domain faces) or legacy .vtk (cell data
 * "grain"), atomically.  .msh files are written by rve_mesh_tess. */
rve_status rve_mesh_write(const rve_mesh *m, const char *path, rve_mesh_format f, rve_err *err);

/* ------------------------------------------------------ solver outputs */
/* Per-grain values for the solver outputs (orientations, material
 * constants): row r holds ncols values of grain labels[r] (labels NULL:
 * grain r + 1, one row per label); names (may be NULL) name the columns.
 * Grains without a row get none (NaN in VTK). */
typedef struct {
    int ngrains, ncols;
    const int *labels;
    const double *values;      /* ngrains * ncols, by rows */
    const char *const *names;  /* ncols, or NULL */
} rve_grain_table;

typedef enum {
    RVE_SOLVER_ABAQUS = 0, /* .inp: nodes, one elset per grain (grainL), node sets of the
                              box faces X0..Z1, edges EDGE_Y0Z0.. and corners CORNER_000..;
                              periodic meshes: reference nodes RP_X RP_Y RP_Z (after the
                              mesh nodes) and, for every node pair and displacement
                              component, *Equation u(node) - u(master) - sum u(RP_a) = 0
                              over the shifted axes a; with a table: per grain a solid
                              section and a material whose *User Material constants are
                              the grain's row */
    RVE_SOLVER_VTK,        /* legacy VTK: cell data grain and one field per table column;
                              periodic meshes: point data periodic_master (0-based) */
    RVE_SOLVER_PAIRS,      /* text: node master shift_x shift_y shift_z (1-based nodes) */
    RVE_SOLVER_FEPX        /* Neper/FEPX .msh (gmsh 2.2 with Neper's sections): box-face
                              triangles (physical 11..16) and tetrahedra (physical = grain
                              label: FEPX's elsets); $Periodicity (node master shifts) for
                              periodic meshes; $NSets x0..z1, x0y0.., x0y0z0..; $Fasets
                              x0..z1; $ElsetOrientations quaternion:passive when the table
                              has columns q0 q1 q2 q3; $Groups (elset phase, 1-based,
                              below 1 written 1) when it has a column phase */
} rve_solver_format;

/* Write m for a solver, atomically; gt may be NULL.  RVE_EUSAGE for pairs
 * of a non-periodic mesh or an invalid table. */
rve_status rve_mesh_write_solver(const rve_mesh *m, const char *path, rve_solver_format f,
                                 const rve_grain_table *gt, rve_err *err);

/* Quality of the linear tetrahedra (corner nodes).
 * gamma = 3 r_in / r_circ (1 for a regular tet);
 * q = 6 sqrt(2) V / l_rms^3 (Neper's shape quality, 1 for a regular tet). */
typedef struct {
    size_t ntets, nnodes;
    double gamma_min, gamma_mean;
    double q_min, q_mean;
    double gamma_below_01, gamma_below_03; /* fraction of elements */
    double q_below_01, q_below_03;
    size_t inverted;                       /* tets with volume <= 0 */
} rve_mesh_quality;

void rve_mesh_quality_compute(const rve_mesh *m, rve_mesh_quality *q);
/* Quality of one tetrahedron. */
void rve_tet_quality(const double a[3], const double b[3], const double c[3], const double d[3],
                     double *gamma, double *q, double *volume);

#ifdef __cplusplus
}
#endif
#endif
