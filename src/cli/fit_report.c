/* fit_report.c - the report pictures of `rve fit`: mid-slices of the map,
 * the fit and the misassigned voxels (with axes in voxels and a key), and
 * the convergence plots with the stage changes marked. */
#include "config.h"
#include "cli/fit_report.h"
#include "cli/plot.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const unsigned char BLACK[3] = {0, 0, 0}, RED[3] = {220, 20, 20}, GREY[3] = {200, 200, 200};

/* Slice across axis `axis` at index c: target labels a and fit labels b,
 * W x H, row 0 at the top. */
static void slice_labels(const rve_map *m, const int32_t *assign, const uint32_t *labels, int axis, int c,
                         uint32_t *a, uint32_t *b)
{
    int nn[3] = {m->nx, m->ny, m->nz};
    int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    int W = nn[u], H = nn[v];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int ijk[3];
            ijk[axis] = c;
            ijk[u] = x;
            ijk[v] = H - 1 - y;
            size_t idx = rve_map_index(m, ijk[0], ijk[1], ijk[2]);
            a[(size_t)y * W + x] = m->lab[idx];
            b[(size_t)y * W + x] = assign[idx] >= 0 ? labels[assign[idx]] : 0;
        }
}

/* Voxel-index ticks under and left of a panel at (px, py), W x H voxels of s pixels. */
static void panel_axes(cairo_t *cr, double px, double py, int W, int H, int s, const char *un, const char *vn)
{
    char buf[32];
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, px - 0.5, py - 0.5, W * s + 1, H * s + 1);
    cairo_stroke(cr);
    static const int nice[12] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
    int st[2] = {1, 1}, n[2] = {W, H};
    for (int a = 0; a < 2; a++) /* a step of 1, 2 or 5 x 10^k giving at most 6 ticks */
        for (int k = 0; k < 12 && (n[a] - 1) / (st[a] = nice[k]) > 5; k++)
            ;
    for (int i = 0; i < W; i += st[0]) { /* tick at the voxel's centre */
        double x = floor(px + (i + 0.5) * s) + 0.5;
        cairo_move_to(cr, x, py + H * s), cairo_line_to(cr, x, py + H * s + 4), cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", i);
        cli_text(cr, x, py + H * s + 15, 10, 1, buf);
    }
    for (int j = 0; j < H; j += st[1]) {
        double y = floor(py + (H - 1 - j + 0.5) * s) + 0.5;
        cairo_move_to(cr, px - 4, y), cairo_line_to(cr, px, y), cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", j);
        cli_text(cr, px - 6, y + 4, 10, 2, buf);
    }
    snprintf(buf, sizeof buf, "%s (voxels)", un);
    cli_text(cr, px + W * s / 2.0, py + H * s + 29, 11, 1, buf);
    cairo_save(cr);
    cairo_translate(cr, px - 32, py + H * s / 2.0);
    cairo_rotate(cr, -2 * atan(1.0));
    snprintf(buf, sizeof buf, "%s (voxels)", vn);
    cli_text(cr, 0, 0, 11, 1, buf);
    cairo_restore(cr);
}

static void key_entry(cairo_t *cr, double *x, double y, const unsigned char c[3], const char *text)
{
    cli_set_colour(cr, c);
    cairo_rectangle(cr, *x, y - 10, 12, 12);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, *x + 0.5, y - 9.5, 11, 11);
    cairo_stroke(cr);
    *x += 18 + cli_text(cr, *x + 18, y, 11, 0, text) + 18;
}

