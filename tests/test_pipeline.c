/* Tests of the library pipeline (rve/pipeline.h) against oracles it does not
 * compute: a map rasterised from a known Laguerre tessellation (the fit can
 * recover it), the box volume (the mesh must fill it exactly), the map's
 * grain ids (every tet carries one), the file written (read back by the
 * tess reader), and the order of progress and stage reports. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/pipeline.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

#include "test_rng.h"

/* a map of N^3 voxels from n random Laguerre seeds, ids 10, 20, ... */
static rve_map *laguerre_map(int n, int N)
{
    double sw[4 * 64];
    uint32_t lab[64];
    for (int k = 0; k < n; k++) {
        for (int a = 0; a < 3; a++)
            sw[4 * k + a] = 2 + urand() * (N - 4);
        sw[4 * k + 3] = 1 + 2 * urand();
        lab[k] = (uint32_t)(k + 1);
    }
    rve_map *m = rve_map_alloc(N, N, N);
    ck_assert_ptr_nonnull(m);
    rve_err e;
    ck_assert_int_eq(rve_tess_rasterize_seeds(sw, n, lab, m, &e), RVE_OK);
    rve_map_update_nlabels(m);
    ck_assert_int_eq(rve_map_renumber(m, &e), RVE_OK);
    return m;
}

static double mesh_volume(const rve_mesh *m)
{
    double v = 0;
    int npe = m->order == 2 ? 10 : 4;
    for (size_t t = 0; t < m->ntets; t++) {
        const double *p[4];
        for (int i = 0; i < 4; i++)
            p[i] = m->xyz + 3 * m->tets[npe * t + i];
        double a[3], b[3], c[3];
        for (int i = 0; i < 3; i++) {
            a[i] = p[1][i] - p[0][i];
            b[i] = p[2][i] - p[0][i];
            c[i] = p[3][i] - p[0][i];
        }
        v += fabs(a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                  a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
    }
    return v;
}

typedef struct {
    int starts[RVE_PIPELINE_NSTAGES], ends[RVE_PIPELINE_NSTAGES], hooks[RVE_PIPELINE_NSTAGES];
    int order[8], norder;
    int bad; /* a report outside [0, total] or going backwards within a stage */
    double last;
    int last_stage;
} trace;

static void on_progress(void *ctx, const rve_pipeline_progress *p)
{
    trace *t = ctx;
    if (p->done < 0 || p->done > p->total || !(p->total > 0))
        t->bad++;
    if ((int)p->stage != t->last_stage) {
        /* the first report of a stage says it starts */
        if (p->done != 0)
            t->bad++;
        t->starts[p->stage]++;
        t->last = 0;
        t->last_stage = p->stage;
    } else if ((int)p->stage == t->last_stage && p->done < t->last && p->done < p->total) {
        t->bad++;
    }
    if (p->done >= p->total)
        t->ends[p->stage]++;
    t->last = p->done;
}

static rve_status on_stage(void *ctx, rve_pipeline_stage s, const rve_pipeline_result *r, rve_err *err)
{
    trace *t = ctx;
    (void)err;
    t->hooks[s]++;
    if (t->norder < 8)
        t->order[t->norder++] = s;
    /* what the stage promised is there when it is reported */
    if ((s == RVE_PIPELINE_FIT || s == RVE_PIPELINE_GEN) && (!r->tess || !r->ids))
        t->bad++;
    if (s == RVE_PIPELINE_MESH && !r->mesh)
        t->bad++;
    return RVE_OK;
}

START_TEST(test_fit_pipeline)
{
    int n = 10, N = 20;
    rve_map *m = laguerre_map(n, N);
    /* ids that are not the labels: the mesh must carry the ids */
    m->ids = calloc(m->nlabels + 1, sizeof *m->ids);
    ck_assert_ptr_nonnull(m->ids);
    for (uint32_t l = 1; l <= m->nlabels; l++)
        m->ids[l] = 100 + 7 * l;
    int g = (int)rve_map_ngrains(m);
    rve_pipeline_opts o;
    rve_pipeline_opts_init(&o);
    o.fit.max_sweeps = 6;
    o.fit.polish = 4;
    char dir[] = "/tmp/rve-pipeline-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char regp[64];
    snprintf(regp, sizeof regp, "%s/reg.tess", dir);
    o.reg_path = regp;
    trace tr;
    memset(&tr, 0, sizeof tr);
    tr.last_stage = -1;
    o.progress = on_progress;
    o.progress_ctx = &tr;
    o.stage_done = on_stage;
    o.stage_ctx = &tr;
    rve_pipeline_result r;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_pipeline_fit(m, &o, &r, &e) == RVE_OK, "%s: %s", e.file, e.msg);
    /* the fit recovers a rasterised Laguerre tessellation almost exactly */
    ck_assert_int_eq(r.ncells, g);
    ck_assert_int_eq(r.fit.n, g);
    ck_assert_msg(r.fit.acc_final > 0.97, "accuracy %.4f", r.fit.acc_final);
    ck_assert(r.fit.acc_final >= r.fit.acc_init);
    ck_assert(isfinite(r.fit.obj_final) && r.fit.obj_final <= r.fit.obj_init);
    for (int k = 0; k < r.ncells; k++)
        ck_assert_int_eq(r.ids[k], (int)(100 + 7 * r.fit.label[k]));
    ck_assert(r.regularised && r.reg);
    /* the mesh fills the box exactly and every tet carries a grain id */
    ck_assert_ptr_nonnull(r.mesh);
    double vol = mesh_volume(r.mesh);
    ck_assert_msg(fabs(vol - N * N * N) < 1e-9 * N * N * N, "mesh volume %.12g, box %d", vol, N * N * N);
    for (size_t t = 0; t < r.mesh->ntets; t++) {
        int id = r.mesh->tet_grain[t];
        ck_assert_msg(id >= 107 && (id - 100) % 7 == 0 && (id - 100) / 7 <= (int)m->nlabels, "tet id %d", id);
    }
    ck_assert_int_eq(r.quality.ntets, r.mesh->ntets);
    /* the regularised file was written and is what was meshed */
    rve_tess *back = NULL;
    int *ids = NULL;
    ck_assert_int_eq(rve_tess_read_tess(regp, &back, &ids, &e), RVE_OK);
    ck_assert_int_eq(back->n, r.reg->n);
    ck_assert_int_eq(back->nver, r.reg->nver);
    for (int k = 0; k < back->n; k++)
        ck_assert_int_eq(ids[k], r.ids[k]);
    rve_tess_free(back);
    free(ids);
    /* each stage started, ended and was reported once, in order */
    ck_assert_int_eq(tr.bad, 0);
    int want[3] = {RVE_PIPELINE_FIT, RVE_PIPELINE_REG, RVE_PIPELINE_MESH};
    ck_assert_int_eq(tr.norder, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(tr.order[i], want[i]);
        ck_assert_int_eq(tr.starts[want[i]], 1);
        ck_assert_int_ge(tr.ends[want[i]], 1);
        ck_assert_int_eq(tr.hooks[want[i]], 1);
    }
    ck_assert_int_eq(tr.hooks[RVE_PIPELINE_GEN], 0);
    rve_pipeline_result_free(&r);
    rve_map_free(m);
    unlink(regp);
    rmdir(dir);
}
END_TEST

