/* write_solver.c - solver-ready outputs of a mesh: Abaqus .inp with the box's
 * node sets and, for periodic meshes, the periodic boundary conditions as
 * *Equation with reference nodes; legacy VTK with per-grain cell data; the
 * periodic node pairs as a table.  Per-grain values (orientations, material
 * constants) come in an rve_grain_table. */
#include "config.h"
#include "mesh/mesh_internal.h"
#include <rve/mesh.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gmsh 10-node tet order -> Abaqus C3D10 / VTK_QUADRATIC_TETRA order (see write.c). */
static const int tet10_perm[10] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Sorted distinct grain labels of m; returns the count (-1 out of memory). */
static long grain_labels(const rve_mesh *m, int **out)
{
    int *g = malloc((m->ntets + 1) * sizeof *g);
    if (!g)
        return -1;
    memcpy(g, m->tet_grain, m->ntets * sizeof *g);
    qsort(g, m->ntets, sizeof *g, cmp_int);
    size_t n = 0;
    for (size_t i = 0; i < m->ntets; i++)
        if (i == 0 || g[i] != g[i - 1])
            g[n++] = g[i];
    *out = g;
    return (long)n;
}

/* Row of grain label in the table, or -1. */
static int table_row(const rve_grain_table *gt, int label)
{
    if (!gt)
        return -1;
    for (int r = 0; r < gt->ngrains; r++)
        if (gt->labels ? gt->labels[r] == label : r + 1 == label)
            return r;
    return -1;
}

/* Position of a node on the box: per axis 0 on the lower face, 2 on the
 * upper one, 1 inside.  The faces are found within 1e-9 of the box size
 * (non-periodic meshes do not promise exact coordinates on the faces). */
static void box_code(const rve_mesh *m, size_t i, int code[3])
{
    for (int a = 0; a < 3; a++) {
        double L = m->hi[a] - m->lo[a], x = m->xyz[3 * i + a];
        code[a] = fabs(x - m->lo[a]) <= 1e-9 * L ? 0 : fabs(x - m->hi[a]) <= 1e-9 * L ? 2 : 1;
    }
}

static void write_ids(FILE *fp, const size_t *ids, size_t n)
{
    for (size_t k = 0; k < n; k++)
        fprintf(fp, "%zu%s", ids[k] + 1, (k % 16 == 15 || k + 1 == n) ? "\n" : ", ");
}

/* Node sets of the six faces (X0 .. Z1), the twelve edges (named by the two
 * faces they join: EDGE_Y0Z0 runs along x) and the eight corners
 * (CORNER_xyz with 0/1 per axis).  A face set has its edges and corners, an
 * edge set its corners: the usual convention. */
static rve_status write_box_sets(const rve_mesh *m, FILE *fp, rve_err *err)
{
    size_t *ids = malloc((m->nnodes + 1) * sizeof *ids);
    int *code = malloc((3 * m->nnodes + 1) * sizeof *code);
    if (!ids || !code) {
        free(ids);
        free(code);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < m->nnodes; i++)
        box_code(m, i, code + 3 * i);
    static const char ax[3] = {'X', 'Y', 'Z'};
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            size_t n = 0;
            for (size_t i = 0; i < m->nnodes; i++)
                if (code[3 * i + a] == 2 * s)
                    ids[n++] = i;
            fprintf(fp, "*Nset, nset=%c%d\n", ax[a], s);
            write_ids(fp, ids, n);
        }
    for (int a = 0; a < 3; a++) { /* edges along axis a */
        int b = (a + 1) % 3, c = (a + 2) % 3, p = b < c ? b : c, q = b < c ? c : b;
        for (int sp = 0; sp < 2; sp++)
            for (int sq = 0; sq < 2; sq++) {
                size_t n = 0;
                for (size_t i = 0; i < m->nnodes; i++)
                    if (code[3 * i + p] == 2 * sp && code[3 * i + q] == 2 * sq)
                        ids[n++] = i;
                fprintf(fp, "*Nset, nset=EDGE_%c%d%c%d\n", ax[p], sp, ax[q], sq);
                write_ids(fp, ids, n);
            }
    }
    for (int k = 0; k < 8; k++) {
        size_t n = 0;
        for (size_t i = 0; i < m->nnodes; i++)
            if (code[3 * i] == 2 * (k >> 2 & 1) && code[3 * i + 1] == 2 * (k >> 1 & 1) &&
                code[3 * i + 2] == 2 * (k & 1))
                ids[n++] = i;
        fprintf(fp, "*Nset, nset=CORNER_%d%d%d\n", k >> 2 & 1, k >> 1 & 1, k & 1);
        write_ids(fp, ids, n);
    }
    free(ids);
    free(code);
    return RVE_OK;
}

