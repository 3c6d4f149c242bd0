/* plot.c - line plots with axes, ticks, stage marks and a legend outside the
 * plot area, drawn with cairo (report pictures of rve fit and rve gen). */
#include "config.h"
#include "cli/plot.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TICK_FONT 11.0
#define LABEL_FONT 12.0
#define TITLE_FONT 14.0
#define LEGEND_FONT 11.0
#define MAX_TICKS 64 /* bound of the tick loops */

void cli_plot_opts_init(cli_plot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 640;
    o->height = 420;
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double nice_step(double span, int n)
{
    double raw = span / n;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void format_tick(double v, double step, char *buf, size_t n)
{
    if (fabs(v) < step * 1e-9)
        v = 0;
    if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0))
        snprintf(buf, n, "%.2g", v);
    else {
        int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        snprintf(buf, n, "%.*f", dec, v);
    }
}

double cli_plot_px(const cli_plot_frame *f, double x)
{
    return f->x0 + (x - f->xmin) / (f->xmax - f->xmin) * (f->x1 - f->x0);
}

double cli_plot_py(const cli_plot_frame *f, double y)
{
    double v = f->logy ? log10(y) : y;
    return f->y1 - (v - f->ymin) / (f->ymax - f->ymin) * (f->y1 - f->y0);
}

static void data_range(const cli_plot_series *s, int ns, const cli_plot_opts *o, cli_plot_frame *f)
{
    double r[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            double x = s[k].x ? s[k].x[i] : i, y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y) || (o->logy && y <= 0))
                continue;
            y = o->logy ? log10(y) : y;
            r[0] = fmin(r[0], x), r[1] = fmax(r[1], x), r[2] = fmin(r[2], y), r[3] = fmax(r[3], y);
        }
    for (int k = 0; k < o->nmarks; k++)
        if (isfinite(o->marks[k].x))
            r[0] = fmin(r[0], o->marks[k].x), r[1] = fmax(r[1], o->marks[k].x);
    for (int a = 0; a < 4; a += 2) {
        if (!(r[a] <= r[a + 1]))
            r[a] = 0, r[a + 1] = 1;
        if (r[a + 1] - r[a] <= 0)
            r[a] -= 0.5, r[a + 1] += 0.5;
    }
    /* a little room on every side, so that no point lies under the frame line */
    double xpad = 0.02 * (r[1] - r[0]), ypad = 0.04 * (r[3] - r[2]);
    f->xmin = r[0] - xpad, f->xmax = r[1] + xpad, f->ymin = r[2] - ypad, f->ymax = r[3] + ypad;
    if (o->logy && f->ymax - f->ymin < 1) {
        f->ymin = floor(f->ymin);
        f->ymax = f->ymin + 1;
    }
    f->logy = o->logy;
}

/* Width of the legend column right of the plot area (0 without names). */
static double legend_width(cairo_t *cr, const cli_plot_series *s, int ns)
{
    double w = 0;
    for (int k = 0; k < ns; k++)
        if (s[k].name)
            w = fmax(w, cli_text_width(cr, LEGEND_FONT, s[k].name));
    return w > 0 ? w + 44 : 0;
}

static void draw_grid_and_ticks(cairo_t *cr, const cli_plot_frame *f)
{
    char buf[32];
    double xs = nice_step(f->xmax - f->xmin, 6), ys = f->logy ? 1 : nice_step(f->ymax - f->ymin, 6);
    cairo_set_line_width(cr, 1);
    double v = ceil(f->xmin / xs) * xs;
    for (int k = 0; k < MAX_TICKS && v <= f->xmax + xs * 1e-9; k++, v = (ceil(f->xmin / xs) + k) * xs) {
        double x = floor(cli_plot_px(f, v)) + 0.5;
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, x, f->y0), cairo_line_to(cr, x, f->y1), cairo_stroke(cr);
        format_tick(v, xs, buf, sizeof buf);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cli_text(cr, x, f->y1 + 16, TICK_FONT, 1, buf);
    }
    v = ceil(f->ymin / ys) * ys;
    for (int k = 0; k < MAX_TICKS && v <= f->ymax + ys * 1e-9; k++, v = (ceil(f->ymin / ys) + k) * ys) {
        double y = floor(cli_plot_py(f, f->logy ? pow(10, v) : v)) + 0.5;
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, f->x0, y), cairo_line_to(cr, f->x1, y), cairo_stroke(cr);
        if (f->logy)
            snprintf(buf, sizeof buf, "1e%d", (int)lround(v));
        else
            format_tick(v, ys, buf, sizeof buf);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cli_text(cr, f->x0 - 6, y + 4, TICK_FONT, 2, buf);
    }
}

