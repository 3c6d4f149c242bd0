/* Pipeline: fit (or synthesis), regularisation and meshing in one call,
 * each stage a small named step; see rve/pipeline.h. */
#include "config.h"
#include <rve/pipeline.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rve_pipeline_opts_init(rve_pipeline_opts *o)
{
    memset(o, 0, sizeof *o);
    rve_fit_opts_init(&o->fit);
    rve_reg_opts_default(&o->reg);
    rve_mesh_opts_default(&o->mesh);
    o->regularise = 1;
    o->polish_on_map = 1;
    o->mesh_enabled = 1;
}

void rve_pipeline_result_free(rve_pipeline_result *r)
{
    if (!r)
        return;
    rve_fit_result_free(&r->fit);
    rve_tess_free(r->tess);
    rve_tess_free(r->reg);
    rve_mesh_free(r->mesh);
    free(r->ids);
    memset(r, 0, sizeof *r);
}

static void result_init(rve_pipeline_result *r)
{
    memset(r, 0, sizeof *r);
    r->fit.n = 0;
}

/* one progress report (no-op without a callback) */
static void report(const rve_pipeline_opts *o, rve_pipeline_stage stage, double done, double total)
{
    if (!o->progress)
        return;
    rve_pipeline_progress p;
    memset(&p, 0, sizeof p);
    p.stage = stage;
    p.done = done;
    p.total = total > 0 ? total : 1;
    p.fit_stage = -1;
    p.objective = NAN;
    o->progress(o->progress_ctx, &p);
}

/* ------------------------------------------------------------------ fit */
rve_status rve_pipeline_fit_tess(const rve_map *map, const rve_fit_result *fr, rve_tess **out,
                                 int **ids, rve_err *err)
{
    int n = fr->n;
    double *s = malloc((size_t)(n > 0 ? n : 1) * 4 * sizeof(double));
    int *id = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!s || !id) {
        free(s);
        free(id);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (int k = 0; k < n; k++) {
        memcpy(s + 4 * k, fr->seed + 3 * k, 3 * sizeof(double));
        s[4 * k + 3] = fr->weight[k];
        id[k] = (int)rve_map_id(map, fr->label[k]);
    }
    double lo[3], hi[3];
    int dims[3] = {map->nx, map->ny, map->nz};
    for (int a = 0; a < 3; a++) {
        lo[a] = map->origin[a];
        hi[a] = lo[a] + dims[a] * map->h[a];
    }
    rve_tess_opts to;
    rve_tess_opts_default(&to);
    to.topology = 1;
    to.keep_container = 0;
    rve_tess *t = NULL;
    rve_status st = rve_tess_build(s, n, lo, hi, NULL, &to, &t, err);
    if (st == RVE_OK)
        st = rve_tess_set_ori_from_map(t, map, fr->label, err);
    free(s);
    if (st != RVE_OK) {
        rve_tess_free(t);
        free(id);
        return st;
    }
    *out = t;
    if (ids)
        *ids = id;
    else
        free(id);
    return RVE_OK;
}

typedef struct {
    const rve_pipeline_opts *o;
    double total1, total3, total;
} fit_progress_ctx;

/* the fit's stages on one bar: Eq. 6.5 sweeps, classifier (its share
 * follows frac: it stops early), polishing sweeps */
static void fit_progress(void *ctx, int stage, int sweep, double frac, double obj, double acc)
{
    fit_progress_ctx *c = ctx;
    rve_pipeline_progress p;
    memset(&p, 0, sizeof p);
    p.stage = RVE_PIPELINE_FIT;
    p.fit_stage = stage;
    p.done = stage == 0 ? sweep : stage >= 2 ? c->total1 + frac * c->total3 : c->total1 + c->total3 + sweep;
    if (p.done > c->total)
        p.done = c->total;
    p.total = c->total;
    p.objective = obj;
    p.accuracy = acc;
    c->o->progress(c->o->progress_ctx, &p);
}

/* Write t to path (when given) and continue from what was written. */
static rve_status write_and_reread(rve_tess **t, int **ids, const char *path, rve_err *err)
{
    if (!path)
        return RVE_OK;
    rve_status st = rve_tess_write_tess(*t, path, *ids, err);
    if (st != RVE_OK)
        return st;
    rve_tess *back = NULL;
    int *bids = NULL;
    st = rve_tess_read_tess(rve_afile_staged_path(path), &back, &bids, err);
    if (st != RVE_OK) {
        if (err)
            snprintf(err->file, sizeof err->file, "%s", path);
        return st;
    }
    rve_tess_free(*t);
    free(*ids);
    *t = back;
    *ids = bids;
    return RVE_OK;
}

static void count_cells(rve_pipeline_result *r)
{
    r->ncells = r->tess->n;
    r->nempty = r->tess->nempty;
}

