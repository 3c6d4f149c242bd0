/* api.c - the mesh module's public entry points: tessellation <-> complex,
 * regularisation and meshing of an rve_tess. */
#include "config.h"
#include "mesh/mesh_internal.h"
#include "mesh/reg_internal.h"
#include "mesh/reg_state.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int has_periodic(const rve_tess *t)
{
    return t->periodic[0] || t->periodic[1] || t->periodic[2];
}

rve_status rve_cx_from_tess(const rve_tess *t, rve_cx **out, double **plane0, rve_err *err)
{
    *out = NULL;
    if (plane0)
        *plane0 = NULL;
    if (has_periodic(t))
        return rve_err_set(err, RVE_EDATA, NULL,
                           "periodic tessellations are not supported by regularisation and "
                           "meshing (their cells cross the box; mesh a non-periodic tessellation)");
    if (!t->has_topo)
        return rve_err_set(err, RVE_EUSAGE, NULL, "the tessellation has no topology");
    rve_cx *c = calloc(1, sizeof *c);
    if (!c)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    int nfv = t->face_voff[t->nface];
    c->nv = t->nver;
    c->nf = t->nface;
    c->nc = t->n;
    c->v = malloc((size_t)(3 * t->nver + 1) * sizeof(double));
    c->foff = malloc((size_t)(t->nface + 1) * sizeof(int));
    c->fv = malloc((size_t)(nfv + 1) * sizeof(int));
    c->fpt = malloc((size_t)(3 * t->nface + 1) * sizeof(double));
    c->fflat = malloc((size_t)(t->nface + 1) * sizeof(int));
    c->fc = malloc((size_t)(2 * t->nface + 1) * sizeof(int));
    c->fdom = malloc((size_t)(t->nface + 1) * sizeof(int));
    c->cid = malloc((size_t)(t->n + 1) * sizeof(int));
    double *pl = plane0 ? malloc((size_t)(4 * t->nface + 1) * sizeof(double)) : NULL;
    if (!c->v || !c->foff || !c->fv || !c->fpt || !c->fflat || !c->fc || !c->fdom || !c->cid ||
        (plane0 && !pl)) {
        rve_cx_free(c);
        free(pl);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memcpy(c->v, t->ver, (size_t)(3 * t->nver) * sizeof(double));
    memcpy(c->foff, t->face_voff, (size_t)(t->nface + 1) * sizeof(int));
    memcpy(c->fv, t->face_ver, (size_t)nfv * sizeof(int));
    double scale = 0;
    for (int a = 0; a < 3; a++)
        scale = fmax(scale, t->hi[a] - t->lo[a]);
    for (int k = 0; k < t->n; k++)
        c->cid[k] = k + 1;
    for (int f = 0; f < t->nface; f++) {
        int c0 = t->face_cell[2 * f], c1 = t->face_cell[2 * f + 1];
        if (c0 < 0 || c0 >= t->n || c1 >= t->n || c1 < -6) {
            rve_cx_free(c);
            free(pl);
            return rve_err_set(err, RVE_EDATA, NULL, "face %d has invalid cells %d %d", f + 1, c0, c1);
        }
        c->fc[2 * f] = c0;
        c->fc[2 * f + 1] = c1 >= 0 ? c1 : -1;
        c->fdom[f] = c1 >= 0 ? -1 : -c1 - 1;
        double fp[4];
        rve_tess_face_plane(t, f, fp);
        if (pl)
            memcpy(pl + 4 * f, fp, 4 * sizeof(double));
        /* face point: the stored one when the face was regularised, else the mean */
        if (t->face_state && t->face_state[f] && t->face_ptxyz && t->face_pt && t->face_pt[f] >= 0)
            memcpy(c->fpt + 3 * f, t->face_ptxyz + 3 * f, 3 * sizeof(double));
        else
            rve_cx_face_centre(c, f, c->fpt + 3 * f);
        /* planar within rounding: mesh as one plane surface */
        double dev = 0;
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
            dev = fmax(dev, fabs(v3_dot(fp, c->v + 3 * c->fv[i]) - fp[3]));
        c->fflat[f] = dev <= 1e-12 * (scale > 0 ? scale : 1);
    }
    /* domain planes of the box: walls x0 x1 y0 y1 z0 z1, outward normals */
    c->ndom = 6;
    for (int k = 0; k < 6; k++) {
        double *d = c->dom + 4 * k;
        int ax = k / 2, hi = k % 2;
        d[0] = d[1] = d[2] = 0;
        d[ax] = hi ? 1 : -1;
        d[3] = hi ? t->hi[ax] : -t->lo[ax];
    }
    for (int a = 0; a < 3; a++) {
        c->dom_lo[a] = t->lo[a];
        c->dom_hi[a] = t->hi[a];
    }
    *out = c;
    if (plane0)
        *plane0 = pl;
    return RVE_OK;
}

int mesh_key_cmp(const void *x, const void *y)
{
    const mesh_key *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}


/* Without a grain map, the polish keeps to the input tessellation: its
 * raster at half the threshold (at most 2^23 voxels), by power
 * distance, or by geometry when the input was regularised already. */
rve_status mesh_input_raster(const rve_tess *t, double thr, rve_map **out, rve_err *err)
{
    double h = thr / 2, ext[3];
    for (int a = 0; a < 3; a++)
        ext[a] = t->hi[a] - t->lo[a];
    double cells = ext[0] * ext[1] * ext[2] / (h * h * h);
    if (cells > 8388608.0)
        h *= cbrt(cells / 8388608.0);
    /* The grid is shifted by an irrational share of a voxel so that voxel
     * centres do not fall on the faces of lattice-like inputs (ties the
     * polish would win by nudging whole faces). */
    const double shift = 0.3819660112501051; /* 2 - golden ratio */
    int n[3];
    for (int a = 0; a < 3; a++)
        n[a] = (int)ceil(ext[a] / h - 1e-9) + 1;
    rve_map *m = rve_map_alloc(n[0], n[1], n[2]);
    if (!m)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int a = 0; a < 3; a++) {
        m->h[a] = h;
        m->origin[a] = t->lo[a] - shift * h;
    }
    int planar = 1;
    for (int f = 0; f < t->nface && planar; f++)
        planar = !(t->face_state && t->face_state[f]);
    rve_status st = planar ? rve_tess_rasterize(t, NULL, m, err) : rve_mesh_rasterize(t, NULL, m, err);
    if (st != RVE_OK) {
        rve_map_free(m);
        return st;
    }
    for (int k = 0; k < n[2]; k++) /* centres outside the domain: void */
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                double x[3];
                rve_map_voxel_centre(m, i, j, k, x);
                if (x[0] > t->hi[0] || x[1] > t->hi[1] || x[2] > t->hi[2] || x[0] < t->lo[0] ||
                    x[1] < t->lo[1] || x[2] < t->lo[2])
                    m->lab[rve_map_index(m, i, j, k)] = 0;
            }
    *out = m;
    return RVE_OK;
}

