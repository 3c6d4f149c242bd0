/* rve/pipeline.h - from a grain map (fit) or a morphology (synthesis) to a
 * regularised tetrahedral mesh in one call: what `rve run` does. */
#ifndef RVE_PIPELINE_H
#define RVE_PIPELINE_H

#include <rve/util.h>
#include <rve/raster.h>
#include <rve/tess.h>
#include <rve/optim.h>
#include <rve/mesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The stages, in the order they run. */
typedef enum {
    RVE_PIPELINE_FIT = 0, /* Laguerre fit of the grain map (rve_fit) */
    RVE_PIPELINE_GEN,     /* statistical synthesis (rve_gen) instead of the fit */
    RVE_PIPELINE_REG,     /* regularisation and polish (rve_reg) */
    RVE_PIPELINE_MESH,    /* tetrahedral mesh (rve_mesh_tess; periodic: rve_mesh_tess_reg) */
    RVE_PIPELINE_NSTAGES
} rve_pipeline_stage;

/* What a progress callback is told.  The first report of each stage that
 * runs has done = 0 and its last done = total; the long stages (fit,
 * synthesis, polish) report in between, never going back. */
typedef struct {
    rve_pipeline_stage stage;
    double done, total;  /* progress within the stage (total > 0) */
    int fit_stage;       /* fit: 0 Eq. 6.5 sweeps, 1 polishing, 2 classifier, 3 surrogate; else -1 */
    double objective;    /* fit: exact Eq. 6.5 of the state just reached; synthesis: its
                            objective; NAN when not known */
    double accuracy;     /* fit, polish: exact voxel accuracy of the state reached; 0 when not known */
    size_t moves;        /* polish: vertex moves so far */
} rve_pipeline_progress;

typedef struct rve_pipeline_result rve_pipeline_result;

typedef struct {
    rve_fit_opts fit;      /* fit options (its progress fields are the pipeline's) */
    rve_reg_opts reg;      /* regularisation (map, ids, progress are set by the pipeline) */
    rve_mesh_opts mesh;    /* meshing */
    int regularise;        /* 1 (default): regularise before meshing */
    int polish_on_map;     /* 1 (default): the polish wins back voxel accuracy against the
                              map that was fitted (0: against the tessellation's own raster) */
    int mesh_enabled;      /* 1 (default): mesh; 0 stops after regularisation */
    /* Optional outputs (NULL: not written).  When fit_path (gen_path) or
     * reg_path is given, the stage's tessellation is written there
     * (atomically, within the caller's rve_afile transaction if one is
     * open) and the next stage starts from what was written, so that
     * `rve reg FIT` and `rve mesh REG` on those files give the same results.
     * The map's orientations go into the fitted tessellation. */
    const char *fit_path;
    const char *reg_path;
    const char *mesh_paths[RVE_MESH_NFORMATS]; /* as rve_mesh_tess's outputs */
    /* Optional progress, called from the calling thread only. */
    void (*progress)(void *ctx, const rve_pipeline_progress *p);
    void *progress_ctx;
    /* Optional hook called after each stage that ran, with the results so
     * far (e.g. to write the fit's history, or data the mesh files lack);
     * a status other than RVE_OK (and err filled) stops the pipeline. */
    rve_status (*stage_done)(void *ctx, rve_pipeline_stage stage, const rve_pipeline_result *r,
                             rve_err *err);
    void *stage_ctx;
} rve_pipeline_opts;

/* Defaults of every stage (rve_fit_opts_init, rve_reg_opts_default,
 * rve_mesh_opts_default), all stages on, no outputs. */
void rve_pipeline_opts_init(rve_pipeline_opts *o);

/* The results: owned by the caller, freed with rve_pipeline_result_free
 * (also after an error: the stages that ran are kept). */
struct rve_pipeline_result {
    rve_fit_result fit;       /* the fit's summary (accuracy, objective, history; n = 0
                                 when the pipeline started from a synthesis) */
    rve_gen_info gen;         /* the synthesis' summary (when it ran) */
    rve_tess *tess;           /* the fitted or generated tessellation */
    int *ids;                 /* grain label of each of its cells (map ids; 1..n for gen) */
    int ncells, nempty;       /* cells of tess and those without volume */
    rve_tess *reg;            /* the regularised tessellation (NULL when not regularised,
                                 and for periodic ones, which are regularised as they are
                                 meshed) */
    int regularised;          /* 1 when regularisation ran (reg_report is then filled) */
    rve_reg_report reg_report;
    rve_mesh *mesh;           /* NULL when not meshed */
    rve_mesh_quality quality;
    double seconds[RVE_PIPELINE_NSTAGES]; /* wall time per stage */
    double seconds_total;
};

/* Fit a Laguerre tessellation to map, regularise it (polishing against
 * map) and mesh it.  map is not modified.  On failure err names the stage's
 * subject (the map, or the path being written) and r holds the stages that
 * completed. */
rve_status rve_pipeline_fit(const rve_map *map, const rve_pipeline_opts *o, rve_pipeline_result *r,
                            rve_err *err);

/* Synthesise p->n cells following morphology m in p's domain (periodic when
 * p->periodic), then regularise and mesh them (periodic tessellations are
 * regularised as they are meshed: opposite faces stay exact translates).
 * o->fit, o->polish_on_map and o->fit_path do not apply; the generated
 * tessellation is written to gen_path (optional). */
rve_status rve_pipeline_gen(const rve_morpho *m, const rve_gen_params *p, const char *gen_path,
                            const rve_pipeline_opts *o, rve_pipeline_result *r, rve_err *err);

void rve_pipeline_result_free(rve_pipeline_result *r);

/* The tessellation of a fit: cell k has seed and weight k of fr, the map's
 * box, the map's orientations of grain fr->label[k] (rve_tess_set_ori_from_map)
 * and id rve_map_id(map, fr->label[k]) in (*ids)[k] (ids may be NULL). */
rve_status rve_pipeline_fit_tess(const rve_map *map, const rve_fit_result *fr, rve_tess **out,
                                 int **ids, rve_err *err);

#ifdef __cplusplus
}
#endif
#endif