/* a hook's failure stops the pipeline with its error; the results so far stay */
static rve_status refuse(void *ctx, rve_pipeline_stage s, const rve_pipeline_result *r, rve_err *err)
{
    (void)ctx;
    (void)r;
    if (s == RVE_PIPELINE_REG)
        return rve_err_set(err, RVE_EIO, "hook", "refused");
    return RVE_OK;
}

START_TEST(test_gen_pipeline_periodic)
{
    rve_morpho mo;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_int_eq(rve_morpho_parse("gg", &mo, &e), RVE_OK);
    rve_gen_params gp;
    rve_gen_params_default(&gp);
    gp.n = 12;
    gp.domain[0] = 2;
    gp.domain[1] = 1;
    gp.domain[2] = 1.5;
    gp.periodic = 1;
    gp.max_iter = 5;
    rve_pipeline_result r;
    ck_assert_msg(rve_pipeline_gen(&mo, &gp, NULL, NULL, &r, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(r.ncells, 12);
    ck_assert_int_eq(r.fit.n, 0);
    ck_assert(r.regularised);
    ck_assert_ptr_null(r.reg); /* periodic: regularised as it is meshed */
    ck_assert_ptr_nonnull(r.mesh);
    double vol = mesh_volume(r.mesh);
    ck_assert_msg(fabs(vol - 3.0) < 1e-9 * 3, "mesh volume %.12g, box 3", vol);
    ck_assert(r.mesh->periodic[0] && r.mesh->periodic[1] && r.mesh->periodic[2]);
    ck_assert_uint_gt(r.mesh->npairs, 0);
    for (size_t t = 0; t < r.mesh->ntets; t++)
        ck_assert(r.mesh->tet_grain[t] >= 1 && r.mesh->tet_grain[t] <= 12);
    rve_pipeline_result_free(&r);

    /* not periodic, a hook refuses after the regularisation */
    gp.periodic = 0;
    rve_pipeline_opts o;
    rve_pipeline_opts_init(&o);
    o.stage_done = refuse;
    rve_err_clear(&e);
    ck_assert_int_eq(rve_pipeline_gen(&mo, &gp, NULL, &o, &r, &e), RVE_EIO);
    ck_assert_str_eq(e.file, "hook");
    ck_assert_ptr_nonnull(r.tess);
    ck_assert_ptr_nonnull(r.reg);
    ck_assert_ptr_null(r.mesh);
    rve_pipeline_result_free(&r);
    ck_assert_ptr_null(r.tess); /* freed and cleared */
    rve_morpho_free(&mo);
}
END_TEST

START_TEST(test_bad_input)
{
    rve_pipeline_result r;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_int_eq(rve_pipeline_fit(NULL, NULL, &r, &e), RVE_EUSAGE);
    rve_pipeline_result_free(&r);
    rve_morpho mo;
    ck_assert_int_eq(rve_morpho_parse("gg", &mo, &e), RVE_OK);
    rve_gen_params gp;
    rve_gen_params_default(&gp);
    gp.n = 0;
    gp.domain[0] = gp.domain[1] = gp.domain[2] = 1;
    ck_assert_int_eq(rve_pipeline_gen(&mo, &gp, NULL, NULL, &r, &e), RVE_EUSAGE);
    rve_pipeline_result_free(&r);
    rve_morpho_free(&mo);
    /* an all-void map: the fit refuses it, nothing is left allocated */
    rve_map *m = rve_map_alloc(4, 4, 4);
    ck_assert_int_ne(rve_pipeline_fit(m, NULL, &r, &e), RVE_OK);
    ck_assert_ptr_null(r.tess);
    rve_pipeline_result_free(&r);
    rve_map_free(m);
}
END_TEST

static Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_fit_pipeline);
    tcase_add_test(tc, test_gen_pipeline_periodic);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(pipeline_suite()); }
