/* meshcli.h - printing shared by rve reg, rve mesh and rve run (internal). */
#ifndef RVE_MESHCLI_H
#define RVE_MESHCLI_H

#include "cli/cli.h"
#include <rve/mesh.h>
#include <stdio.h>
#include <unistd.h>

/* Option values of the regularisation (rsel, length, min-angle, max-angle,
 * passes) and of the mesh (max-elements, cl, rcl, order, optimize), checked
 * in one place (meshcli_opts.c): 0 when set, 2 after a usage error. */
int meshcli_reg_option(const cli_command *cmd, const char *name, const char *arg, rve_reg_opts *o);
int meshcli_mesh_option(const cli_command *cmd, const char *name, const char *arg, rve_mesh_opts *o);
/* --format LIST (msh, msh22, inp, vtk, fepx; comma-separated) into mask
 * (bits RVE_MESH_*) and fepx: 0 when set, 2 after a usage error. */
int meshcli_format_option(const cli_command *cmd, const char *arg, unsigned *mask, int *fepx);

/* Progress bar of the regularisation's polish. */
static inline void meshcli_reg_progress(void *ctx, double frac, size_t moves, double acc)
{
    char extra[96];
    if (acc > 0)
        snprintf(extra, sizeof extra, "%zu moves, accuracy %.2f%%", moves, 100 * acc);
    else
        snprintf(extra, sizeof extra, "%zu moves", moves);
    cli_progress_update((cli_progress *)ctx, 1000 * frac, extra);
}

/* rve_reg with a progress bar for its polish. */
static inline rve_status meshcli_reg(const cli_common *com, const rve_tess *t, rve_reg_opts *o,
                                     rve_tess **out, rve_reg_report *rep, rve_err *err)
{
    cli_progress pb;
    cli_progress_start(&pb, "polish", 1000, com->verbosity);
    o->progress = meshcli_reg_progress;
    o->progress_ctx = &pb;
    rve_status st = rve_reg(t, o, out, rep, err);
    cli_progress_finish(&pb);
    o->progress = NULL;
    o->progress_ctx = NULL;
    return st;
}

/* rve_mesh_tess with gmsh's standard output sent to standard error: gmsh
 * (and the meshers inside it) may print "Info : ..." or "PLC Error" lines
 * on file descriptor 1 whatever General.Terminal says, and stdout carries
 * only the JSON summary. */
/* gmsh prints on stdout; while it runs, stdout goes to stderr so that
 * --json output stays parseable.  Returns the saved descriptor (or -1). */
