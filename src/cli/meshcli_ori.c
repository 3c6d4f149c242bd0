/* meshcli_ori.c - per-grain orientation and phase in the mesh outputs of
 * rve run and rve mesh: the .inp and .vtk of a tessellation with
 * orientations are written by rve_mesh_write_solver with a grain table, and
 * a .msh gets FEPX's MESH.ori beside it. */
#include "config.h"
#include "cli/meshcli.h"
#include <rve/ori.h>
#include <stdlib.h>
#include <string.h>

/* Abaqus *User Material constants, in this order (docs/orientations.md) */
#define NINP 5 /* phi1 Phi phi2 (Bunge, degrees), grain id, phase */
#define NVTK 9 /* the same, then q0 q1 q2 q3 (rve's passive quaternion) */
#define DEG (180 / 3.14159265358979323846)
static const char *const col_names[NVTK] = {"phi1", "Phi", "phi2", "grain_id", "phase",
                                            "q0", "q1", "q2", "q3"};

int meshcli_ori_split(const rve_tess *t, const char *const outs[RVE_MESH_NFORMATS],
                      const char *mesh_outs[RVE_MESH_NFORMATS])
{
    int ori = t->ori && t->ori_n > 0;
    for (int f = 0; f < RVE_MESH_NFORMATS; f++)
        mesh_outs[f] = ori && (f == RVE_MESH_INP || f == RVE_MESH_VTK) ? NULL : outs[f];
    return ori;
}

static int cmp_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Phase of each cell from the map whose grain ids are the cells' ids
 * (0 where unknown): the ids are the map's original ids, not its labels. */
static rve_status cell_phases(const rve_tess *t, const int *ids, const rve_map *map, int *ph, rve_err *err)
{
    memset(ph, 0, (size_t)t->n * sizeof *ph);
    if (!map || !map->phase || map->nlabels == 0)
        return RVE_OK;
    uint32_t *pr = malloc(2 * (size_t)map->nlabels * sizeof *pr);
    if (!pr)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (uint32_t l = 1; l <= map->nlabels; l++) {
        pr[2 * (l - 1)] = rve_map_id(map, l);
        pr[2 * (l - 1) + 1] = l;
    }
    qsort(pr, map->nlabels, 2 * sizeof *pr, cmp_pair);
    for (int k = 0; k < t->n; k++) {
        uint32_t key[2] = {(uint32_t)(ids ? ids[k] : k + 1), 0};
        const uint32_t *hit = bsearch(key, pr, map->nlabels, 2 * sizeof *pr, cmp_pair);
        if (hit)
            ph[k] = map->phase[hit[1] - 1];
    }
    free(pr);
    return RVE_OK;
}

/* FEPX's optional orientation file beside a .msh (what Neper writes as
 * MESH.ori): $ElsetOrientations with the elset ids of the .msh (the grain
 * labels, gmsh's physical volumes) and $ElsetCrySym when known.  The labels
 * are Neper >= 4.10's: quaternion:passive is rve's convention. */
