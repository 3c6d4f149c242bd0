/* Crystal orientations of packed grains: the map grain's orientation
 * composed with the body's rotation in the packing, and their outputs
 * (the orientations file, the VTK cell data). */
#include "config.h"
#include <rve/pack.h>
#include <rve/ori.h>
#include "pack/pack_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/mathconst.h"

int rve_pack_body_crystal_ori(const rve_pack_body *b, double g[4])
{
    if (!b->has_ori) {
        g[0] = 1;
        g[1] = g[2] = g[3] = 0;
        return 0;
    }
    /* v_crystal = om(ori) v_body and v_body = R^T v_world, R the active
     * matrix of q, which is the passive matrix om(q) transposed: so
     * v_crystal = om(ori) om(q) v_world = om(q * ori) v_world */
    double t[4];
    rve_ori_qmul(b->q, b->ori, t);
    rve_ori_qnormalize(t, g);
    return 1;
}

/* 1 when every body has an orientation, 0 when none has, -1 for a mix. */
static int set_has_ori(const rve_pack_set *s)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++)
        k += s->b[i].has_ori != 0;
    return k == 0 ? 0 : k == s->n ? 1 : -1;
}

rve_status rve_pack_set_write_ori(const rve_pack_set *s, FILE *fp, rve_err *err)
{
    int ho = set_has_ori(s);
    if (ho < 0)
        return rve_err_set(err, RVE_EDATA, NULL, "only some bodies have crystal orientations");
    fprintf(fp, "# orientations %zu crystal %d\n", s->n, ho);
    fprintf(fp, "# body grain qw qx qy qz%s\n", ho ? " ow ox oy oz phi1 Phi phi2" : "");
    for (size_t i = 0; i < s->n; i++) {
        const rve_pack_body *b = &s->b[i];
        fprintf(fp, "%zu %u %.17g %.17g %.17g %.17g", i, (unsigned)b->grain, b->q[0], b->q[1], b->q[2], b->q[3]);
        if (ho) {
            double g[4], eu[3];
            rve_pack_body_crystal_ori(b, g);
            rve_ori_qu2eu(g, eu);
            fprintf(fp, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g", g[0], g[1], g[2], g[3], eu[0] * 180 / M_PI,
                    eu[1] * 180 / M_PI, eu[2] * 180 / M_PI);
        }
        fputc('\n', fp);
    }
    return ferror(fp) ? rve_err_set(err, RVE_EIO, NULL, "write error") : RVE_OK;
}

void pack_vtk_write_ori(const rve_pack_set *s, const int *owner, size_t nt, FILE *fp)
{
    int grains = 0;
    for (size_t i = 0; i < s->n; i++)
        grains |= s->b[i].grain != 0;
    if (grains) {
        fprintf(fp, "SCALARS grain int 1\nLOOKUP_TABLE default\n");
        for (size_t k = 0; k < nt; k++)
            fprintf(fp, "%u\n", (unsigned)s->b[owner[k]].grain);
    }
    if (set_has_ori(s) != 1)
        return;
    fprintf(fp, "SCALARS orientation double 4\nLOOKUP_TABLE default\n");
    for (size_t k = 0; k < nt; k++) {
        double g[4];
        rve_pack_body_crystal_ori(&s->b[owner[k]], g);
        fprintf(fp, "%.17g %.17g %.17g %.17g\n", g[0], g[1], g[2], g[3]);
    }
    fprintf(fp, "SCALARS euler_bunge double 3\nLOOKUP_TABLE default\n");
    for (size_t k = 0; k < nt; k++) {
        double g[4], eu[3];
        rve_pack_body_crystal_ori(&s->b[owner[k]], g);
        rve_ori_qu2eu(g, eu);
        fprintf(fp, "%.17g %.17g %.17g\n", eu[0] * 180 / M_PI, eu[1] * 180 / M_PI, eu[2] * 180 / M_PI);
    }
}