static void draw_slice(cairo_t *cr, const uint32_t *a, const uint32_t *b, int W, int H, int s, int axis,
                       int c, int nc)
{
    static const char *an[3] = {"x", "y", "z"};
    int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    char t[128];
    const uint32_t *pl[2] = {a, b};
    for (int p = 0; p < 2; p++) {
        cairo_surface_t *img = cli_label_surface(pl[p], W, H);
        if (!img)
            continue; /* out of memory: the canvas status is checked when written */
        double px = FIT_SLICE_LEFT + p * (s * W + FIT_SLICE_GAP);
        cairo_save(cr);
        cairo_translate(cr, px, FIT_SLICE_TOP);
        cairo_scale(cr, s, s);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_paint(cr);
        cairo_restore(cr);
        cairo_surface_destroy(img);
    }
    double px = FIT_SLICE_LEFT + 2 * (s * W + FIT_SLICE_GAP);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t ta = a[(size_t)y * W + x], tb = b[(size_t)y * W + x];
            cli_set_colour(cr, ta == 0 ? BLACK : ta == tb ? GREY : RED);
            cairo_rectangle(cr, px + x * s, FIT_SLICE_TOP + y * s, s, s);
            cairo_fill(cr);
        }
    static const char *ptitle[3] = {"target (grain map)", "fit (Laguerre cells)", "misassigned voxels"};
    for (int p = 0; p < 3; p++) {
        double x0 = FIT_SLICE_LEFT + p * (s * W + FIT_SLICE_GAP);
        panel_axes(cr, x0, FIT_SLICE_TOP, W, H, s, an[u], an[v]);
        cli_text(cr, x0 + s * W / 2.0, FIT_SLICE_TOP - 8, 12, 1, ptitle[p]);
    }
    snprintf(t, sizeof t, "Middle slice %s = %d (voxel index, 0 to %d)", an[axis], c, nc - 1);
    cli_text(cr, FIT_SLICE_LEFT, 20, 14, 0, t);
    double kx = FIT_SLICE_LEFT, ky = FIT_SLICE_TOP + H * s + 56;
    key_entry(cr, &kx, ky, BLACK, "void (label 0, not indexed)");
    key_entry(cr, &kx, ky, GREY, "fit agrees");
    key_entry(cr, &kx, ky, RED, "misassigned");
    cli_text(cr, kx, ky, 11, 0, "other colours: one per grain");
}