static inline int meshcli_stdout_to_stderr(void)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    return saved;
}
static inline void meshcli_stdout_restore(int saved)
{
    if (saved >= 0) {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
}

/* Orientations in the mesh outputs (meshcli_ori.c).  When t carries
 * orientations, mesh_outs is outs without .inp and .vtk (returns 1), which
 * meshcli_ori_write then writes with rve_mesh_write_solver and a per-grain
 * table: Abaqus *User Material constants phi1 Phi phi2 (Bunge, degrees),
 * grain id, phase; VTK cell data of the same and q0..q3; beside a .msh,
 * MESH.ori with FEPX's $ElsetOrientations (and $ElsetCrySym).  map (may be
 * NULL) gives the phases (0 without). */
int meshcli_ori_split(const rve_tess *t, const char *const outs[RVE_MESH_NFORMATS],
                      const char *mesh_outs[RVE_MESH_NFORMATS]);
rve_status meshcli_ori_write(const rve_tess *t, const int *ids, const rve_map *map, const rve_mesh *m,
                             const char *const outs[RVE_MESH_NFORMATS], rve_err *err);
/* The Neper/FEPX .msh of m at path, with $ElsetOrientations when t carries
 * orientations (RVE_SOLVER_FEPX). */
rve_status meshcli_fepx_write(const rve_tess *t, const int *ids, const rve_map *map, const rve_mesh *m,
                              const char *path, rve_err *err);

/* map (may be NULL): the grain map, for the phases of the solver outputs */
static inline rve_status meshcli_mesh(const rve_tess *t, const int *ids, const rve_map *map,
                                      const rve_mesh_opts *o, const char *const outs[RVE_MESH_NFORMATS],
                                      rve_mesh **m, rve_err *err)
{
    const char *mo[RVE_MESH_NFORMATS];
    int ori = meshcli_ori_split(t, outs, mo);
    int saved = meshcli_stdout_to_stderr();
    rve_status st = rve_mesh_tess(t, ids, o, mo, m, err);
    meshcli_stdout_restore(saved);
    if (st == RVE_OK && ori)
        st = meshcli_ori_write(t, ids, map, *m, outs, err);
    return st;
}

static inline void meshcli_print_reg(const cli_common *com, const rve_reg_report *r)
{
    if (com->verbosity < RVE_NORMAL)
        return;
    fprintf(stderr, "  threshold %.6g: %zu short edges of %zu before, %zu of %zu after; %zu edges "
                    "removed in %d pass%s\n",
            r->threshold, r->short_before, r->edges_before, r->short_after, r->edges_after,
            r->removed, r->passes, r->passes > 1 ? "es" : "");
    if (r->cells_removed)
        fprintf(stderr, "  %zu cells smaller than threshold^3 removed (merged into a vertex)\n",
                r->cells_removed);
    if (r->stretched)
        fprintf(stderr, "  %zu short edges no collapse removed lengthened past the threshold\n", r->stretched);
    if (r->short_after)
        fprintf(stderr, "  %zu of the %zu short edges left are on cells smaller than threshold^3 "
                        "(grains of a few voxels: all their edges are short; periodic: or a copy of such "
                        "an edge, each edge and its copies on opposite box faces counted once)\n",
                r->short_tiny, r->short_after);
    fprintf(stderr, "  shortest edge %.6g -> %.6g (%.3f -> %.3f of the threshold); largest face bend "
                    "%.2f deg\n",
            r->min_before, r->min_after, r->min_before / r->threshold, r->min_after / r->threshold,
            r->max_bend);
    if (r->polish_moves || r->sharp_before)
        fprintf(stderr, "  polish: %zu vertex moves; smallest face corner or dihedral angle %.2f -> %.2f deg, "
                        "%zu -> %zu angles below the minimum\n",
                r->polish_moves, r->angle_before, r->angle_after, r->sharp_before, r->sharp_after);
    if (r->box_cut_angle > 0)
        fprintf(stderr, "  periodic box window: translated by (%.6g, %.6g, %.6g) (0 0 0: as given, kept for a "
                        "larger smallest angle); smallest face cut or cap at its planes %.1f deg\n",
                r->box_shift[0], r->box_shift[1], r->box_shift[2], r->box_cut_angle);
    if (r->group_tried)
        fprintf(stderr, "  polish of box-face vertices with their periodic copies: %zu groups tried, %zu "
                        "moved; trial steps refused: %zu copies' cells meet, %zu edge shortened, %zu face "
                        "folded or bent, %zu cell not star-shaped or out of the box, %zu not convex, "
                        "%zu quality not raised\n",
                r->group_tried, r->group_moved, r->group_refused[0], r->group_refused[1],
                r->group_refused[2], r->group_refused[3], r->group_refused[4], r->group_refused[5]);
    if (r->acc_reg > 0)
        fprintf(stderr, "  %s after the collapses %.2f %%, after the polish %.2f %%\n",
                r->acc_vs_input ? "agreement with the input tessellation (raster at threshold/2):"
                                : "voxel accuracy",
                100 * r->acc_reg, 100 * r->acc_polish);
    fprintf(stderr, "  edge length / threshold   before   after\n");
    for (int i = 0; i < RVE_REG_HIST; i++) {
        if (i < RVE_REG_HIST - 1)
            fprintf(stderr, "    [%4.2f, %4.2f)          %7zu %7zu\n", 0.25 * i, 0.25 * (i + 1),
                    r->hist_before[i], r->hist_after[i]);
        else
            fprintf(stderr, "    [%4.2f, inf)           %7zu %7zu\n", 0.25 * i, r->hist_before[i],
                    r->hist_after[i]);
    }
}

/* Grains whose cells regularisation merged away (cells empty in r only). */
static inline void meshcli_print_removed(const cli_common *com, const rve_tess *t, const rve_tess *r,
                                         const int *ids)
{
    if (com->verbosity < RVE_NORMAL || !r || r->n != t->n)
        return;
    int n = 0;
    for (int k = 0; k < t->n; k++) {
        int gone = t->cell_foff[k + 1] > t->cell_foff[k] && r->cell_foff[k + 1] == r->cell_foff[k];
        if (!gone)
            continue;
        if (n == 0)
            fprintf(stderr, "  grains removed (cells smaller than threshold^3):");
        if (n < 40)
            fprintf(stderr, " %d", ids ? ids[k] : k + 1);
        n++;
    }
    if (n > 40)
        fprintf(stderr, " ... (%d in all)", n);
    if (n)
        fputc('\n', stderr);
}

static inline void meshcli_json_reg(rve_json *j, const rve_reg_report *r)
{
    rve_json_kv_number(j, "threshold", r->threshold);
    rve_json_kv_int(j, "edges_before", (long long)r->edges_before);
    rve_json_kv_int(j, "edges_after", (long long)r->edges_after);
    rve_json_kv_int(j, "short_edges_before", (long long)r->short_before);
    rve_json_kv_int(j, "short_edges_after", (long long)r->short_after);
    rve_json_kv_int(j, "short_edges_after_on_tiny_cells", (long long)r->short_tiny);
    rve_json_kv_int(j, "small_cells_removed", (long long)r->cells_removed);
    rve_json_kv_int(j, "pieces_removed", (long long)r->pieces_removed);
    rve_json_kv_int(j, "short_edges_stretched", (long long)r->stretched);
    rve_json_kv_int(j, "edges_removed", (long long)r->removed);
    rve_json_kv_number(j, "shortest_edge_before", r->min_before);
    rve_json_kv_number(j, "shortest_edge_after", r->min_after);
    rve_json_kv_number(j, "max_face_bend_deg", r->max_bend);
    rve_json_kv_int(j, "passes", r->passes);
    rve_json_kv_int(j, "polish_moves", (long long)r->polish_moves);
    rve_json_kv_number(j, "min_angle_before_deg", r->angle_before);
    rve_json_kv_number(j, "min_angle_after_deg", r->angle_after);
    rve_json_kv_int(j, "sharp_angles_before", (long long)r->sharp_before);
    rve_json_kv_int(j, "sharp_angles_after", (long long)r->sharp_after);
    if (r->group_tried) {
        static const char *const why[6] = {"stars_meet", "edge", "face", "cell", "convex", "quality"};
        char key[48];
        rve_json_kv_int(j, "box_groups_tried", (long long)r->group_tried);
        rve_json_kv_int(j, "box_groups_moved", (long long)r->group_moved);
        for (int k = 0; k < 6; k++) {
            snprintf(key, sizeof key, "box_steps_refused_%s", why[k]);
            rve_json_kv_int(j, key, (long long)r->group_refused[k]);
        }
    }
    if (r->box_cut_angle > 0) { /* periodic: the window (rve_reg_opts.box_shift) */
        rve_json_kv_number(j, "box_cut_angle_deg", r->box_cut_angle);
        rve_json_key(j, "box_shift");
        rve_json_begin_array(j);
        for (int a = 0; a < 3; a++)
            rve_json_number(j, r->box_shift[a]);
        rve_json_end_array(j);
    }
    if (r->acc_reg > 0) {
        rve_json_kv_number(j, r->acc_vs_input ? "agreement_after_collapses" : "accuracy_after_collapses",
                           r->acc_reg);
        rve_json_kv_number(j, r->acc_vs_input ? "agreement_after_polish" : "accuracy_after_polish",
                           r->acc_polish);
    }
    rve_json_key(j, "histogram_before");
    rve_json_begin_array(j);
    for (int i = 0; i < RVE_REG_HIST; i++)
        rve_json_int(j, (long long)r->hist_before[i]);
    rve_json_end_array(j);
    rve_json_key(j, "histogram_after");
    rve_json_begin_array(j);
    for (int i = 0; i < RVE_REG_HIST; i++)
        rve_json_int(j, (long long)r->hist_after[i]);
    rve_json_end_array(j);
}

static inline void meshcli_print_quality(const cli_common *com, const rve_mesh *m,
                                         const rve_mesh_quality *q)
{
    if (com->verbosity < RVE_NORMAL)
        return;
    fprintf(stderr, "  %zu tetrahedra (order %d), %zu nodes, element size %.6g, gmsh %.2f s\n", q->ntets,
            m->order, q->nnodes, m->cl, m->seconds);
    fprintf(stderr, "  gamma (3 r_in/r_circ): min %.4f, mean %.4f, below 0.1: %.3f %%, below 0.3: %.3f %%\n",
            q->gamma_min, q->gamma_mean, 100 * q->gamma_below_01, 100 * q->gamma_below_03);
    fprintf(stderr, "  q (Neper, 6 sqrt2 V / l_rms^3): min %.4f, mean %.4f, below 0.1: %.3f %%, below 0.3: %.3f %%\n",
            q->q_min, q->q_mean, 100 * q->q_below_01, 100 * q->q_below_03);
    if (q->inverted)
        fprintf(stderr, "  WARNING: %zu inverted elements\n", q->inverted);
}

static inline void meshcli_json_quality(rve_json *j, const rve_mesh *m, const rve_mesh_quality *q)
{
    rve_json_kv_int(j, "tetrahedra", (long long)q->ntets);
    rve_json_kv_int(j, "nodes", (long long)q->nnodes);
    rve_json_kv_int(j, "order", m->order);
    rve_json_kv_number(j, "element_size", m->cl);
    rve_json_kv_number(j, "gamma_min", q->gamma_min);
    rve_json_kv_number(j, "gamma_mean", q->gamma_mean);
    rve_json_kv_number(j, "gamma_below_0.1", q->gamma_below_01);
    rve_json_kv_number(j, "gamma_below_0.3", q->gamma_below_03);
    rve_json_kv_number(j, "q_min", q->q_min);
    rve_json_kv_number(j, "q_mean", q->q_mean);
    rve_json_kv_number(j, "q_below_0.1", q->q_below_01);
    rve_json_kv_number(j, "q_below_0.3", q->q_below_03);
    rve_json_kv_int(j, "inverted", (long long)q->inverted);
    rve_json_kv_number(j, "gmsh_seconds", m->seconds);
}

#endif
