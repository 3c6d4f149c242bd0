/* image.h - RGB canvases, PNG output and simple plots for reports (internal).
 *
 * Used by the fit report (mid-slices, misassigned voxels, convergence plot)
 * and the synthesis report (target vs achieved distributions). */
#ifndef RVE_IMAGE_H
#define RVE_IMAGE_H

#include <rve/util.h>
#include <stdint.h>

typedef struct {
    int w, h;
    unsigned char *rgb; /* w * h * 3 bytes, row-major from the top-left */
} rve_image;

/* A w x h canvas filled with colour bg (NULL: white). NULL on failure. */
rve_image *rve_image_alloc(int w, int h, const unsigned char bg[3]);
void rve_image_free(rve_image *im);

/* Drawing (everything is clipped to the canvas). */
void rve_image_set(rve_image *im, int x, int y, const unsigned char c[3]);
void rve_image_fill_rect(rve_image *im, int x0, int y0, int x1, int y1, const unsigned char c[3]);
void rve_image_line(rve_image *im, int x0, int y0, int x1, int y1, const unsigned char c[3]);
/* Text in a 5x7 pixel font (upper/lower case letters, digits, common
 * punctuation), each font pixel drawn as a scale x scale square. Returns the
 * width drawn in pixels. */
int rve_image_text(rve_image *im, int x, int y, const char *s, const unsigned char c[3], int scale);
int rve_image_text_width(const char *s, int scale);
/* Copy src into dst with its top-left corner at (x, y). */
void rve_image_blit(rve_image *dst, const rve_image *src, int x, int y);

/* A distinct, stable colour for a grain label (0 = void: black). */
void rve_label_colour(uint32_t label, unsigned char c[3]);
/* A w x h image of labels (row y = 0 at the top), each label one
 * scale x scale block coloured by rve_label_colour. */
rve_image *rve_image_from_labels(const uint32_t *lab, int w, int h, int scale);

/* Write as an 8-bit RGB PNG, atomically. */
rve_status rve_image_write_png(const rve_image *im, const char *path, rve_err *err);

/* ------------------------------------------------------------------ plots */
typedef struct {
    const double *x, *y;     /* n points (x NULL: 0, 1, 2, ...) */
    int n;
    unsigned char colour[3];
    const char *name;        /* legend entry, may be NULL */
    int steps;               /* 1: draw as a step function (CDFs, histograms) */
} rve_plot_series;

typedef struct {
    const char *title, *xlabel, *ylabel;
    int width, height;       /* pixels; 0 means 640 x 420 */
    int logy;                /* logarithmic y axis (positive values only) */
} rve_plot_opts;

/* Render series into a new image with axes, ticks, labels and a legend. */
rve_image *rve_plot_render(const rve_plot_opts *opts, const rve_plot_series *s, int ns);
/* Render and write a PNG in one go. */
rve_status rve_plot_png(const char *path, const rve_plot_opts *opts, const rve_plot_series *s,
                        int ns, rve_err *err);

#endif