static rve_status stage_done(const rve_pipeline_opts *o, rve_pipeline_stage s, rve_pipeline_result *r,
                             double t0, rve_err *err)
{
    r->seconds[s] = rve_now() - t0;
    report(o, s, 1, 1);
    return o->stage_done ? o->stage_done(o->stage_ctx, s, r, err) : RVE_OK;
}

static rve_status run_fit(const rve_map *map, const rve_pipeline_opts *o, rve_pipeline_result *r,
                          rve_err *err)
{
    double t0 = rve_now();
    rve_fit_opts fo = o->fit;
    fit_progress_ctx pc = {o, fo.max_sweeps, fo.classify > 0 ? 10 : 0, 0};
    pc.total = pc.total1 + pc.total3 + fo.polish;
    report(o, RVE_PIPELINE_FIT, 0, pc.total);
    fo.progress = o->progress ? fit_progress : NULL;
    fo.progress_ctx = &pc;
    rve_status st = rve_fit(map, &fo, &r->fit, err);
    if (st == RVE_OK)
        st = rve_pipeline_fit_tess(map, &r->fit, &r->tess, &r->ids, err);
    if (st == RVE_OK)
        st = write_and_reread(&r->tess, &r->ids, o->fit_path, err);
    if (st != RVE_OK)
        return st;
    count_cells(r);
    return stage_done(o, RVE_PIPELINE_FIT, r, t0, err);
}

/* ----------------------------------------------------------- synthesis */
typedef struct {
    const rve_pipeline_opts *o;
} gen_progress_ctx;

static void gen_progress(void *ctx, int iter, int max_iter, double objective)
{
    gen_progress_ctx *c = ctx;
    rve_pipeline_progress p;
    memset(&p, 0, sizeof p);
    p.stage = RVE_PIPELINE_GEN;
    p.fit_stage = -1;
    p.done = iter;
    p.total = max_iter > 0 ? max_iter : 1;
    p.objective = objective;
    c->o->progress(c->o->progress_ctx, &p);
}

static rve_status run_gen(const rve_morpho *m, const rve_gen_params *gp, const char *path,
                          const rve_pipeline_opts *o, rve_pipeline_result *r, rve_err *err)
{
    double t0 = rve_now();
    size_t n = gp->n;
    if (n < 1 || n > (size_t)1 << 28)
        return rve_err_set(err, RVE_EUSAGE, NULL, "synthesis: expected 1 to 2^28 cells, got %zu", n);
    rve_gen_params p = *gp;
    gen_progress_ctx pc = {o};
    p.progress = o->progress ? gen_progress : NULL;
    p.progress_ctx = &pc;
    report(o, RVE_PIPELINE_GEN, 0, p.max_iter);
    double *seeds = malloc(n * 3 * sizeof(double)), *w = malloc(n * sizeof(double));
    double *s4 = malloc(n * 4 * sizeof(double));
    int *ids = malloc(n * sizeof(int));
    rve_status st = RVE_OK;
    if (!seeds || !w || !s4 || !ids)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK)
        st = rve_gen(m, &p, seeds, w, NULL, &r->gen, err);
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++) {
            memcpy(s4 + 4 * i, seeds + 3 * i, 3 * sizeof(double));
            s4[4 * i + 3] = w[i];
            ids[i] = (int)i + 1;
        }
        rve_tess_opts to;
        rve_tess_opts_default(&to);
        to.keep_container = 0;
        double lo[3] = {0, 0, 0};
        int per[3] = {gp->periodic, gp->periodic, gp->periodic};
        st = rve_tess_build(s4, (int)n, lo, gp->domain, per, &to, &r->tess, err);
    }
    free(seeds);
    free(w);
    free(s4);
    if (st != RVE_OK) {
        free(ids);
        return st;
    }
    r->ids = ids;
    if ((st = write_and_reread(&r->tess, &r->ids, path, err)) != RVE_OK)
        return st;
    count_cells(r);
    return stage_done(o, RVE_PIPELINE_GEN, r, t0, err);
}

/* ------------------------------------------------- regularise and mesh */
static void reg_progress(void *ctx, double frac, size_t moves, double acc)
{
    const rve_pipeline_opts *o = ctx;
    rve_pipeline_progress p;
    memset(&p, 0, sizeof p);
    p.stage = RVE_PIPELINE_REG;
    p.fit_stage = -1;
    p.done = 1000 * frac;
    p.total = 1000;
    p.objective = NAN;
    p.accuracy = acc;
    p.moves = moves;
    o->progress(o->progress_ctx, &p);
}

static int is_periodic(const rve_tess *t)
{
    return t->periodic[0] || t->periodic[1] || t->periodic[2];
}

/* A sparse map (labels far above the grain count) is renumbered in a copy
 * before the polish (ids kept), as rve reg does; *own gets the copy. */