/* Periodic boundary conditions: for each pair (s, m, mask) and each
 * displacement component i, u_i(s) - u_i(m) - sum_{a in mask} u_i(RP_a) = 0,
 * where reference node RP_a carries the displacement jump across the box
 * along a (macroscopic strain times the period).  Each upper-face node is
 * the first (eliminated) term of its own equations only and no master is
 * eliminated (masters lie on no upper face), as Abaqus requires. */
static void write_equations(const rve_mesh *m, FILE *fp, const size_t rp[3])
{
    fprintf(fp, "** Periodic boundary conditions: u(slave) - u(master) - sum of u(RP_axis) = 0\n");
    for (size_t p = 0; p < m->npairs; p++)
        for (int dof = 1; dof <= 3; dof++) {
            int nt = 2, k = 2;
            for (int a = 0; a < 3; a++)
                nt += m->pair_mask[p] >> a & 1;
            fprintf(fp, "*Equation\n%d\n%zu, %d, 1., %zu, %d, -1.", nt, m->pairs[2 * p] + 1, dof,
                    m->pairs[2 * p + 1] + 1, dof);
            for (int a = 0; a < 3; a++)
                if (m->pair_mask[p] >> a & 1) {
                    /* at most four terms per line */
                    fprintf(fp, k % 4 == 0 ? "\n%zu, %d, -1." : ", %zu, %d, -1.", rp[a] + 1, dof);
                    k++;
                }
            fputc('\n', fp);
        }
}

/* Per grain: a solid section with its own material holding the table's
 * values as user-material constants (the hook for orientations). */
static void write_materials(const rve_mesh *m, FILE *fp, const int *g, long ng, const rve_grain_table *gt)
{
    (void)m;
    for (long i = 0; i < ng; i++) {
        int r = table_row(gt, g[i]);
        if (r < 0)
            continue;
        fprintf(fp, "*Solid Section, elset=grain%d, material=grain%d\n,\n", g[i], g[i]);
        fprintf(fp, "*Material, name=grain%d\n", g[i]);
        if (gt->names) {
            fprintf(fp, "** constants:");
            for (int c = 0; c < gt->ncols; c++)
                fprintf(fp, " %s", gt->names[c]);
            fputc('\n', fp);
        }
        fprintf(fp, "*User Material, constants=%d\n", gt->ncols);
        for (int c = 0; c < gt->ncols; c++)
            fprintf(fp, "%.17g%s", gt->values[(size_t)r * (size_t)gt->ncols + (size_t)c],
                    (c % 8 == 7 || c + 1 == gt->ncols) ? "\n" : ", ");
    }
}

