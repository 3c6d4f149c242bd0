/* topo_query.c - reading the global topology (topo.c): its consistency
 * check and the face accessors (a face's plane, area and point are those of
 * the cell face that created it unless regularisation set its own). */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

rve_status rve_tess_check(const rve_tess *t, rve_err *err)
{
    if (!t->has_topo) return rve_err_set(err, RVE_EUSAGE, "", "check: no topology");
    for (int g = 0; g < t->nface; g++) {
        int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
        if (m < 3) return rve_err_set(err, RVE_EINTERNAL, "", "face %d has %d vertices", g + 1, m);
        for (int k = 0; k < m; k++) {
            int e = t->face_edge[a0 + k];
            int a = t->face_ver[a0 + k], b = t->face_ver[a0 + (k + 1) % m];
            int s = t->face_esign[a0 + k];
            int x = t->edge_ver[2 * e + (s > 0 ? 0 : 1)], y = t->edge_ver[2 * e + (s > 0 ? 1 : 0)];
            if (x != a || y != b)
                return rve_err_set(err, RVE_EINTERNAL, "", "face %d: edge %d does not follow its loop", g + 1, e + 1);
        }
        int c0 = t->face_cell[2 * g], c1 = t->face_cell[2 * g + 1];
        if (c0 < 0 || c0 >= t->n) return rve_err_set(err, RVE_EINTERNAL, "", "face %d: bad first cell", g + 1);
        if (c1 >= t->n || (c1 == c0 && t->face_img[g] == 0))
            return rve_err_set(err, RVE_EINTERNAL, "", "face %d: bad second cell", g + 1);
    }
    /* every face is used by exactly its two cells (one for a wall face) */
    int *use = calloc((size_t)(t->nface > 0 ? t->nface : 1), sizeof *use);
    if (!use) return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    for (int c = 0; c < t->n; c++) {
        if (t->cell_foff[c + 1] - t->cell_foff[c] != t->cells[c].nf) {
            free(use);
            return rve_err_set(err, RVE_EINTERNAL, "", "cell %d: face count differs from its polyhedron", c + 1);
        }
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++) {
            int g = t->cell_faces[k];
            if (g < 0 || g >= t->nface || (t->face_cell[2 * g] != c && t->face_cell[2 * g + 1] != c)) {
                free(use);
                return rve_err_set(err, RVE_EINTERNAL, "", "cell %d: face %d does not know it", c + 1, g + 1);
            }
            use[g]++;
        }
    }
    for (int g = 0; g < t->nface; g++) {
        int want = t->face_cell[2 * g + 1] >= 0 ? 2 : 1;
        if (use[g] != want) {
            int got = use[g]; /* read before the free (the message needs it) */
            free(use);
            return rve_err_set(err, RVE_EINTERNAL, "", "face %d is used by %d cells, not %d", g + 1, got, want);
        }
    }
    free(use);
    for (int e = 0; e < t->nedge; e++)
        if (t->edge_foff[e + 1] - t->edge_foff[e] < 2)
            return rve_err_set(err, RVE_EINTERNAL, "", "edge %d belongs to fewer than two faces", e + 1);
    return RVE_OK;
}

/* Face of cell face_cell[2 f] (the side whose outward normal is face f's
 * normal) that is global face f: its index in the cell's polyhedron, -1 if
 * none (a broken topology). */
static int creator_face(const rve_tess *t, int f)
{
    int c = t->face_cell[2 * f];
    if (c < 0 || c >= t->n) return -1;
    int a = t->cell_foff[c], b = t->cell_foff[c + 1];
    if (b - a != t->cells[c].nf) return -1;
    for (int k = a; k < b; k++)
        if (t->cell_faces[k] == f && t->cell_fsign[k] > 0) return k - a;
    return -1;
}

void rve_tess_face_plane(const rve_tess *t, int f, double pl[4])
{
    if (t->face_plane) {
        memcpy(pl, t->face_plane + 4 * (size_t)f, 4 * sizeof(double));
        return;
    }
    int k = creator_face(t, f);
    if (k < 0) {
        pl[0] = pl[1] = pl[2] = pl[3] = NAN;
        return;
    }
    rve_tess_cell_plane(t, t->face_cell[2 * f], k, pl);
}

double rve_tess_face_area(const rve_tess *t, int f)
{
    if (t->face_area) return t->face_area[f];
    int k = creator_face(t, f);
    return k < 0 ? NAN : t->cells[t->face_cell[2 * f]].farea[k];
}

void rve_tess_face_point(const rve_tess *t, int f, double x[3])
{
    if (t->face_ptxyz) {
        memcpy(x, t->face_ptxyz + 3 * (size_t)f, 3 * sizeof(double));
        return;
    }
    int k = creator_face(t, f);
    if (k < 0) {
        x[0] = x[1] = x[2] = NAN;
        return;
    }
    tess_face_centre(&t->cells[t->face_cell[2 * f]], k, x);
}
