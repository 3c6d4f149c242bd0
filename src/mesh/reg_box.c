/* reg_box.c - regularisation of periodic tessellations: the box complex
 * (cells cut at the box faces into pieces) regularised with mirrored
 * collapses and polish (mesh_reg_box_complex), for meshing
 * (rve_mesh_tess_reg) or as a tessellation of its pieces (rve_reg_periodic). */
#include "config.h"
#include "mesh/mesh_internal.h"
#include "mesh/periodic_internal.h"
#include "mesh/reg_internal.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double *cx_planes(const rve_cx *c)
{
    double *pl = malloc((size_t)(4 * c->nf + 1) * sizeof(double));
    for (int f = 0; pl && f < c->nf; f++) {
        double n[3];
        rve_cx_face_normal(c, f, n);
        v3_normalize(n);
        v3_copy(pl + 4 * f, n);
        pl[4 * f + 3] = v3_dot(n, c->fpt + 3 * f);
    }
    return pl;
}

/* Relabel a raster of the periodic tessellation (label k + 1: cell k) by
 * the pieces of the box complex (label i + 1: piece i): the voxel centre x
 * is in the piece of cell k whose lattice box g puts x + g L nearest to the
 * seed (the raster took the nearest image). */
static rve_status raster_pieces(const rve_tess *t, const rve_cx *c, rve_map *m, rve_err *err)
{
    int *first = malloc(((size_t)t->n + 2) * sizeof *first);
    if (!first)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int k = 0; k <= t->n; k++)
        first[k] = -1;
    for (int i = c->nc - 1; i >= 0; i--) /* pieces of a cell are consecutive */
        first[c->ccell[i]] = i;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++) {
                size_t idx = rve_map_index(m, i, j, k);
                uint32_t lab = m->lab[idx];
                if (lab == 0 || lab > (uint32_t)t->n || first[lab - 1] < 0) {
                    m->lab[idx] = 0;
                    continue;
                }
                int cell = (int)lab - 1, g[3], piece = first[cell];
                double x[3];
                rve_map_voxel_centre(m, i, j, k, x);
                for (int a = 0; a < 3; a++) {
                    double L = t->hi[a] - t->lo[a];
                    g[a] = t->periodic[a] ? (int)lround((t->seeds[4 * cell + a] - x[a]) / L) : 0;
                }
                for (int p = first[cell]; p < c->nc && c->ccell[p] == cell; p++)
                    if (c->cshift[3 * p] == g[0] && c->cshift[3 * p + 1] == g[1] && c->cshift[3 * p + 2] == g[2])
                        piece = p;
                m->lab[idx] = (uint32_t)piece + 1;
            }
    free(first);
    free(m->ids); /* labels are piece numbers now */
    m->ids = NULL;
    rve_map_update_nlabels(m);
    return RVE_OK;
}

