/* raster.c - rasterise a (possibly regularised, non-planar) tessellation by
 * its geometry: a voxel centre belongs to the cell whose closed fan surface
 * winds around it (generalised winding number). */
#include "config.h"
#include "util/vec3.h"
#include <rve/mesh.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/mathconst.h"

static void face_point(const rve_tess *t, int f, double p[3])
{
    if (t->face_state && t->face_state[f] && t->face_ptxyz && t->face_pt && t->face_pt[f] >= 0) {
        v3_copy(p, t->face_ptxyz + 3 * f);
        return;
    }
    int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
    p[0] = p[1] = p[2] = 0;
    for (int i = a0; i < a1; i++)
        v3_add(p, p, t->ver + 3 * t->face_ver[i]);
    v3_scale(p, p, 1.0 / (a1 - a0));
}

rve_status rve_mesh_rasterize(const rve_tess *t, const uint32_t *labels, rve_map *map, rve_err *err)
{
    if (!t->has_topo)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the tessellation has no topology");
    if (t->periodic[0] || t->periodic[1] || t->periodic[2])
        return rve_err_set(err, RVE_EDATA, NULL, "periodic tessellations are not supported");
    size_t total = (size_t)map->nx * map->ny * map->nz;
    /* fan triangles per cell, relative to nothing: a, b, c absolute */
    double *fp = malloc((size_t)(3 * t->nface + 1) * sizeof(double));
    if (!fp)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int f = 0; f < t->nface; f++)
        face_point(t, f, fp + 3 * f);
    memset(map->lab, 0, total * sizeof(uint32_t));
    uint32_t maxlab = 0;
    for (int c = 0; c < t->n; c++) {
        if (t->cell_foff[c + 1] == t->cell_foff[c])
            continue;
        uint32_t lab = labels ? labels[c] : (uint32_t)c + 1;
        if (lab > maxlab)
            maxlab = lab;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
            int f = t->cell_faces[j];
            for (int i = t->face_voff[f]; i < t->face_voff[f + 1]; i++)
                for (int k = 0; k < 3; k++) {
                    lo[k] = fmin(lo[k], t->ver[3 * t->face_ver[i] + k]);
                    hi[k] = fmax(hi[k], t->ver[3 * t->face_ver[i] + k]);
                }
        }
        int i0[3], i1[3];
        rve_map_box_voxels(map, lo, hi, i0, i1);
#pragma omp parallel for schedule(dynamic, 1) collapse(2)
        for (int kz = i0[2]; kz <= i1[2]; kz++)
            for (int jy = i0[1]; jy <= i1[1]; jy++)
                for (int ix = i0[0]; ix <= i1[0]; ix++) {
                    double x[3];
                    rve_map_voxel_centre(map, ix, jy, kz, x);
                    double w = 0;
                    for (int j = t->cell_foff[c]; j < t->cell_foff[c + 1]; j++) {
                        int f = t->cell_faces[j], s = t->cell_fsign[j];
                        int a0 = t->face_voff[f], a1 = t->face_voff[f + 1];
                        double o[3];
                        v3_sub(o, fp + 3 * f, x);
                        for (int i = a0; i < a1; i++) {
                            double b[3], d[3];
                            v3_sub(b, t->ver + 3 * t->face_ver[i], x);
                            v3_sub(d, t->ver + 3 * t->face_ver[i + 1 < a1 ? i + 1 : a0], x);
                            w += s * v3_solid_angle(o, b, d);
                        }
                    }
                    size_t idx = rve_map_index(map, ix, jy, kz);
                    /* inside (w ~ 4 pi); on a shared face both cells see 2 pi: lowest index wins */
                    if (w > 2 * M_PI + 1e-9 || (fabs(w - 2 * M_PI) <= 1e-9 && map->lab[idx] == 0))
                        map->lab[idx] = lab;
                }
    }
    map->nlabels = maxlab;
    free(fp);
    return RVE_OK;
}