static rve_status write_abaqus(const rve_mesh *m, FILE *fp, const rve_grain_table *gt, rve_err *err)
{
    int tn = m->order == 2 ? 10 : 4, per = m->npairs > 0;
    fprintf(fp, "*Heading\n rve tetrahedral mesh (%zu nodes, %zu elements)%s\n", m->nnodes, m->ntets,
            per ? ", periodic" : "");
    fprintf(fp, "*Node\n");
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(fp, "%zu, %.17g, %.17g, %.17g\n", i + 1, m->xyz[3 * i], m->xyz[3 * i + 1],
                m->xyz[3 * i + 2]);
    size_t rp[3] = {0, 0, 0};
    if (per) { /* reference nodes outside the box, one per periodic axis */
        size_t next = m->nnodes;
        for (int a = 0; a < 3; a++)
            if (m->periodic[a]) {
                double x[3] = {m->lo[0], m->lo[1], m->lo[2]};
                x[a] = m->hi[a] + 0.25 * (m->hi[a] - m->lo[a]);
                rp[a] = next++;
                fprintf(fp, "%zu, %.17g, %.17g, %.17g\n", rp[a] + 1, x[0], x[1], x[2]);
            }
    }
    int *g = NULL;
    long ng = grain_labels(m, &g);
    if (ng < 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    size_t id = 0;
    for (long k = 0; k < ng; k++) {
        fprintf(fp, "*Element, type=%s, elset=grain%d\n", m->order == 2 ? "C3D10" : "C3D4", g[k]);
        for (size_t e = 0; e < m->ntets; e++) {
            if (m->tet_grain[e] != g[k])
                continue;
            fprintf(fp, "%zu", ++id);
            for (int j = 0; j < tn; j++)
                fprintf(fp, ", %zu", m->tets[e * (size_t)tn + (size_t)tet10_perm[j]] + 1);
            fputc('\n', fp);
        }
    }
    rve_status st = write_box_sets(m, fp, err);
    if (st == RVE_OK && per) {
        static const char ax[3] = {'X', 'Y', 'Z'};
        for (int a = 0; a < 3; a++)
            if (m->periodic[a])
                fprintf(fp, "*Nset, nset=RP_%c\n%zu\n", ax[a], rp[a] + 1);
        write_equations(m, fp, rp);
    }
    if (st == RVE_OK && gt && gt->ncols > 0)
        write_materials(m, fp, g, ng, gt);
    free(g);
    return st;
}

rve_status mesh_write_vtk(const rve_mesh *m, FILE *fp, const rve_grain_table *gt, rve_err *err)
{
    int tn = m->order == 2 ? 10 : 4;
    fprintf(fp, "# vtk DataFile Version 3.0\nrve conformal tetrahedral mesh\nASCII\n"
                "DATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n",
            m->nnodes);
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(fp, "%.17g %.17g %.17g\n", m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
    fprintf(fp, "CELLS %zu %zu\n", m->ntets, m->ntets * (size_t)(tn + 1));
    for (size_t e = 0; e < m->ntets; e++) {
        fprintf(fp, "%d", tn);
        for (int j = 0; j < tn; j++)
            fprintf(fp, " %zu", m->tets[e * (size_t)tn + (size_t)tet10_perm[j]]);
        fputc('\n', fp);
    }
    fprintf(fp, "CELL_TYPES %zu\n", m->ntets);
    for (size_t e = 0; e < m->ntets; e++)
        fprintf(fp, "%d\n", m->order == 2 ? 24 : 10);
    fprintf(fp, "CELL_DATA %zu\nSCALARS grain int 1\nLOOKUP_TABLE default\n", m->ntets);
    for (size_t e = 0; e < m->ntets; e++)
        fprintf(fp, "%d\n", m->tet_grain[e]);
    for (int c = 0; gt && c < gt->ncols; c++) {
        char name[64];
        if (gt->names && gt->names[c] && strlen(gt->names[c]) < sizeof name && !strpbrk(gt->names[c], " \t\n"))
            snprintf(name, sizeof name, "%s", gt->names[c]);
        else
            snprintf(name, sizeof name, "value%d", c + 1);
        fprintf(fp, "SCALARS %s double 1\nLOOKUP_TABLE default\n", name);
        for (size_t e = 0; e < m->ntets; e++) {
            int r = table_row(gt, m->tet_grain[e]);
            fprintf(fp, "%.17g\n", r < 0 ? NAN : gt->values[(size_t)r * (size_t)gt->ncols + (size_t)c]);
        }
    }
    if (m->npairs > 0) { /* the periodic master of each node (itself if none), 0-based */
        size_t *mast = malloc((m->nnodes + 1) * sizeof *mast);
        if (!mast)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        for (size_t i = 0; i < m->nnodes; i++)
            mast[i] = i;
        for (size_t p = 0; p < m->npairs; p++)
            mast[m->pairs[2 * p]] = m->pairs[2 * p + 1];
        fprintf(fp, "POINT_DATA %zu\nSCALARS periodic_master long 1\nLOOKUP_TABLE default\n", m->nnodes);
        for (size_t i = 0; i < m->nnodes; i++)
            fprintf(fp, "%zu\n", mast[i]);
        free(mast);
    }
    return RVE_OK;
}

static rve_status write_pairs(const rve_mesh *m, FILE *fp)
{
    fprintf(fp, "# periodic node pairs (1-based): node master shift_x shift_y shift_z\n"
                "# node = master + shift * (hi - lo), box lo %.17g %.17g %.17g hi %.17g %.17g %.17g\n",
            m->lo[0], m->lo[1], m->lo[2], m->hi[0], m->hi[1], m->hi[2]);
    for (size_t p = 0; p < m->npairs; p++)
        fprintf(fp, "%zu %zu %d %d %d\n", m->pairs[2 * p] + 1, m->pairs[2 * p + 1] + 1,
                m->pair_mask[p] & 1, m->pair_mask[p] >> 1 & 1, m->pair_mask[p] >> 2 & 1);
    return RVE_OK;
}

rve_status rve_mesh_write_solver(const rve_mesh *m, const char *path, rve_solver_format f,
                                 const rve_grain_table *gt, rve_err *err)
{
    if (f != RVE_SOLVER_ABAQUS && f != RVE_SOLVER_VTK && f != RVE_SOLVER_PAIRS && f != RVE_SOLVER_FEPX)
        return rve_err_set(err, RVE_EUSAGE, path, "unknown solver output format %d", (int)f);
    if (gt && (gt->ncols < 0 || (gt->ncols > 0 && (!gt->values || gt->ngrains < 0))))
        return rve_err_set(err, RVE_EUSAGE, path, "invalid per-grain table");
    if (f == RVE_SOLVER_PAIRS && m->npairs == 0)
        return rve_err_set(err, RVE_EUSAGE, path, "the mesh is not periodic: no node pairs to write");
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    FILE *fp = rve_afile_fp(af);
    rve_status st = f == RVE_SOLVER_ABAQUS ? write_abaqus(m, fp, gt, err)
                    : f == RVE_SOLVER_VTK  ? mesh_write_vtk(m, fp, gt, err)
                    : f == RVE_SOLVER_FEPX ? mesh_write_fepx(m, fp, gt, err)
                                           : write_pairs(m, fp);
    if (st != RVE_OK) {
        rve_afile_abort(af);
        return st;
    }
    return rve_afile_commit(af, err);
}
