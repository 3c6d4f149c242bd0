/* write_fepx.c - the Neper/FEPX flavour of a gmsh .msh 2.2 file: the mesh
 * (boundary triangles of the box faces, then the tetrahedra with the grain
 * label as physical tag: FEPX's elsets), $Periodicity (the periodic node
 * pairs), $NSets (nodes of the box faces x0..z1, edges x0y0.. and corners
 * x0y0z0..), $Fasets (the boundary triangles of each box face) and, with a
 * grain table holding the columns q0 q1 q2 q3, $ElsetOrientations
 * (quaternion:passive) and, with a column phase, $Groups (FEPX's phase of
 * each elset, 1-based).  The table has one row per grain label.  Sections as in Neper's documentation of its .msh
 * output (Neper 4, "Mesh File (.msh)"). */
#include "config.h"
#include "mesh/mesh_internal.h"
#include <rve/mesh.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per node and axis: 0 on the lower box face, 2 on the upper one, 1 inside
 * (within 1e-9 of the box size, as write_solver.c's node sets). */
static void node_codes(const rve_mesh *m, int *code)
{
    for (size_t i = 0; i < m->nnodes; i++)
        for (int a = 0; a < 3; a++) {
            double L = m->hi[a] - m->lo[a], x = m->xyz[3 * i + a];
            code[3 * i + a] = fabs(x - m->lo[a]) <= 1e-9 * L ? 0 : fabs(x - m->hi[a]) <= 1e-9 * L ? 2 : 1;
        }
}

/* One node set: nodes whose code matches want on the axes of mask. */
static void write_nset(FILE *fp, const rve_mesh *m, const int *code, const char *name, unsigned axes,
                       const int want[3])
{
    size_t n = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        int in = 1;
        for (int a = 0; a < 3; a++)
            if ((axes >> a & 1) && code[3 * i + a] != want[a])
                in = 0;
        n += (size_t)in;
    }
    fprintf(fp, "%s\n%zu\n", name, n);
    for (size_t i = 0, k = 0; i < m->nnodes; i++) {
        int in = 1;
        for (int a = 0; a < 3; a++)
            if ((axes >> a & 1) && code[3 * i + a] != want[a])
                in = 0;
        if (in)
            fprintf(fp, "%zu%s", i + 1, (++k % 16 == 0 || k == n) ? "\n" : " ");
    }
}

/* Faces (6), edges (12) and corners (8), Neper's names. */
static void write_nsets(FILE *fp, const rve_mesh *m, const int *code)
{
    char name[16];
    fprintf(fp, "$NSets\n26\n");
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            int want[3] = {0, 0, 0};
            want[a] = 2 * s;
            snprintf(name, sizeof name, "%c%d", 'x' + a, s);
            write_nset(fp, m, code, name, 1u << a, want);
        }
    for (int a = 0; a < 3; a++) /* edges along axis a: the other two axes fixed */
        for (int k = 0; k < 4; k++) {
            int p = a == 0 ? 1 : 0, q = a == 2 ? 1 : 2, want[3] = {0, 0, 0};
            want[p] = 2 * (k >> 1 & 1);
            want[q] = 2 * (k & 1);
            snprintf(name, sizeof name, "%c%d%c%d", 'x' + p, k >> 1 & 1, 'x' + q, k & 1);
            write_nset(fp, m, code, name, 1u << p | 1u << q, want);
        }
    for (int k = 0; k < 8; k++) {
        int want[3] = {2 * (k >> 2 & 1), 2 * (k >> 1 & 1), 2 * (k & 1)};
        snprintf(name, sizeof name, "x%dy%dz%d", k >> 2 & 1, k >> 1 & 1, k & 1);
        write_nset(fp, m, code, name, 7u, want);
    }
    fprintf(fp, "$EndNSets\n");
}

/* Column c of gt named name, or -1. */
static int table_col(const rve_grain_table *gt, const char *name)
{
    for (int c = 0; gt && gt->names && c < gt->ncols; c++)
        if (gt->names[c] && strcmp(gt->names[c], name) == 0)
            return c;
    return -1;
}

static void write_orientations(FILE *fp, const rve_grain_table *gt)
{
    int col[4];
    static const char *const qn[4] = {"q0", "q1", "q2", "q3"};
    for (int k = 0; k < 4; k++)
        if ((col[k] = table_col(gt, qn[k])) < 0)
            return;
    fprintf(fp, "$ElsetOrientations\n%d quaternion:passive\n", gt->ngrains);
    for (int r = 0; r < gt->ngrains; r++) {
        const double *row = gt->values + (size_t)r * (size_t)gt->ncols;
        fprintf(fp, "%d %.17g %.17g %.17g %.17g\n", gt->labels ? gt->labels[r] : r + 1, row[col[0]],
                row[col[1]], row[col[2]], row[col[3]]);
    }
    fprintf(fp, "$EndElsetOrientations\n");
}