static rve_status polish_map(const rve_map *map, const rve_map **use, rve_map **own, rve_err *err)
{
    *use = map;
    *own = NULL;
    if (!map || !(map->nlabels > 1024 && map->nlabels / 2 > rve_map_ngrains(map)))
        return RVE_OK;
    rve_map *c = rve_map_copy(map);
    if (!c)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    rve_status st = rve_map_renumber(c, err);
    if (st != RVE_OK) {
        rve_map_free(c);
        return st;
    }
    *use = *own = c;
    return RVE_OK;
}

static rve_status run_reg(const rve_map *map, const rve_pipeline_opts *o, rve_pipeline_result *r,
                          rve_err *err)
{
    double t0 = rve_now();
    report(o, RVE_PIPELINE_REG, 0, 1000);
    rve_reg_opts ro = o->reg;
    rve_map *own = NULL;
    const rve_map *use = NULL;
    rve_status st = polish_map(o->polish_on_map ? map : NULL, &use, &own, err);
    if (st != RVE_OK)
        return st;
    ro.map = use;
    ro.ids = r->ids;
    ro.progress = o->progress ? reg_progress : NULL;
    ro.progress_ctx = (void *)o;
    st = rve_reg(r->tess, &ro, &r->reg, &r->reg_report, err);
    rve_map_free(own);
    if (st != RVE_OK)
        return st;
    r->regularised = 1;
    if (o->reg_path) {
        int *ids = malloc((size_t)r->tess->n * sizeof(int));
        if (!ids)
            return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        memcpy(ids, r->ids, (size_t)r->tess->n * sizeof(int));
        st = write_and_reread(&r->reg, &ids, o->reg_path, err);
        free(ids);
        if (st != RVE_OK)
            return st;
    }
    return stage_done(o, RVE_PIPELINE_REG, r, t0, err);
}

static rve_status run_mesh(const rve_pipeline_opts *o, rve_pipeline_result *r, rve_err *err)
{
    double t0 = rve_now();
    report(o, RVE_PIPELINE_MESH, 0, 1);
    rve_status st;
    if (is_periodic(r->tess) && o->regularise) {
        /* periodic cells are regularised as they are cut at the box faces */
        rve_reg_opts ro = o->reg;
        ro.map = NULL;
        ro.ids = NULL;
        ro.progress = o->progress ? reg_progress : NULL;
        ro.progress_ctx = (void *)o;
        st = rve_mesh_tess_reg(r->tess, r->ids, &ro, &r->reg_report, &o->mesh, o->mesh_paths, &r->mesh, err);
        r->regularised = st == RVE_OK;
    } else {
        st = rve_mesh_tess(r->reg ? r->reg : r->tess, r->ids, &o->mesh, o->mesh_paths, &r->mesh, err);
    }
    if (st != RVE_OK)
        return st;
    rve_mesh_quality_compute(r->mesh, &r->quality);
    return stage_done(o, RVE_PIPELINE_MESH, r, t0, err);
}

/* the stages after the fit or synthesis */
static rve_status run_rest(const rve_map *map, const rve_pipeline_opts *o, rve_pipeline_result *r,
                           rve_err *err)
{
    rve_status st = RVE_OK;
    if (o->regularise && !is_periodic(r->tess))
        st = run_reg(map, o, r, err);
    if (st == RVE_OK && o->mesh_enabled)
        st = run_mesh(o, r, err);
    return st;
}

rve_status rve_pipeline_fit(const rve_map *map, const rve_pipeline_opts *o, rve_pipeline_result *r,
                            rve_err *err)
{
    rve_pipeline_opts def;
    if (!o) {
        rve_pipeline_opts_init(&def);
        o = &def;
    }
    result_init(r);
    if (!map)
        return rve_err_set(err, RVE_EUSAGE, NULL, "pipeline: no grain map");
    double t0 = rve_now();
    rve_status st = run_fit(map, o, r, err);
    if (st == RVE_OK)
        st = run_rest(map, o, r, err);
    r->seconds_total = rve_now() - t0;
    return st;
}

rve_status rve_pipeline_gen(const rve_morpho *m, const rve_gen_params *p, const char *gen_path,
                            const rve_pipeline_opts *o, rve_pipeline_result *r, rve_err *err)
{
    rve_pipeline_opts def;
    if (!o) {
        rve_pipeline_opts_init(&def);
        o = &def;
    }
    result_init(r);
    if (!m || !p)
        return rve_err_set(err, RVE_EUSAGE, NULL, "pipeline: no morphology or synthesis parameters");
    double t0 = rve_now();
    rve_status st = run_gen(m, p, gen_path, o, r, err);
    if (st == RVE_OK)
        st = run_rest(NULL, o, r, err);
    r->seconds_total = rve_now() - t0;
    return st;
}
