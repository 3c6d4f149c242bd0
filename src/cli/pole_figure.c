/* pole_figure.c - `rve stat --pole-figure FILE.png`: {100}, {110}, {111}
 * pole figures of a map's grain orientations, drawn with cairo (cli/plot.h). */
#include "config.h"
#include "cli/pole_figure.h"
#include "cli/plot.h"
#include <rve/ori.h>
#include <rve/raster.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PANEL 320 /* pixels per pole figure */
#define RAD 140   /* radius of the projection circle */

/* Stereographic projection of the upper hemisphere (z >= 0; a pole below is
 * its antipode) onto the panel whose centre is (cx, cy): X right, Y up. */
static void project(const double v[3], int cx, int cy, int *px, int *py)
{
    double s = v[2] < 0 ? -1 : 1, d = 1 + s * v[2];
    *px = cx + (int)lround(RAD * s * v[0] / d);
    *py = cy - (int)lround(RAD * s * v[1] / d);
}

/* Projection circle and the X and Y axes, on pixel centres (crisp lines). */
static void frame(cairo_t *cr, int cx, int cy)
{
    cairo_set_source_rgb(cr, 160 / 255.0, 160 / 255.0, 160 / 255.0);
    cairo_set_line_width(cr, 1);
    cairo_arc(cr, cx + 0.5, cy + 0.5, RAD, 0, 8 * atan(1.0));
    cairo_stroke(cr);
    cairo_move_to(cr, cx - RAD, cy + 0.5), cairo_line_to(cr, cx + RAD + 1, cy + 0.5);
    cairo_move_to(cr, cx + 0.5, cy - RAD), cairo_line_to(cr, cx + 0.5, cy + RAD + 1);
    cairo_stroke(cr);
}

/* Poles of family f (0: {100}, 1: {110}, 2: {111}) of orientation q under
 * group g: v_sample = om(q)^T om(s)^T v_crystal for each symmetry op s. */
static void draw_poles(cairo_t *cr, const double q[4], rve_laue g, int f, int cx, int cy,
                       const unsigned char c[3])
{
    static const double rep[3][3] = {{1, 0, 0}, {0.70710678118654752, 0.70710678118654752, 0},
                                     {0.57735026918962576, 0.57735026918962576, 0.57735026918962576}};
    double om[9], os[9];
    rve_ori_qu2om(q, om);
    const double *ops = rve_laue_ops(g);
    for (int k = 0; k < rve_laue_nops(g); k++) {
        rve_ori_qu2om(ops + 4 * k, os);
        double vc[3], vs[3];
        for (int i = 0; i < 3; i++)
            vc[i] = os[i] * rep[f][0] + os[3 + i] * rep[f][1] + os[6 + i] * rep[f][2];
        for (int i = 0; i < 3; i++)
            vs[i] = om[i] * vc[0] + om[3 + i] * vc[1] + om[6 + i] * vc[2];
        int px, py;
        project(vs, cx, cy, &px, &py);
        cli_set_colour(cr, c);
        cairo_rectangle(cr, px - 1, py - 1, 3, 3); /* 3 x 3 pixels centred on the pole */
        cairo_fill(cr);
    }
}

rve_status cli_pole_figure_png(const rve_map *m, const char *path, rve_err *err)
{
    static const char *title[3] = {"{100} poles", "{110} poles", "{111} poles"};
    rve_laue g = RVE_LAUE_TRICLINIC;
    if (m->crysym && rve_laue_parse(m->crysym, &g) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, NULL, "unknown crystal symmetry '%s'", m->crysym);
    char *seen = calloc((size_t)m->nlabels + 1, 1);
    cairo_t *cr = cli_canvas(3 * PANEL, PANEL);
    if (!seen || !cr) {
        free(seen);
        cli_canvas_free(cr);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t nv = rve_map_nvox(m);
    for (size_t v = 0; v < nv; v++)
        seen[m->lab[v]] = 1;
    rve_status st = RVE_OK;
    for (int f = 0; f < 3 && st == RVE_OK; f++) {
        int cx = f * PANEL + PANEL / 2, cy = PANEL / 2 + 8;
        frame(cr, cx, cy);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cli_text(cr, f * PANEL + 8, 18, 14, 0, title[f]);
        cli_text(cr, cx + RAD + 5, cy + 5, 11, 0, "X");
        cli_text(cr, cx + 5, cy - RAD - 3, 11, 0, "Y");
        for (uint32_t l = 1; l <= m->nlabels && st == RVE_OK; l++) {
            double q[4];
            unsigned char c[3];
            if (!seen[l])
                continue;
            if ((st = rve_map_grain_quat(m, l, q, err)) != RVE_OK)
                break;
            cli_label_colour(rve_map_id(m, l), c);
            draw_poles(cr, q, g, f, cx, cy, c);
        }
    }
    free(seen);
    if (st != RVE_OK) {
        cli_canvas_free(cr);
        return st;
    }
    return cli_canvas_png(cr, path, err);
}