static void draw_labels(cairo_t *cr, const cli_plot_frame *f, const cli_plot_opts *o, double ox, double oy)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, f->x0 + 0.5, f->y0 + 0.5, f->x1 - f->x0 - 1, f->y1 - f->y0 - 1);
    cairo_stroke(cr);
    if (o->title)
        cli_text(cr, ox + o->width / 2.0, oy + 20, TITLE_FONT, 1, o->title);
    if (o->xlabel)
        cli_text(cr, (f->x0 + f->x1) / 2, f->y1 + 34, LABEL_FONT, 1, o->xlabel);
    if (o->ylabel) {
        cairo_save(cr);
        cairo_translate(cr, ox + 16, (f->y0 + f->y1) / 2);
        cairo_rotate(cr, -2 * atan(1.0)); /* a quarter turn: text upwards */
        cli_text(cr, 0, 0, LABEL_FONT, 1, o->ylabel);
        cairo_restore(cr);
    }
}

/* Vertical dashed marks with their labels written upwards along the line. */
static void draw_marks(cairo_t *cr, const cli_plot_frame *f, const cli_plot_opts *o)
{
    static const double dash[2] = {5, 4};
    for (int k = 0; k < o->nmarks; k++) {
        double x = floor(cli_plot_px(f, o->marks[k].x)) + 0.5;
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, x, f->y0), cairo_line_to(cr, x, f->y1), cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (o->marks[k].label) {
            cairo_save(cr);
            cairo_translate(cr, x - 4, f->y1 - 6);
            cairo_rotate(cr, -2 * atan(1.0)); /* a quarter turn: text upwards */
            cli_text(cr, 0, 0, TICK_FONT, 0, o->marks[k].label);
            cairo_restore(cr);
        }
    }
}

static void draw_series(cairo_t *cr, const cli_plot_frame *f, const cli_plot_series *s)
{
    int have = 0;
    double py = 0;
    cli_set_colour(cr, s->colour);
    cairo_set_line_width(cr, 2);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (int i = 0; i < s->n; i++) {
        double x = s->x ? s->x[i] : i, y = s->y[i];
        if (!isfinite(x) || !isfinite(y) || (f->logy && y <= 0)) {
            have = 0;
            continue;
        }
        double cx = cli_plot_px(f, x), cy = cli_plot_py(f, y);
        if (!have)
            cairo_move_to(cr, cx, cy);
        else if (s->steps)
            cairo_line_to(cr, cx, py), cairo_line_to(cr, cx, cy);
        else
            cairo_line_to(cr, cx, cy);
        if (s->n == 1)
            cairo_rectangle(cr, cx - 3, cy - 3, 6, 6);
        have = 1;
        py = cy;
    }
    if (s->n == 1)
        cairo_fill(cr);
    else
        cairo_stroke(cr);
}

static void draw_legend(cairo_t *cr, const cli_plot_frame *f, const cli_plot_series *s, int ns)
{
    double lx = f->x1 + 14, ly = f->y0 + 14;
    for (int k = 0; k < ns; k++) {
        if (!s[k].name)
            continue;
        cli_set_colour(cr, s[k].colour);
        cairo_rectangle(cr, lx, ly - 5, 20, 4);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cli_text(cr, lx + 26, ly, LEGEND_FONT, 0, s[k].name);
        ly += 18;
    }
}

void cli_plot_draw(cairo_t *cr, double ox, double oy, const cli_plot_opts *o, const cli_plot_series *s,
                   int ns, cli_plot_frame *frame)
{
    cli_plot_frame f;
    data_range(s, ns, o, &f);
    double lw = legend_width(cr, s, ns);
    f.x0 = ox + 72, f.y0 = oy + 34, f.x1 = ox + o->width - 16 - lw, f.y1 = oy + o->height - 46;
    if (f.x1 < f.x0 + 40) /* a legend too wide for the panel: keep a usable plot area */
        f.x1 = f.x0 + 40;
    cairo_save(cr);
    draw_grid_and_ticks(cr, &f);
    draw_marks(cr, &f, o);
    cairo_rectangle(cr, f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0);
    cairo_clip(cr);
    for (int k = 0; k < ns; k++)
        draw_series(cr, &f, &s[k]);
    cairo_reset_clip(cr);
    draw_labels(cr, &f, o, ox, oy);
    draw_legend(cr, &f, s, ns);
    cairo_restore(cr);
    if (frame)
        *frame = f;
}

rve_status cli_plot_png(const char *path, const cli_plot_opts *o, const cli_plot_series *s, int ns,
                        cli_plot_frame *frame, rve_err *err)
{
    cairo_t *cr = cli_canvas(o->width, o->height);
    if (cr)
        cli_plot_draw(cr, 0, 0, o, s, ns, frame);
    return cli_canvas_png(cr, path, err);
}