/* (label, row) pairs by label, then row: the first row of a label first */
static int cmp_pair_int(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static rve_status write_fepx_ori(const char *msh, const rve_tess *t, int nrow, const rve_mesh *m,
                                 const int *lab, const double *q, rve_err *err)
{
    size_t n = strlen(msh);
    if (!strcmp(msh, "-") || n < 4 || strcmp(msh + n - 4, ".msh"))
        return RVE_OK; /* standard output or another name: nothing beside it */
    /* the elsets are the grains the mesh has (regularisation may empty a cell) */
    char *path = malloc(n + 1);
    int *g = malloc((m->ntets ? m->ntets : 1) * sizeof *g);
    char *in = calloc((size_t)nrow + 1, 1);
    if (!path || !g || !in) {
        free(path), free(g), free(in);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(g, m->tet_grain, m->ntets * sizeof *g);
    qsort(g, m->ntets, sizeof *g, cmp_int);
    int ne = 0;
    for (int k = 0; k < nrow; k++)
        ne += in[k] = bsearch(&lab[k], g, m->ntets, sizeof *g, cmp_int) != NULL;
    free(g);
    memcpy(path, msh, n - 4);
    memcpy(path + n - 4, ".ori", 5);
    rve_afile *af = rve_afile_open(path, 0, err);
    free(path);
    if (!af) {
        free(in);
        return err ? err->code : RVE_EIO;
    }
    FILE *fp = rve_afile_fp(af);
    fprintf(fp, "$ElsetOrientations\n%d quaternion:passive\n", ne);
    for (int k = 0; k < nrow; k++)
        if (in[k])
            fprintf(fp, "%d %.17g %.17g %.17g %.17g\n", lab[k], q[4 * k], q[4 * k + 1], q[4 * k + 2],
                    q[4 * k + 3]);
    free(in);
    fprintf(fp, "$EndElsetOrientations\n");
    if (t->crysym)
        fprintf(fp, "$ElsetCrySym\n%s\n$EndElsetCrySym\n", t->crysym);
    return rve_afile_commit(af, err);
}

/* Keep the first row of each label (the pieces of a periodic grain, cut at
 * the box faces, are cells sharing its id and orientation): rows k of lab,
 * q (4 per row), vi (NINP) and vv (NVTK) are compacted in order.  Returns
 * the rows kept, -1 out of memory. */
static int unique_rows(int n, int *lab, double *q, double *vi, double *vv)
{
    int *key = malloc(2 * (size_t)(n ? n : 1) * sizeof *key);
    char *keep = calloc((size_t)n + 1, 1);
    if (!key || !keep) {
        free(key), free(keep);
        return -1;
    }
    for (int k = 0; k < n; k++)
        key[2 * k] = lab[k], key[2 * k + 1] = k;
    qsort(key, (size_t)n, 2 * sizeof *key, cmp_pair_int);
    for (int k = 0; k < n; k++)
        keep[key[2 * k + 1]] = k == 0 || key[2 * k] != key[2 * k - 2];
    int m = 0;
    for (int k = 0; k < n; k++) {
        if (!keep[k])
            continue;
        lab[m] = lab[k];
        memmove(q + 4 * m, q + 4 * k, 4 * sizeof *q);
        memmove(vi + NINP * m, vi + NINP * k, NINP * sizeof *vi);
        memmove(vv + NVTK * m, vv + NVTK * k, NVTK * sizeof *vv);
        m++;
    }
    free(key), free(keep);
    return m;
}

/* The per-grain tables of t's orientations, written to the .inp and .vtk of
 * outs, FEPX's MESH.ori beside its .msh, and the FEPX .msh fepx (may be NULL). */
static rve_status ori_tables(const rve_tess *t, const int *ids, const rve_map *map, const rve_mesh *m,
                             const char *const outs[RVE_MESH_NFORMATS], const char *fepx, rve_err *err)
{
    size_t n = (size_t)t->n;
    double *q = malloc((n ? n : 1) * 4 * sizeof *q);
    double *vi = malloc((n ? n : 1) * NINP * sizeof *vi), *vv = malloc((n ? n : 1) * NVTK * sizeof *vv);
    int *lab = malloc((n ? n : 1) * sizeof *lab), *ph = malloc((n ? n : 1) * sizeof *ph);
    rve_status st = RVE_OK;
    if (!q || !vi || !vv || !lab || !ph)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK)
        st = rve_tess_ori_quat(t, q, err);
    if (st == RVE_OK)
        st = cell_phases(t, ids, map, ph, err);
    for (size_t k = 0; st == RVE_OK && k < n; k++) {
        double eu[3];
        rve_ori_qu2eu(q + 4 * k, eu);
        lab[k] = ids ? ids[k] : (int)k + 1;
        double row[NVTK] = {eu[0] * DEG, eu[1] * DEG, eu[2] * DEG, lab[k], ph[k],
                            q[4 * k], q[4 * k + 1], q[4 * k + 2], q[4 * k + 3]};
        memcpy(vi + NINP * k, row, NINP * sizeof *row);
        memcpy(vv + NVTK * k, row, NVTK * sizeof *row);
    }
    int nrow = st == RVE_OK ? unique_rows((int)n, lab, q, vi, vv) : 0;
    if (nrow < 0)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    rve_grain_table gi = {nrow, NINP, lab, vi, col_names}, gv = {nrow, NVTK, lab, vv, col_names};
    if (st == RVE_OK && outs[RVE_MESH_INP])
        st = rve_mesh_write_solver(m, outs[RVE_MESH_INP], RVE_SOLVER_ABAQUS, &gi, err);
    if (st == RVE_OK && outs[RVE_MESH_VTK])
        st = rve_mesh_write_solver(m, outs[RVE_MESH_VTK], RVE_SOLVER_VTK, &gv, err);
    if (st == RVE_OK && fepx)
        st = rve_mesh_write_solver(m, fepx, RVE_SOLVER_FEPX, &gv, err);
    const char *msh = outs[RVE_MESH_MSH41] ? outs[RVE_MESH_MSH41] : outs[RVE_MESH_MSH22];
    if (st == RVE_OK && msh)
        st = write_fepx_ori(msh, t, nrow, m, lab, q, err);
    free(q), free(vi), free(vv), free(lab), free(ph);
    return st;
}

rve_status meshcli_fepx_write(const rve_tess *t, const int *ids, const rve_map *map, const rve_mesh *m,
                              const char *path, rve_err *err)
{
    if (!(t->ori && t->ori_n > 0))
        return rve_mesh_write_solver(m, path, RVE_SOLVER_FEPX, NULL, err);
    const char *outs[RVE_MESH_NFORMATS] = {NULL};
    return ori_tables(t, ids, map, m, outs, path, err);
}

rve_status meshcli_ori_write(const rve_tess *t, const int *ids, const rve_map *map, const rve_mesh *m,
                             const char *const outs[RVE_MESH_NFORMATS], rve_err *err)
{
    return ori_tables(t, ids, map, m, outs, NULL, err);
}
