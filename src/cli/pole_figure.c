/* pole_figure.c - `rve stat --pole-figure FILE.png`: {100}, {110}, {111}
 * pole figures of a map's grain orientations.  Drawn with the
 * report canvas of util/image.h (the PNG writer the fit report uses). */
#include "config.h"
#include "cli/pole_figure.h"
#include "util/image.h"
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

static void circle(rve_image *im, int cx, int cy, const unsigned char c[3])
{
    for (int k = 0; k < 720; k++) {
        double a = k * 3.14159265358979323846 / 360;
        rve_image_set(im, cx + (int)lround(RAD * cos(a)), cy + (int)lround(RAD * sin(a)), c);
    }
}

/* Poles of family f (0: {100}, 1: {110}, 2: {111}) of orientation q under
 * group g: v_sample = om(q)^T om(s)^T v_crystal for each symmetry op s. */
static void draw_poles(rve_image *im, const double q[4], rve_laue g, int f, int cx, int cy,
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
        rve_image_fill_rect(im, px - 1, py - 1, px + 1, py + 1, c);
    }
}

rve_status cli_pole_figure_png(const rve_map *m, const char *path, rve_err *err)
{
    static const unsigned char black[3] = {0, 0, 0}, grey[3] = {160, 160, 160};
    static const char *title[3] = {"100 poles", "110 poles", "111 poles"}; /* the font has no braces */
    rve_laue g = RVE_LAUE_TRICLINIC;
    if (m->crysym && rve_laue_parse(m->crysym, &g) != RVE_OK)
        return rve_err_set(err, RVE_EDATA, NULL, "unknown crystal symmetry '%s'", m->crysym);
    rve_image *im = rve_image_alloc(3 * PANEL, PANEL, NULL);
    if (!im)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    char *seen = calloc((size_t)m->nlabels + 1, 1);
    if (!seen) {
        rve_image_free(im);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    size_t nv = rve_map_nvox(m);
    for (size_t v = 0; v < nv; v++)
        seen[m->lab[v]] = 1;
    rve_status st = RVE_OK;
    for (int f = 0; f < 3; f++) {
        int cx = f * PANEL + PANEL / 2, cy = PANEL / 2 + 8;
        circle(im, cx, cy, grey);
        rve_image_line(im, cx - RAD, cy, cx + RAD, cy, grey);
        rve_image_line(im, cx, cy - RAD, cx, cy + RAD, grey);
        rve_image_text(im, f * PANEL + 8, 4, title[f], black, 2);
        rve_image_text(im, cx + RAD + 4, cy - 3, "X", black, 1);
        rve_image_text(im, cx - 2, cy - RAD - 10, "Y", black, 1);
        for (uint32_t l = 1; l <= m->nlabels && st == RVE_OK; l++) {
            double q[4];
            unsigned char c[3];
            if (!seen[l])
                continue;
            if ((st = rve_map_grain_quat(m, l, q, err)) != RVE_OK)
                break;
            rve_label_colour(rve_map_id(m, l), c);
            draw_poles(im, q, g, f, cx, cy, c);
        }
    }
    free(seen);
    if (st == RVE_OK)
        st = rve_image_write_png(im, path, err);
    rve_image_free(im);
    return st;
}
