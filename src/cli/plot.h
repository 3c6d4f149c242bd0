/* plot.h - pictures of the rve program (report plots, slices, pole
 * figures), drawn with cairo and written as PNG (internal to the CLI).
 *
 * Everything here belongs to the `rve` program, not to librve: the
 * library links neither cairo nor libpng. */
#ifndef RVE_CLI_PLOT_H
#define RVE_CLI_PLOT_H

#include <rve/optim.h>
#include <rve/util.h>
#include <cairo.h>
#include <stdint.h>

/* One line series. */
typedef struct {
    const double *x, *y;     /* n points (x NULL: 0, 1, 2, ...) */
    int n;
    unsigned char colour[3];
    const char *name;        /* legend entry, may be NULL */
    int steps;               /* 1: draw as a step function (CDFs) */
} cli_plot_series;

/* A vertical mark (e.g. a stage change) at data abscissa x, labelled. */
typedef struct {
    double x;
    const char *label;
} cli_plot_mark;

typedef struct {
    const char *title, *xlabel, *ylabel;
    int width, height;          /* pixels of the whole picture (panel) */
    int logy;                   /* logarithmic y axis (positive values only) */
    const cli_plot_mark *marks; /* nmarks vertical dashed lines, or NULL */
    int nmarks;
} cli_plot_opts;

/* Where the data went: the plot area in pixels (x0, y0 top-left, x1, y1
 * bottom-right, inclusive of the frame line) and the data ranges mapped
 * onto it (y in log10 when logy).  The legend is always drawn right of x1,
 * outside the plot area, so it never covers a curve. */
typedef struct {
    double x0, y0, x1, y1;
    double xmin, xmax, ymin, ymax;
    int logy;
} cli_plot_frame;

/* Fill opts with defaults (640 x 420 pixels, linear axes, no marks). */
void cli_plot_opts_init(cli_plot_opts *o);

/* Draw a plot with axes, ticks, labels, marks and a legend into the
 * rectangle (ox, oy, o->width, o->height) of cr.  frame (may be NULL) gets
 * the data-to-pixel mapping. */
void cli_plot_draw(cairo_t *cr, double ox, double oy, const cli_plot_opts *o, const cli_plot_series *s,
                   int ns, cli_plot_frame *frame);

/* Draw one plot and write it as a PNG (8-bit RGB), atomically. */
rve_status cli_plot_png(const char *path, const cli_plot_opts *o, const cli_plot_series *s, int ns,
                        cli_plot_frame *frame, rve_err *err);

/* Pixel position of a data point in a frame. */
double cli_plot_px(const cli_plot_frame *f, double x);
double cli_plot_py(const cli_plot_frame *f, double y);

/* ---------------------------------------------------------------- helpers */
/* A white RGB canvas (cairo RGB24 image surface) and its context; NULL
 * context on failure (out of memory or an absurd size). */
cairo_t *cli_canvas(int w, int h);
/* Write the canvas of cr as an 8-bit RGB PNG, atomically (temporary file
 * and rename through util/afile), and free cr (cli_canvas_free). */
rve_status cli_canvas_png(cairo_t *cr, const char *path, rve_err *err);
/* Destroy cr (NULL: nothing) without writing it, and release cairo's and
 * fontconfig's caches: the program draws one picture at a time. */
void cli_canvas_free(cairo_t *cr);
void cli_set_colour(cairo_t *cr, const unsigned char c[3]);
/* Text in the sans-serif face at size px; align 0 left, 1 centre, 2 right
 * of x; y is the baseline.  Returns the width drawn. */
double cli_text(cairo_t *cr, double x, double y, double size, int align, const char *s);
double cli_text_width(cairo_t *cr, double size, const char *s);

/* A distinct, stable colour for a grain label (0 = void: black). */
void cli_label_colour(uint32_t label, unsigned char c[3]);
/* An RGB24 image surface of w x h label colours (row 0 at the top), for
 * cairo_set_source_surface with a nearest-neighbour filter; NULL on failure. */
cairo_surface_t *cli_label_surface(const uint32_t *lab, int w, int h);

/* ------------------------------------------------------------ rve gen */
/* `rve gen --plot`: one panel of 600 x 400 pixels per prescribed property
 * of m (in property order), the target CDF (red) and the achieved one
 * (blue steps) of the n values vals[RVE_PROP_COUNT i + p]. */
rve_status cli_gen_plot_png(const char *path, const rve_morpho *m, size_t n, const double *vals, rve_err *err);

#endif