/* one slice picture: axis fixed at its middle index; target, fit, misassigned side by side */
static rve_status slice_png(const char *path, const rve_map *m, const int32_t *assign, const uint32_t *labels,
                            int axis, rve_err *err)
{
    int nn[3] = {m->nx, m->ny, m->nz};
    int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    int W = nn[u], H = nn[v], c = nn[axis] / 2;
    int s = 1;
    while ((s + 1) * (W > H ? W : H) <= 320)
        s++;
    uint32_t *a = malloc((size_t)W * H * sizeof(uint32_t));
    uint32_t *b = malloc((size_t)W * H * sizeof(uint32_t));
    if (!a || !b) {
        free(a);
        free(b);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    slice_labels(m, assign, labels, axis, c, a, b);
    int w = FIT_SLICE_LEFT + 3 * s * W + 2 * FIT_SLICE_GAP + 20, h = FIT_SLICE_TOP + H * s + 70;
    if (w < 720)
        w = 720;
    cairo_t *cr = cli_canvas(w, h);
    if (cr)
        draw_slice(cr, a, b, W, H, s, axis, c, nn[axis]);
    free(a);
    free(b);
    return cli_canvas_png(cr, path, err);
}

enum { NSER = 4, MAXMARKS = 24 };
static const int stage_of[NSER] = {1, 5, 3, 2}; /* Eq. 6.5 (with the initial state), surrogate, classifier, polish */
static const char *stage_name[NSER] = {"stage 1: Eq. 6.5 sweeps", "surrogate (L-BFGS)", "classifier epochs",
                                       "polishing sweeps"};
static const char *mark_name[NSER] = {"Eq. 6.5", "surrogate", "classifier", "polish"};
static const unsigned char stage_col[NSER][3] = {{30, 90, 200}, {150, 60, 180}, {40, 160, 60}, {200, 60, 30}};

static int series_of(int stage)
{
    for (int q = 0; q < NSER; q++)
        if (stage == stage_of[q] || (q == 0 && stage == 0))
            return q;
    return -1;
}

/* A mark where a row's stage differs from the previous row's (the
 * returned state, stage 4, is no stage of its own). */
static int stage_marks(const rve_fit_result *r, cli_plot_mark *mk)
{
    int nm = 0, prev = -1;
    for (int i = 0; i < r->nhist && nm < MAXMARKS; i++) {
        int q = series_of(r->hist[i].stage);
        if (q < 0)
            continue;
        if (prev >= 0 && q != prev)
            mk[nm++] = (cli_plot_mark){r->hist[i].seconds, mark_name[q]};
        prev = q;
    }
    return nm;
}

static rve_status convergence_pngs(const char *dir, const rve_fit_result *r, rve_err *err)
{
    double *buf = malloc((size_t)r->nhist * 4 * NSER * sizeof(double));
    if (!buf)
        return rve_err_set(err, RVE_ENOMEM, dir, "out of memory");
    cli_plot_series so[NSER], sa[NSER];
    int nso = 0, nsa = 0;
    for (int q = 0; q < NSER; q++) {
        double *tx = buf + (size_t)q * 4 * r->nhist, *ty = tx + r->nhist, *ax = ty + r->nhist, *ay = ax + r->nhist;
        int no = 0, na = 0;
        for (int i = 0; i < r->nhist; i++) {
            const rve_fit_hist *h = &r->hist[i];
            if (series_of(h->stage) != q)
                continue;
            ax[na] = h->seconds;
            ay[na++] = 100.0 * (1.0 - h->misassigned);
            if (!isnan(h->objective))
                tx[no] = h->seconds, ty[no++] = h->objective;
        }
        const unsigned char *c = stage_col[q];
        if (no > 0)
            so[nso++] = (cli_plot_series){tx, ty, no, {c[0], c[1], c[2]}, stage_name[q], 0};
        if (na > 0)
            sa[nsa++] = (cli_plot_series){ax, ay, na, {c[0], c[1], c[2]}, stage_name[q], 0};
    }
    cli_plot_mark mk[MAXMARKS];
    cli_plot_opts po;
    cli_plot_opts_init(&po);
    po.width = 760;
    po.marks = mk;
    po.nmarks = stage_marks(r, mk);
    po.xlabel = "seconds";
    po.title = "Eq. 6.5 objective of each state (stage 1 minimises it; see also accuracy.png)";
    po.ylabel = "Eq. 6.5 objective (voxel lengths)";
    char path[4096];
    snprintf(path, sizeof path, "%s/convergence.png", dir);
    rve_status st = nso ? cli_plot_png(path, &po, so, nso, NULL, err) : RVE_OK;
    if (st == RVE_OK && nsa) {
        po.title = "Exact voxel accuracy of each state";
        po.ylabel = "voxel accuracy (%)";
        snprintf(path, sizeof path, "%s/accuracy.png", dir);
        st = cli_plot_png(path, &po, sa, nsa, NULL, err);
    }
    free(buf);
    return st;
}

rve_status cli_fit_report(const char *dir, const rve_map *m, const rve_fit_result *r, rve_err *err)
{
    /* a folder this run creates is removed again if the run fails */
    if (rve_afile_txn_mkdir(dir, err) != RVE_OK)
        return err->code;
    int32_t *assign = malloc(rve_map_nvox(m) * sizeof(int32_t));
    if (!assign)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    rve_status st = rve_fit_quality(m, r->n, r->seed, r->weight, NULL, NULL, NULL, NULL, assign, err);
    char path[4096];
    const char *names[3] = {"slice_x.png", "slice_y.png", "slice_z.png"};
    for (int a = 0; a < 3 && st == RVE_OK; a++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[a]);
        st = slice_png(path, m, assign, r->label, a, err);
    }
    free(assign);
    if (st != RVE_OK || r->nhist < 1)
        return st;
    return convergence_pngs(dir, r, err);
}
