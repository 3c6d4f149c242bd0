/* plot_canvas.c - cairo canvases, text, label colours and atomic PNG
 * output for the pictures of the rve program. */
#include "config.h"
#include "cli/plot.h"
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "DejaVu Sans"

cairo_t *cli_canvas(int w, int h)
{
    if (w <= 0 || h <= 0 || w > 16384 || h > 16384)
        return NULL;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return NULL;
    }
    cairo_t *cr = cairo_create(s);
    cairo_surface_destroy(s); /* the context keeps its reference */
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        cairo_destroy(cr);
        return NULL;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return cr;
}

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, (FILE *)closure) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

rve_status cli_canvas_png(cairo_t *cr, const char *path, rve_err *err)
{
    if (!cr)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory for the picture");
    cairo_surface_t *s = cairo_get_target(cr);
    cairo_surface_flush(s);
    rve_status st = RVE_OK;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        st = rve_err_set(err, RVE_EINTERNAL, path, "drawing failed: %s", cairo_status_to_string(cairo_status(cr)));
    rve_afile *af = st == RVE_OK ? rve_afile_open(path, 1, err) : NULL;
    if (st == RVE_OK && !af)
        st = err ? err->code : RVE_EIO;
    if (af) {
        cairo_status_t cs = cairo_surface_write_to_png_stream(s, write_fp, rve_afile_fp(af));
        if (cs != CAIRO_STATUS_SUCCESS) {
            rve_afile_abort(af);
            st = rve_err_set(err, RVE_EIO, path, "cannot write the PNG: %s", cairo_status_to_string(cs));
        } else {
            st = rve_afile_commit(af, err);
        }
    }
    cli_canvas_free(cr);
    return st;
}

void cli_canvas_free(cairo_t *cr)
{
    if (cr)
        cairo_destroy(cr);
    /* nothing of cairo is alive now: its font caches and fontconfig's
     * configuration go too (the next picture loads them again), so that a
     * leak checker sees no memory held at exit */
    cairo_debug_reset_static_data();
    FcFini();
}

void cli_set_colour(cairo_t *cr, const unsigned char c[3])
{
    cairo_set_source_rgb(cr, c[0] / 255.0, c[1] / 255.0, c[2] / 255.0);
}

double cli_text_width(cairo_t *cr, double size, const char *s)
{
    cairo_text_extents_t e;
    cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

double cli_text(cairo_t *cr, double x, double y, double size, int align, const char *s)
{
    double w = cli_text_width(cr, size, s);
    cairo_move_to(cr, x - (align == 1 ? w / 2 : align == 2 ? w : 0), y);
    cairo_show_text(cr, s);
    cairo_new_path(cr);
    return w;
}

void cli_label_colour(uint32_t label, unsigned char c[3])
{
    if (label == 0) {
        c[0] = c[1] = c[2] = 0;
        return;
    }
    /* Golden-ratio hue steps give neighbouring labels distant hues; a hash
     * varies saturation and value so that equal hues stay distinguishable
     * (value >= 0.7: no grain is as dark as void). */
    uint32_t hsh = label * 2654435761u;
    double hue = fmod(label * 0.618033988749895, 1.0) * 6.0;
    double sat = 0.45 + 0.4 * ((hsh >> 8) & 0xff) / 255.0;
    double val = 0.70 + 0.3 * ((hsh >> 16) & 0xff) / 255.0;
    int k = (int)hue;
    double f = hue - k, p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
    double rgb[6][3] = {{val, t, p}, {q, val, p}, {p, val, t}, {p, q, val}, {t, p, val}, {val, p, q}};
    for (int i = 0; i < 3; i++)
        c[i] = (unsigned char)(255 * rgb[k % 6][i]);
}

cairo_surface_t *cli_label_surface(const uint32_t *lab, int w, int h)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return NULL;
    }
    cairo_surface_flush(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)(void *)(d + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++) {
            unsigned char c[3];
            cli_label_colour(lab[(size_t)y * (size_t)w + (size_t)x], c);
            row[x] = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2]; /* RGB24: native 0x00RRGGBB */
        }
    }
    cairo_surface_mark_dirty(s);
    return s;
}