rve_status mesh_reg_threshold(const rve_tess *t, const rve_reg_opts *o, double *thr, rve_err *err)
{
    int nonempty = t->n - t->nempty;
    if (nonempty < 1)
        return rve_err_set(err, RVE_EDATA, NULL, "the tessellation has no cell");
    double vol = 1;
    for (int a = 0; a < 3; a++)
        vol *= t->hi[a] - t->lo[a];
    *thr = o->length > 0 ? o->length : o->rsel * 0.25 * cbrt(vol / nonempty);
    if (!(*thr > 0) || !isfinite(*thr))
        return rve_err_set(err, RVE_EUSAGE, NULL, "the edge length threshold must be positive");
    return RVE_OK;
}

rve_status rve_reg(const rve_tess *t, const rve_reg_opts *o, rve_tess **out, rve_reg_report *rep,
                   rve_err *err)
{
    rve_reg_opts def;
    if (!o) {
        rve_reg_opts_default(&def);
        o = &def;
    }
    rve_reg_report rdummy;
    if (!rep)
        rep = &rdummy;
    *out = NULL;
    if (!(o->max_angle > 0 && o->max_angle < 90))
        return rve_err_set(err, RVE_EUSAGE, NULL, "maximum face bend must be in (0, 90) degrees");
    if (o->max_passes < 1)
        return rve_err_set(err, RVE_EUSAGE, NULL, "at least one pass is needed");
    if (!(o->min_angle >= 0 && o->min_angle < 60))
        return rve_err_set(err, RVE_EUSAGE, NULL, "the minimum angle must be in [0, 60) degrees");
    double thr;
    rve_status ts = mesh_reg_threshold(t, o, &thr, err);
    if (ts != RVE_OK)
        return ts;
    rve_cx *c;
    double *plane0;
    rve_status st = rve_cx_from_tess(t, &c, &plane0, err);
    if (st != RVE_OK)
        return st;
    char why[256];
    if (rve_cx_check(c, why, sizeof why)) {
        rve_cx_free(c);
        free(plane0);
        return rve_err_set(err, RVE_EDATA, NULL, "invalid tessellation: %s", why);
    }
    st = rve_cx_reg(c, plane0, thr, o->max_angle, o->max_passes, o->remove_small_cells, 0, rep, err);
    rve_map *own = NULL;
    if (st == RVE_OK && o->min_angle > 0 && !o->map)
        st = mesh_input_raster(t, thr, &own, err);
    if (st == RVE_OK && (o->min_angle > 0 || o->map)) {
        rep->acc_vs_input = own != NULL;
        st = rve_cx_polish(c, o->map ? o->map : own, o->map ? o->ids : NULL, thr, o->max_angle,
                           o->min_angle, o, rep, err);
        if (st == RVE_OK && rve_cx_reg_measure(c, thr, rep) != 0)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    rve_map_free(own);
    if (st == RVE_OK && rve_cx_check(c, why, sizeof why))
        st = rve_err_set(err, RVE_EINTERNAL, NULL, "regularisation broke the topology: %s", why);
    if (st == RVE_OK)
        st = mesh_cx_to_tess(c, t, plane0, out, err);
    rve_cx_free(c);
    free(plane0);
    return st;
}

rve_status rve_mesh_tess(const rve_tess *t, const int *ids, const rve_mesh_opts *o,
                         const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out, rve_err *err)
{
    rve_mesh_opts def;
    if (!o) {
        rve_mesh_opts_default(&def);
        o = &def;
    }
    if (out)
        *out = NULL;
    int nonempty = t->n - t->nempty;
    if (nonempty < 1)
        return rve_err_set(err, RVE_EDATA, NULL, "the tessellation has no cell");
    double vol = 1;
    for (int a = 0; a < 3; a++)
        vol *= t->hi[a] - t->lo[a];
    double cl = o->cl > 0 ? o->cl : o->rcl * 0.5 * cbrt(vol / nonempty);
    rve_cx *c;
    /* periodic: the cells are cut at the box faces into pieces first */
    rve_status st = has_periodic(t) ? rve_cx_from_periodic(t, ids, 0, &c, NULL, err)
                                    : rve_cx_from_tess(t, &c, NULL, err);
    if (st != RVE_OK)
        return st;
    if (ids && !has_periodic(t))
        for (int k = 0; k < t->n; k++)
            c->cid[k] = ids[k];
    /* pieces of a periodic box complex (rve_reg_periodic's output): periodic again */
    if (!has_periodic(t) && mesh_cx_detect_periodic(c) < 0) {
        rve_cx_free(c);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    char why[256];
    if (rve_cx_check(c, why, sizeof why)) {
        rve_cx_free(c);
        return rve_err_set(err, RVE_EDATA, NULL, "invalid tessellation: %s", why);
    }
    /* short edges (rve_reg's default threshold): an unregularised input */
    rve_reg_opts ro;
    rve_reg_opts_default(&ro);
    double thr = 0;
    size_t hist[RVE_REG_HIST], nedges = 0, nshort = 0;
    double minlen;
    if (mesh_reg_threshold(t, &ro, &thr, NULL) == RVE_OK)
        reg_histogram(c, NULL, thr, hist, &nedges, &nshort, &minlen);
    st = rve_cx_mesh(c, o, cl, outputs, out, err);
    if (st == RVE_OK && out && *out) {
        (*out)->short_edges = nshort;
        (*out)->short_threshold = thr;
    }
    rve_cx_free(c);
    return st;
}

/* Initial face planes of a complex whose faces are planar (normal out of
 * fc[2f], through the face point): what rve_cx_reg bends faces against. */
rve_status rve_mesh_tess_reg(const rve_tess *t, const int *ids, const rve_reg_opts *ro,
                             rve_reg_report *rep, const rve_mesh_opts *o,
                             const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out, rve_err *err)
{
    rve_reg_opts rdef;
    rve_mesh_opts mdef;
    rve_reg_report rdummy;
    if (!ro) {
        rve_reg_opts_default(&rdef);
        ro = &rdef;
    }
    if (!o) {
        rve_mesh_opts_default(&mdef);
        o = &mdef;
    }
    if (!rep)
        rep = &rdummy;
    if (out)
        *out = NULL;
    if (!has_periodic(t)) { /* the plain path: through the regularised tessellation */
        rve_tess *r = NULL;
        rve_status st = rve_reg(t, ro, &r, rep, err);
        if (st == RVE_OK)
            st = rve_mesh_tess(r, ids, o, outputs, out, err);
        rve_tess_free(r);
        return st;
    }
    /* Periodic: through the regularised pieces (rve_reg_periodic), meshed
     * at the grains' element size, exactly as rve reg then rve mesh --cl do.
     * Meshing the regularised box complex directly gave worse elements on
     * every RVE measured (1000 grains, seeds 1-5: minimum q 0.015-0.062
     * against 0.033-0.081, docs/periodic.md). */
    rve_tess *r = NULL;
    int *pids = NULL;
    rve_status st = rve_reg_periodic(t, ids, ro, &r, &pids, rep, err);
    if (st == RVE_OK) {
        int nonempty = t->n - t->nempty;
        double vol = 1;
        for (int a = 0; a < 3; a++)
            vol *= t->hi[a] - t->lo[a];
        rve_mesh_opts og = *o;
        og.cl = o->cl > 0 ? o->cl : o->rcl * 0.5 * cbrt(vol / nonempty);
        st = rve_mesh_tess(r, pids, &og, outputs, out, err);
    }
    if (st == RVE_OK && out && *out) {
        (*out)->short_edges = rep->short_after;
        (*out)->short_threshold = rep->threshold;
    }
    free(pids);
    rve_tess_free(r);
    return st;
}
