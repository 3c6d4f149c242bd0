/* rve stat - per-grain statistics of a grain map. */
#include "config.h"
#include "cli/cli_map.h"
#include "cli/pole_figure.h"
#include <stdio.h>
#include <stdlib.h>

static int run(int argc, char **argv);

const cli_command cli_cmd_stat = {
    "stat", "per-grain statistics of a grain map",
    "Usage: rve stat [OPTIONS] MAP\n"
    "Per-grain statistics of a grain map (.tif/.tiff, .tesr, .raw): voxel count,\n"
    "volume, equivalent diameter, centroid, semi-axes of the equivalent ellipsoid\n"
    "(same second moments) and aspect ratios, surface area and sphericity, number\n"
    "of neighbours (grains sharing a voxel face), 6-connected components, contact\n"
    "with the map's border. Lengths are in the map's physical units.\n"
    "\n"
    "Surface areas come from a triangulated surface: the 1/2 iso-surface of the\n"
    "grain's indicator smoothed by a Gaussian of 1 voxel (marching tetrahedra);\n"
    "a voxelised ball of 40 voxels diameter gets sphericity 1.0006. Sharp edges\n"
    "are rounded over ~1 voxel (a 40-voxel cube loses 4 % of its area).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE     write the table (or JSON) to FILE instead of stdout\n"
    "      --json            JSON: summary and one object per grain\n"
    "      --min-size N      list grains with fewer than N voxels (default 0: none)\n"
    "      --no-area         skip surface areas and sphericity (faster)\n"
    "      --pole-figure PNG {100}, {110}, {111} pole figures of the grain orientations\n"
    "                        (maps with orientations; the map's symmetry)\n"
    CLI_MAP_HELP
    "  -q, -v, -j N, -h      quiet, verbose, threads, help\n"
    "\n"
    "Columns: id label nvox volume diameq cx cy cz a1 a2 a3 b/a c/a area\n"
    "sphericity nneigh ncomp border ('id' is the grain's original id).\n"
    "\n"
    "Example:\n"
    "  rve stat data/dct/dct.tif --json > stats.json\n",
    run,
};

enum { OPT_MIN_SIZE = CLI_OPT_FIRST, OPT_NO_AREA, OPT_POLE };

/* Grain-boundary disorientations summed up: number- and area-weighted mean
 * (degrees), area fraction below 15 degrees, area histogram in 5-degree bins. */
#define GB_BINS 13 /* 0..65 degrees: cubic disorientations stop at 62.8 */
typedef struct {
    size_t n;
    double mean, amean, low, hist[GB_BINS];
} gb_summary;

static rve_status gb_summarise(const rve_map *m, gb_summary *g, rve_err *err)
{
    rve_gb_misori *gb = NULL;
    size_t n = 0;
    memset(g, 0, sizeof *g);
    rve_status s = rve_map_gb_misori(m, &gb, &n, err);
    if (s != RVE_OK)
        return s;
    double area = 0, r2d = 180 / 3.14159265358979323846;
    for (size_t i = 0; i < n; i++) {
        double a = gb[i].angle * r2d, f = (double)gb[i].faces;
        int b = (int)(a / 5);
        g->mean += a / (double)n;
        g->amean += a * f;
        g->low += a < 15 ? f : 0;
        g->hist[b < GB_BINS ? b : GB_BINS - 1] += f;
        area += f;
    }
    if (area > 0) {
        g->amean /= area, g->low /= area;
        for (int b = 0; b < GB_BINS; b++)
            g->hist[b] /= area;
    }
    g->n = n;
    free(gb);
    return RVE_OK;
}

typedef struct {
    cli_common com;
    rve_map_load_opts lo;
    const char *path, *outpath, *pole;
    long minsize;
    int no_area;
} stat_args;

/* What the statistics add up to. */
typedef struct {
    size_t nvox, nvoid;
    uint32_t ngr, nsplit, nsmall, nborder;
    int has_ori;
    gb_summary gs;
} stat_totals;