/* FEPX's phase of each elset ($Groups, "elset"): the table's phase column,
 * 1-based as FEPX wants it (a phase below 1, unknown, is written 1). */
static void write_groups(FILE *fp, const rve_grain_table *gt)
{
    int col = table_col(gt, "phase");
    if (col < 0)
        return;
    fprintf(fp, "$Groups\nelset\n%d\n", gt->ngrains);
    for (int r = 0; r < gt->ngrains; r++) {
        double ph = gt->values[(size_t)r * (size_t)gt->ncols + (size_t)col];
        fprintf(fp, "%d %d\n", gt->labels ? gt->labels[r] : r + 1, ph >= 1 ? (int)ph : 1);
    }
    fprintf(fp, "$EndGroups\n");
}

rve_status mesh_write_fepx(const rve_mesh *m, FILE *fp, const rve_grain_table *gt, rve_err *err)
{
    int *code = malloc((3 * m->nnodes + 1) * sizeof *code);
    if (!code)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    node_codes(m, code);
    int tn = m->order == 2 ? 6 : 3, en = m->order == 2 ? 10 : 4;
    int ttype = m->order == 2 ? 9 : 2, etype = m->order == 2 ? 11 : 4;
    size_t nb = 0;
    for (size_t t = 0; t < m->ntris; t++)
        nb += m->tri_tag[t] >= 11 && m->tri_tag[t] <= 16;
    fprintf(fp, "$MeshFormat\n2.2 0 %zu\n$EndMeshFormat\n$MeshVersion\n2.2.1\n$EndMeshVersion\n"
                "$Domain\ncube\n$EndDomain\n", sizeof(double));
    fprintf(fp, "$Nodes\n%zu\n", m->nnodes);
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(fp, "%zu %.17g %.17g %.17g\n", i + 1, m->xyz[3 * i], m->xyz[3 * i + 1], m->xyz[3 * i + 2]);
    fprintf(fp, "$EndNodes\n$Elements\n%zu\n", nb + m->ntets);
    size_t id = 0;
    for (size_t t = 0; t < m->ntris; t++) /* box-face triangles: physical tag 11..16 */
        if (m->tri_tag[t] >= 11 && m->tri_tag[t] <= 16) {
            fprintf(fp, "%zu %d 2 %d %d", ++id, ttype, m->tri_tag[t], m->tri_tag[t]);
            for (int k = 0; k < tn; k++)
                fprintf(fp, " %zu", m->tris[(size_t)tn * t + (size_t)k] + 1);
            fputc('\n', fp);
        }
    for (size_t e = 0; e < m->ntets; e++) { /* tetrahedra: elset = grain label */
        fprintf(fp, "%zu %d 2 %d %d", ++id, etype, m->tet_grain[e], m->tet_grain[e]);
        for (int k = 0; k < en; k++)
            fprintf(fp, " %zu", m->tets[(size_t)en * e + (size_t)k] + 1);
        fputc('\n', fp);
    }
    fprintf(fp, "$EndElements\n");
    if (m->npairs > 0) {
        fprintf(fp, "$Periodicity\n%zu\n", m->npairs);
        for (size_t p = 0; p < m->npairs; p++)
            fprintf(fp, "%zu %zu %d %d %d\n", m->pairs[2 * p] + 1, m->pairs[2 * p + 1] + 1,
                    m->pair_mask[p] & 1, m->pair_mask[p] >> 1 & 1, m->pair_mask[p] >> 2 & 1);
        fprintf(fp, "$EndPeriodicity\n");
    }
    write_nsets(fp, m, code);
    fprintf(fp, "$Fasets\n6\n");
    for (int f = 0; f < 6; f++) {
        size_t n = 0;
        for (size_t t = 0; t < m->ntris; t++)
            n += m->tri_tag[t] == 11 + f;
        fprintf(fp, "%c%d\n%zu\n", 'x' + f / 2, f % 2, n);
        id = 0;
        for (size_t t = 0; t < m->ntris; t++)
            if (m->tri_tag[t] >= 11 && m->tri_tag[t] <= 16) {
                id++;
                if (m->tri_tag[t] != 11 + f)
                    continue;
                fprintf(fp, "%zu", id);
                for (int k = 0; k < tn; k++)
                    fprintf(fp, " %zu", m->tris[(size_t)tn * t + (size_t)k] + 1);
                fputc('\n', fp);
            }
    }
    fprintf(fp, "$EndFasets\n");
    write_orientations(fp, gt);
    write_groups(fp, gt);
    free(code);
    return RVE_OK;
}
