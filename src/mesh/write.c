/* write.c - Abaqus .inp and legacy .vtk writers for rve_mesh (atomic). */
#include "config.h"
#include "mesh/mesh_internal.h"
#include <rve/mesh.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gmsh 10-node tet order -> Abaqus C3D10 / VTK_QUADRATIC_TETRA order:
 * gmsh edges 4:(0,1) 5:(1,2) 6:(2,0) 7:(3,0) 8:(3,2) 9:(3,1);
 * Abaqus/VTK  4:(0,1) 5:(1,2) 6:(2,0) 7:(0,3) 8:(1,3) 9:(2,3). */
static const int tet10_perm[10] = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static rve_status write_inp(const rve_mesh *m, FILE *fp, rve_err *err)
{
    int tn = m->order == 2 ? 10 : 4, fn = m->order == 2 ? 6 : 3;
    fprintf(fp, "*Heading\n rve conformal tetrahedral mesh (%zu nodes, %zu elements)\n", m->nnodes,
            m->ntets);
    fprintf(fp, "*Node\n");
    for (size_t i = 0; i < m->nnodes; i++)
        fprintf(fp, "%zu, %.17g, %.17g, %.17g\n", i + 1, m->xyz[3 * i], m->xyz[3 * i + 1],
                m->xyz[3 * i + 2]);
    /* elements grouped by grain */
    int *gr = malloc((m->ntets + 1) * sizeof(int));
    if (!gr)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    memcpy(gr, m->tet_grain, m->ntets * sizeof(int));
    qsort(gr, m->ntets, sizeof(int), cmp_int);
    size_t ng = 0;
    for (size_t i = 0; i < m->ntets; i++)
        if (i == 0 || gr[i] != gr[i - 1])
            gr[ng++] = gr[i];
    size_t id = 0;
    for (size_t g = 0; g < ng; g++) {
        fprintf(fp, "*Element, type=%s, elset=grain%d\n", m->order == 2 ? "C3D10" : "C3D4", gr[g]);
        for (size_t e = 0; e < m->ntets; e++) {
            if (m->tet_grain[e] != gr[g])
                continue;
            fprintf(fp, "%zu", ++id);
            for (int j = 0; j < tn; j++)
                fprintf(fp, ", %zu", m->tets[e * (size_t)tn + (size_t)tet10_perm[j]] + 1);
            fputc('\n', fp);
        }
    }
    /* node sets of the domain faces and of the grain boundaries */
    unsigned char *mark = malloc(m->nnodes + 1);
    if (!mark) {
        free(gr);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    static const char *names[7] = {"grain_boundaries", "x0", "x1", "y0", "y1", "z0", "z1"};
    for (int s = 0; s < 7; s++) {
        int tag = s == 0 ? 1 : 10 + s;
        memset(mark, 0, m->nnodes + 1);
        size_t cnt = 0;
        for (size_t e = 0; e < m->ntris; e++)
            if (m->tri_tag[e] == tag)
                for (int j = 0; j < fn; j++) {
                    size_t nd = m->tris[e * (size_t)fn + (size_t)j];
                    if (!mark[nd]) {
                        mark[nd] = 1;
                        cnt++;
                    }
                }
        if (!cnt)
            continue;
        fprintf(fp, "*Nset, nset=%s%s\n", s == 0 ? "" : "domain_", names[s]);
        size_t k = 0;
        for (size_t i = 0; i < m->nnodes; i++)
            if (mark[i])
                fprintf(fp, "%zu%s", i + 1, (++k % 16 == 0 || k == cnt) ? "\n" : ", ");
    }
    free(mark);
    free(gr);
    return RVE_OK;
}

rve_status rve_mesh_write(const rve_mesh *m, const char *path, rve_mesh_format f, rve_err *err)
{
    if (f != RVE_MESH_INP && f != RVE_MESH_VTK)
        return rve_err_set(err, RVE_EUSAGE, path, "rve_mesh_write writes .inp and .vtk only "
                                                  "(.msh is written by gmsh while meshing)");
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    rve_status st = f == RVE_MESH_INP ? write_inp(m, rve_afile_fp(af), err)
                                      : mesh_write_vtk(m, rve_afile_fp(af), NULL, err);
    if (st != RVE_OK) {
        rve_afile_abort(af);
        return st;
    }
    return rve_afile_commit(af, err);
}