/* 0: parsed; -1: help printed (exit 0); otherwise the exit status. */
static int parse_args(int argc, char **argv, stat_args *a)
{
    static const struct option longopts[] = {
        CLI_COMMON_LONG,
        CLI_MAP_LONG,
        {"output", required_argument, NULL, 'o'},
        {"min-size", required_argument, NULL, OPT_MIN_SIZE},
        {"no-area", no_argument, NULL, OPT_NO_AREA},
        {"pole-figure", required_argument, NULL, OPT_POLE},
        {NULL, 0, NULL, 0},
    };
    const cli_command *cmd = &cli_cmd_stat;
    memset(a, 0, sizeof *a);
    cli_common_init(&a->com);
    cli_map_opts_init(&a->lo);
    a->outpath = "-";
    int opt;
    while ((opt = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", longopts, NULL)) != -1) {
        int r = cli_common_option(&a->com, cmd, opt, optarg);
        if (r == 0)
            r = cli_map_option(cmd, &a->lo, opt, optarg);
        if (r == 2)
            return -1;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        switch (opt) {
        case 'o': a->outpath = optarg; break;
        case OPT_MIN_SIZE:
            if (rve_parse_long(optarg, &a->minsize) != RVE_OK || a->minsize < 0)
                return cli_usage_error(cmd, "--min-size: expected a voxel count, got '%s'", optarg);
            break;
        case OPT_NO_AREA: a->no_area = 1; break;
        case OPT_POLE: a->pole = optarg; break;
        default: return cli_bad_option(cmd, argc, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error(cmd, "expected one grain map, got %d arguments", argc - optind);
    a->path = argv[optind];
    return 0;
}

static void count_grains(const stat_args *a, const rve_map *m, const rve_grain_stat *st, stat_totals *t)
{
    t->nvox = rve_map_nvox(m);
    for (size_t v = 0; v < t->nvox; v++)
        t->nvoid += m->lab[v] == 0;
    for (uint32_t l = 1; l <= m->nlabels; l++) {
        if (!st[l].nvox)
            continue;
        t->ngr++;
        t->nsplit += st[l].ncomp > 1;
        t->nborder += st[l].border;
        t->nsmall += (long)st[l].nvox < a->minsize;
    }
}

static void json_triplet(rve_json *j, const char *key, const double v[3])
{
    rve_json_key(j, key);
    rve_json_begin_array(j);
    for (int k = 0; k < 3; k++)
        rve_json_number(j, v[k]);
    rve_json_end_array(j);
}

static void json_orientations(rve_json *j, const rve_map *m, const gb_summary *gs)
{
    rve_json_key(j, "orientations");
    rve_json_begin_object(j);
    rve_json_kv_string(j, "crysym", m->crysym ? m->crysym : "none");
    rve_json_kv_int(j, "boundaries", (long long)gs->n);
    rve_json_kv_number(j, "disori_mean_deg", gs->mean);
    rve_json_kv_number(j, "disori_area_mean_deg", gs->amean);
    rve_json_kv_number(j, "low_angle_area_fraction", gs->low);
    rve_json_key(j, "disori_area_histogram_5deg");
    rve_json_begin_array(j);
    for (int b = 0; b < GB_BINS; b++)
        rve_json_number(j, gs->hist[b]);
    rve_json_end_array(j);
    rve_json_end_object(j);
}

static void json_grain(rve_json *j, const stat_args *a, const rve_grain_stat *g)
{
    rve_json_begin_object(j);
    rve_json_kv_int(j, "id", g->id);
    rve_json_kv_int(j, "label", g->label);
    rve_json_kv_int(j, "nvox", (long long)g->nvox);
    rve_json_kv_number(j, "volume", g->volume);
    rve_json_kv_number(j, "diameq", g->diameq);
    json_triplet(j, "centroid", g->centroid);
    json_triplet(j, "axes", g->axes);
    rve_json_key(j, "directions");
    rve_json_begin_array(j);
    for (int k = 0; k < 3; k++) {
        rve_json_begin_array(j);
        for (int b = 0; b < 3; b++)
            rve_json_number(j, g->dirs[k][b]);
        rve_json_end_array(j);
    }
    rve_json_end_array(j);
    rve_json_key(j, "aspect");
    rve_json_begin_array(j);
    rve_json_number(j, g->aspect[0]), rve_json_number(j, g->aspect[1]);
    rve_json_end_array(j);
    if (!a->no_area) {
        rve_json_kv_number(j, "area", g->area);
        rve_json_kv_number(j, "sphericity", g->sphericity);
    }
    rve_json_kv_int(j, "nneigh", g->nneigh);
    rve_json_kv_int(j, "ncomp", g->ncomp);
    rve_json_kv_bool(j, "border", g->border);
    if (a->minsize > 0)
        rve_json_kv_bool(j, "small", (long)g->nvox < a->minsize);
    rve_json_end_object(j);
}

static void write_json(FILE *fp, const stat_args *a, const rve_map *m, const rve_grain_stat *st,
                       const stat_totals *t)
{
    rve_json j;
    rve_json_init(&j, fp);
    rve_json_begin_object(&j);
    rve_json_kv_string(&j, "file", a->path);
    rve_json_key(&j, "dims");
    rve_json_begin_array(&j);
    rve_json_int(&j, m->nx), rve_json_int(&j, m->ny), rve_json_int(&j, m->nz);
    rve_json_end_array(&j);
    json_triplet(&j, "voxel_size", m->h);
    json_triplet(&j, "origin", m->origin);
    rve_json_kv_int(&j, "grains", t->ngr);
    rve_json_kv_int(&j, "max_label", m->nlabels);
    rve_json_kv_int(&j, "voxels", (long long)t->nvox);
    rve_json_kv_int(&j, "void_voxels", (long long)t->nvoid);
    rve_json_kv_int(&j, "non_connected", t->nsplit);
    rve_json_kv_int(&j, "border_grains", t->nborder);
    if (a->minsize > 0)
        rve_json_kv_int(&j, "small_grains", t->nsmall);
    if (t->has_ori)
        json_orientations(&j, m, &t->gs);
    rve_json_key(&j, "grain");
    rve_json_begin_array(&j);
    for (uint32_t l = 1; l <= m->nlabels; l++)
        if (st[l].nvox)
            json_grain(&j, a, &st[l]);
    rve_json_end_array(&j);
    rve_json_end_object(&j);
    fputc('\n', fp);
}

static void write_table(FILE *fp, const stat_args *a, const rve_map *m, const rve_grain_stat *st,
                        const stat_totals *t)
{
    fprintf(fp, "# %s: %dx%dx%d voxels of %g x %g x %g, origin %g %g %g\n", a->path, m->nx, m->ny, m->nz, m->h[0],
            m->h[1], m->h[2], m->origin[0], m->origin[1], m->origin[2]);
    fprintf(fp, "# %u grains, %zu void voxels (%.2f %%), %u not 6-connected, %u on the border\n", t->ngr, t->nvoid,
            100.0 * t->nvoid / t->nvox, t->nsplit, t->nborder);
    fprintf(fp, "# id label nvox volume diameq cx cy cz a1 a2 a3 b/a c/a area sphericity nneigh ncomp border\n");
    for (uint32_t l = 1; l <= m->nlabels; l++) {
        const rve_grain_stat *g = &st[l];
        if (!g->nvox)
            continue;
        fprintf(fp, "%u %u %zu %.6g %.6g %.6g %.6g %.6g %.5g %.5g %.5g %.4f %.4f %.6g %.4f %d %d %d\n", g->id,
                g->label, g->nvox, g->volume, g->diameq, g->centroid[0], g->centroid[1], g->centroid[2], g->axes[0],
                g->axes[1], g->axes[2], g->aspect[0], g->aspect[1], a->no_area ? 0.0 : g->area,
                a->no_area ? 0.0 : g->sphericity, g->nneigh, g->ncomp, g->border);
    }
    if (t->has_ori) { /* after the table: readers of the table are not disturbed */
        const gb_summary *gs = &t->gs;
        fprintf(fp, "# orientations (symmetry %s): %zu grain boundaries, disorientation mean %.3f deg "
                    "(area-weighted %.3f), %.2f %% of the boundary area below 15 deg\n",
                m->crysym ? m->crysym : "none", gs->n, gs->mean, gs->amean, 100 * gs->low);
        fprintf(fp, "# disorientation area fraction per 5 deg:");
        for (int b = 0; b < GB_BINS; b++)
            fprintf(fp, " %.4f", gs->hist[b]);
        fputc('\n', fp);
    }
}

/* The statistics, the pole figure and the boundary disorientations of m. */
static rve_status compute(const stat_args *a, const rve_map *m, rve_grain_stat **st, stat_totals *t, rve_err *err)
{
    double t0 = rve_now();
    memset(t, 0, sizeof *t);
    if (rve_map_stats_opt(m, !a->no_area, st, err) != RVE_OK)
        return err->code;
    count_grains(a, m, *st, t);
    cli_debug(&a->com, "statistics of %u grains in %.2f s", t->ngr, rve_now() - t0);
    t->has_ori = m->ori && m->ori_n > 0 && m->ori_des;
    if (a->pole && !t->has_ori)
        return rve_err_set(err, RVE_EUSAGE, a->path, "--pole-figure: the map has no orientations");
    if (a->pole && cli_pole_figure_png(m, a->pole, err) != RVE_OK)
        return err->code;
    if (t->has_ori && gb_summarise(m, &t->gs, err) != RVE_OK)
        return err->code;
    return RVE_OK;
}

static void report_messages(const stat_args *a, const rve_map *m, const rve_grain_stat *st, const stat_totals *t)
{
    if (t->nsplit)
        cli_info(&a->com, "rve stat: %u grain%s not 6-connected", t->nsplit, t->nsplit > 1 ? "s are" : " is");
    if (a->minsize > 0 && t->nsmall) {
        cli_info(&a->com, "rve stat: %u grain%s smaller than %ld voxels:", t->nsmall, t->nsmall > 1 ? "s" : "",
                 a->minsize);
        for (uint32_t l = 1; l <= m->nlabels; l++)
            if (st[l].nvox && (long)st[l].nvox < a->minsize)
                cli_info(&a->com, "  id %u (label %u): %zu voxels", st[l].id, l, st[l].nvox);
    }
}

static int run(int argc, char **argv)
{
    const cli_command *cmd = &cli_cmd_stat;
    stat_args a;
    int r = parse_args(argc, argv, &a);
    if (r)
        return r < 0 ? 0 : r;
    cli_common_apply(&a.com);
    const char *outs[2] = {a.outpath, a.pole};
    if (cli_check_paths(cmd, &a.path, 1, outs, 2))
        return 2;
    rve_err err;
    rve_err_clear(&err);
    rve_map *m;
    if (rve_map_load(a.path, &a.lo, &m, &err) != RVE_OK)
        return cli_fail(cmd, &err);
    /* Per-label tables are sized by the largest label: renumber sparse maps
     * (the original ids are kept and printed). */
    rve_status s = RVE_OK;
    if (m->nlabels > 1024 && m->nlabels / 2 > rve_map_ngrains(m))
        s = rve_map_renumber(m, &err);
    rve_grain_stat *st = NULL;
    stat_totals t;
    if (s == RVE_OK && (s = compute(&a, m, &st, &t, &err)) != RVE_OK && !err.file[0])
        snprintf(err.file, sizeof err.file, "%s", a.path);
    rve_afile *af = s == RVE_OK ? rve_afile_open(a.outpath, 0, &err) : NULL;
    if (af) {
        if (a.com.json)
            write_json(rve_afile_fp(af), &a, m, st, &t);
        else
            write_table(rve_afile_fp(af), &a, m, st, &t);
        s = rve_afile_commit(af, &err);
    } else if (s == RVE_OK) {
        s = err.code;
    }
    if (s == RVE_OK)
        report_messages(&a, m, st, &t);
    free(st);
    rve_map_free(m);
    return s == RVE_OK ? 0 : cli_fail(cmd, &err);
}