static rve_status box_complex(const rve_tess *t, const rve_reg_opts *ro, int stretch, rve_reg_report *rep,
                              rve_cx **out, double **plane0_out, rve_err *err)
{
    *out = NULL;
    *plane0_out = NULL;
    if (!(ro->max_angle > 0 && ro->max_angle < 90) || ro->max_passes < 1 ||
        !(ro->min_angle >= 0 && ro->min_angle < 60))
        return rve_err_set(err, RVE_EUSAGE, NULL, "invalid regularisation options");
    if (ro->map)
        return rve_err_set(err, RVE_EUSAGE, NULL,
                           "a grain map is not supported with periodic tessellations (the polish "
                           "keeps to the input instead)");
    double thr;
    rve_status ts = mesh_reg_threshold(t, ro, &thr, err);
    if (ts != RVE_OK)
        return ts;
    /* pieces labelled by cell index + 1 (the input raster's labels) until meshing */
    rve_cx *c = NULL;
    int nsnap = 0;
    rve_status st = rve_cx_from_periodic(t, NULL, ro->box_snap > 0 ? ro->box_snap * thr : 0, &c, &nsnap, err);
    if (st != RVE_OK && st != RVE_ENOMEM && ro->box_snap > 0) { /* the snapped cut failed: cut as is */
        nsnap = 0;
        st = rve_cx_from_periodic(t, NULL, 0, &c, NULL, err);
    }
    if (st != RVE_OK)
        return st;
    double *plane0 = cx_planes(c);
    *out = c;
    *plane0_out = plane0;
    char why[256];
    if (!plane0)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    else if (rve_cx_check(c, why, sizeof why))
        st = rve_err_set(err, RVE_EINTERNAL, NULL, "periodic cut: %s", why);
    if (st == RVE_OK)
        st = rve_cx_reg(c, plane0, thr, ro->max_angle, ro->max_passes, ro->remove_small_cells, stretch, rep,
                        err);
    rep->box_snapped = (size_t)nsnap; /* after rve_cx_reg, which clears the report */
    rve_map *own = NULL;
    if (st == RVE_OK && ro->min_angle > 0)
        st = mesh_input_raster(t, thr, &own, err);
    if (st == RVE_OK && ro->min_angle > 0)
        st = raster_pieces(t, c, own, err);
    if (st == RVE_OK && ro->min_angle > 0) {
        rep->acc_vs_input = 1;
        st = rve_cx_polish(c, own, NULL, thr, ro->max_angle, ro->min_angle, ro, rep, err);
        if (st == RVE_OK && rve_cx_reg_measure(c, thr, rep) != 0)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    rve_map_free(own);
    if (st == RVE_OK && rve_cx_check(c, why, sizeof why))
        st = rve_err_set(err, RVE_EINTERNAL, NULL, "regularisation broke the topology: %s", why);
    return st;
}

/* The box complex regularised and polished; when short edges are left off
 * the pieces below threshold^3 (and their copies), once more with the
 * lengthening of the short edges no collapse removed (reg_stretch_short),
 * kept when it leaves fewer.  The lengthening runs only then: done on every
 * run it moves vertices whose edges the polish would have lengthened anyway,
 * and lowered the mesh's min q (seed 3 of the 1000-grain RVE: 0.060 ->
 * 0.043). */
rve_status mesh_reg_box_complex(const rve_tess *t, const rve_reg_opts *ro, rve_reg_report *rep,
                                rve_cx **out, double **plane0_out, rve_err *err)
{
    rve_status st = box_complex(t, ro, 0, rep, out, plane0_out, err);
    if (st != RVE_OK || rep->short_after <= rep->short_tiny)
        return st;
    rve_reg_report r1;
    rve_cx *c1 = NULL;
    double *p1 = NULL;
    rve_err e1;
    rve_err_clear(&e1);
    if (box_complex(t, ro, 1, &r1, &c1, &p1, &e1) == RVE_OK &&
        r1.short_after - r1.short_tiny < rep->short_after - rep->short_tiny) {
        rve_cx_free(*out);
        free(*plane0_out);
        *out = c1;
        *plane0_out = p1;
        *rep = r1;
    } else {
        rve_cx_free(c1);
        free(p1);
    }
    return RVE_OK;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The input tessellation for the pieces: piece k's seed is its cell's seed
 * translated by -g L (g its lattice box), its cell data (orientation) its
 * cell's in data (t itself, or the tessellation t is the shifted copy of);
 * not periodic. */
static rve_tess *pieces_tess(const rve_tess *t, const rve_tess *data, const rve_cx *c)
{
    double *sd = malloc(((size_t)c->nc + 1) * 4 * sizeof *sd);
    if (!sd)
        return NULL;
    for (int k = 0; k < c->nc; k++) {
        int cell = c->ccell[k];
        for (int a = 0; a < 3; a++)
            sd[4 * k + a] = t->seeds[4 * cell + a] - c->cshift[3 * k + a] * (t->hi[a] - t->lo[a]);
        sd[4 * k + 3] = t->seeds[4 * cell + 3];
    }
    static const int none[3] = {0, 0, 0};
    rve_tess *p = tess_alloc(c->nc, sd, t->lo, t->hi, none);
    free(sd);
    if (!p)
        return NULL;
    size_t no = data->ori ? (size_t)data->ori_n : 0;
    p->ori = no ? malloc(((size_t)c->nc + 1) * no * sizeof(double)) : NULL;
    p->ori_des = data->ori_des ? dupstr(data->ori_des) : NULL;
    p->crysym = data->crysym ? dupstr(data->crysym) : NULL;
    if ((no && !p->ori) || (data->ori_des && !p->ori_des) || (data->crysym && !p->crysym)) {
        rve_tess_free(p);
        return NULL;
    }
    p->ori_n = no ? data->ori_n : 0;
    for (int k = 0; no && k < c->nc; k++)
        memcpy(p->ori + no * (size_t)k, data->ori + no * (size_t)c->ccell[k], no * sizeof(double));
    memcpy(p->format, data->format, sizeof p->format);
    return p;
}

/* The window of t whose box planes cut faces and leave caps at the largest
 * angles (mesh_periodic_shift; angle[0..3) there, angle[3..6) for the box
 * as given): *ts is t rebuilt from its seeds translated by -shift (the same
 * Laguerre tessellation, translated: every cell's volume within 1e-9 of the
 * total), or NULL when the box stays (no shift on any axis, or cells that
 * the seeds do not rebuild). */
static rve_status shifted(const rve_tess *t, const rve_reg_opts *o, double shift[3], double angle[6],
                          rve_tess **ts, rve_err *err)
{
    *ts = NULL;
    double thr;
    rve_status ts0 = mesh_reg_threshold(t, o, &thr, err);
    if (ts0 != RVE_OK)
        return ts0;
    if (mesh_periodic_shift(t, thr, shift, angle) != 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (shift[0] == 0 && shift[1] == 0 && shift[2] == 0)
        return RVE_OK;
    double *sd = malloc(((size_t)t->n + 1) * 4 * sizeof *sd);
    if (!sd)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int k = 0; k < t->n; k++) {
        for (int a = 0; a < 3; a++)
            sd[4 * k + a] = t->seeds[4 * k + a] - shift[a];
        sd[4 * k + 3] = t->seeds[4 * k + 3];
    }
    rve_tess_opts to;
    rve_tess_opts_default(&to);
    to.topology = 0;
    to.keep_container = 0;
    rve_status st = rve_tess_build(sd, t->n, t->lo, t->hi, t->periodic, &to, ts, err);
    free(sd);
    /* the same tessellation translated, or the box as given: a file whose
     * cells are not the Laguerre cells of its seeds is not rebuilt */
    double vsum = 0;
    for (int k = 0; st == RVE_OK && k < t->n; k++)
        vsum += t->cells[k].vol;
    for (int k = 0; st == RVE_OK && *ts && k < t->n; k++)
        if (!(fabs((*ts)->cells[k].vol - t->cells[k].vol) <= 1e-9 * vsum)) {
            rve_tess_free(*ts);
            *ts = NULL;
        }
    return st;
}

rve_status rve_reg_periodic(const rve_tess *t, const int *ids, const rve_reg_opts *o, rve_tess **out,
                            int **out_ids, rve_reg_report *rep, rve_err *err)
{
    rve_reg_opts def;
    rve_reg_report rdummy;
    if (!o) {
        rve_reg_opts_default(&def);
        o = &def;
    }
    if (!rep)
        rep = &rdummy;
    *out = NULL;
    *out_ids = NULL;
    if (!(t->periodic[0] || t->periodic[1] || t->periodic[2]))
        return rve_err_set(err, RVE_EUSAGE, NULL, "rve_reg_periodic: the tessellation is not periodic");
    rve_cx *c = NULL;
    double *plane0 = NULL;
    rve_tess *pt = NULL, *ts = NULL;
    double shift[3] = {0, 0, 0}, angle[6] = {0, 0, 0, 0, 0, 0};
    rve_status st = o->box_shift ? shifted(t, o, shift, angle, &ts, err) : RVE_OK;
    if (st == RVE_OK)
        st = mesh_reg_box_complex(t, o, rep, &c, &plane0, err);
    if (ts) { /* the other window: kept when its smallest angle is larger */
        rve_reg_report r1;
        rve_cx *c1 = NULL;
        double *p1 = NULL;
        rve_err e1;
        rve_err_clear(&e1);
        rve_status s1 = mesh_reg_box_complex(ts, o, &r1, &c1, &p1, &e1);
        if (s1 == RVE_OK && (st != RVE_OK || r1.angle_after > rep->angle_after)) {
            rve_cx_free(c);
            free(plane0);
            c = c1;
            plane0 = p1;
            *rep = r1;
            st = RVE_OK;
            rve_err_clear(err); /* the shifted window is kept: no failure to tell */
        } else {
            if (st != RVE_OK && err) { /* neither window: both failures, the box's code */
                rve_err e0 = *err;
                rve_err_set(err, st, e0.file[0] ? e0.file : NULL, "%s (the shifted window failed too: %s)",
                            e0.msg, e1.msg);
            }
            rve_cx_free(c1);
            free(p1);
            rve_tess_free(ts);
            ts = NULL;
        }
    }
    for (int a = 0; a < 3; a++) /* after the regularisation, which clears the report */
        rep->box_shift[a] = ts ? shift[a] : 0;
    rep->box_cut_angle = o->box_shift ? fmin(angle[ts ? 0 : 3], fmin(angle[ts ? 1 : 4], angle[ts ? 2 : 5])) : 0;
    if (st == RVE_OK && !(pt = pieces_tess(ts ? ts : t, t, c)))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    int *pid = st == RVE_OK ? malloc(((size_t)c->nc + 1) * sizeof *pid) : NULL;
    if (st == RVE_OK && !pid)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int k = 0; st == RVE_OK && k < c->nc; k++)
        pid[k] = ids ? ids[c->ccell[k]] : c->ccell[k] + 1;
    if (st == RVE_OK)
        st = mesh_cx_to_tess(c, pt, plane0, out, err);
    if (st == RVE_OK)
        *out_ids = pid;
    else
        free(pid);
    rve_tess_free(pt);
    rve_tess_free(ts);
    free(plane0);
    rve_cx_free(c);
    return st;
}
