/* RGB canvases, a 5x7 font, PNG output and simple plots for reports. */
#include "config.h"
#include "util/image.h"
#include "util/font5x7.h"
#include <ctype.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char WHITE[3] = {255, 255, 255};
static const unsigned char BLACK[3] = {0, 0, 0};
static const unsigned char GREY[3] = {200, 200, 200};

rve_image *rve_image_alloc(int w, int h, const unsigned char bg[3])
{
    if (w <= 0 || h <= 0 || (size_t)w * (size_t)h > ((size_t)1 << 28))
        return NULL;
    rve_image *im = malloc(sizeof *im);
    if (!im)
        return NULL;
    im->w = w;
    im->h = h;
    im->rgb = malloc((size_t)w * (size_t)h * 3);
    if (!im->rgb) {
        free(im);
        return NULL;
    }
    if (!bg)
        bg = WHITE;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        memcpy(im->rgb + 3 * i, bg, 3);
    return im;
}

void rve_image_free(rve_image *im)
{
    if (!im)
        return;
    free(im->rgb);
    free(im);
}

void rve_image_set(rve_image *im, int x, int y, const unsigned char c[3])
{
    if (x < 0 || y < 0 || x >= im->w || y >= im->h)
        return;
    memcpy(im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x), c, 3);
}

void rve_image_fill_rect(rve_image *im, int x0, int y0, int x1, int y1, const unsigned char c[3])
{
    if (x0 > x1) { int t = x0; x0 = x1; x1 = t; }
    if (y0 > y1) { int t = y0; y0 = y1; y1 = t; }
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= im->w) x1 = im->w - 1;
    if (y1 >= im->h) y1 = im->h - 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            memcpy(im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x), c, 3);
}

void rve_image_line(rve_image *im, int x0, int y0, int x1, int y1, const unsigned char c[3])
{
    /* Bresenham; the step count is bounded by the longer side. */
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    for (int steps = 0; steps <= dx - dy; steps++) {
        rve_image_set(im, x0, y0, c);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * e;
        if (e2 >= dy) { e += dy; x0 += sx; }
        if (e2 <= dx) { e += dx; y0 += sy; }
    }
}

static const rve_glyph *find_glyph(char ch)
{
    char u = (char)toupper((unsigned char)ch);
    for (size_t i = 0; i < sizeof rve_font5x7 / sizeof rve_font5x7[0]; i++)
        if (rve_font5x7[i].ch == u)
            return &rve_font5x7[i];
    return NULL;
}

int rve_image_text_width(const char *s, int scale)
{
    return (int)strlen(s) * 6 * scale;
}

int rve_image_text(rve_image *im, int x, int y, const char *s, const unsigned char c[3], int scale)
{
    int x0 = x;
    for (; *s; s++, x += 6 * scale) {
        const rve_glyph *g = find_glyph(*s);
        if (!g)
            g = find_glyph('?');
        for (int r = 0; r < 7; r++)
            for (int col = 0; col < 5; col++)
                if (g->rows[r] & (0x10 >> col))
                    rve_image_fill_rect(im, x + col * scale, y + r * scale, x + (col + 1) * scale - 1,
                                        y + (r + 1) * scale - 1, c);
    }
    return x - x0;
}

void rve_image_blit(rve_image *dst, const rve_image *src, int x, int y)
{
    for (int j = 0; j < src->h; j++)
        for (int i = 0; i < src->w; i++)
            rve_image_set(dst, x + i, y + j, src->rgb + 3 * ((size_t)j * (size_t)src->w + (size_t)i));
}

void rve_label_colour(uint32_t label, unsigned char c[3])
{
    if (label == 0) {
        c[0] = c[1] = c[2] = 0;
        return;
    }
    /* Golden-ratio hue steps give neighbouring labels distant hues; a hash
     * varies saturation and value so that equal hues stay distinguishable. */
    uint32_t hsh = label * 2654435761u;
    double hue = fmod(label * 0.618033988749895, 1.0) * 6.0;
    double sat = 0.45 + 0.4 * ((hsh >> 8) & 0xff) / 255.0;
    double val = 0.70 + 0.3 * ((hsh >> 16) & 0xff) / 255.0;
    int k = (int)hue;
    double f = hue - k, p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
    double r, g, b;
    switch (k % 6) {
    case 0: r = val; g = t; b = p; break;
    case 1: r = q; g = val; b = p; break;
    case 2: r = p; g = val; b = t; break;
    case 3: r = p; g = q; b = val; break;
    case 4: r = t; g = p; b = val; break;
    default: r = val; g = p; b = q; break;
    }
    c[0] = (unsigned char)(255 * r);
    c[1] = (unsigned char)(255 * g);
    c[2] = (unsigned char)(255 * b);
}

rve_image *rve_image_from_labels(const uint32_t *lab, int w, int h, int scale)
{
    if (scale < 1)
        scale = 1;
    rve_image *im = rve_image_alloc(w * scale, h * scale, BLACK);
    if (!im)
        return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            unsigned char c[3];
            rve_label_colour(lab[(size_t)y * (size_t)w + (size_t)x], c);
            rve_image_fill_rect(im, x * scale, y * scale, (x + 1) * scale - 1, (y + 1) * scale - 1, c);
        }
    return im;
}

/* libpng reports errors by longjmp; keep the jump buffer local to the call. */
static rve_status write_png_stream(const rve_image *im, FILE *fp)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png)
        return RVE_ENOMEM;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return RVE_ENOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return RVE_EIO;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)im->w, (png_uint_32)im->h, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < im->h; y++)
        png_write_row(png, im->rgb + 3 * (size_t)y * (size_t)im->w);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return RVE_OK;
}

rve_status rve_image_write_png(const rve_image *im, const char *path, rve_err *err)
{
    rve_afile *af = rve_afile_open(path, 1, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    rve_status s = write_png_stream(im, rve_afile_fp(af));
    if (s != RVE_OK) {
        rve_afile_abort(af);
        return rve_err_set(err, s, path, "cannot encode PNG image");
    }
    return rve_afile_commit(af, err);
}

/* ------------------------------------------------------------------ plots */

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

typedef struct {
    double x0, x1, y0, y1;
    int px0, px1, py0, py1; /* plot area in pixels */
    int logy;
} plot_frame;

static int frame_x(const plot_frame *f, double x)
{
    return f->px0 + (int)lround((x - f->x0) / (f->x1 - f->x0) * (f->px1 - f->px0));
}

static int frame_y(const plot_frame *f, double y)
{
    double v = f->logy ? log10(y) : y;
    return f->py1 - (int)lround((v - f->y0) / (f->y1 - f->y0) * (f->py1 - f->py0));
}

static void data_range(const rve_plot_series *s, int ns, int logy, double r[4])
{
    r[0] = r[2] = INFINITY;
    r[1] = r[3] = -INFINITY;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < s[k].n; i++) {
            double x = s[k].x ? s[k].x[i] : i, y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y) || (logy && y <= 0))
                continue;
            if (logy)
                y = log10(y);
            if (x < r[0]) r[0] = x;
            if (x > r[1]) r[1] = x;
            if (y < r[2]) r[2] = y;
            if (y > r[3]) r[3] = y;
        }
    if (!(r[0] <= r[1])) { r[0] = 0; r[1] = 1; }
    if (!(r[2] <= r[3])) { r[2] = 0; r[3] = 1; }
    if (r[1] - r[0] <= 0) { r[0] -= 0.5; r[1] += 0.5; }
    if (r[3] - r[2] <= 0) { r[2] -= 0.5; r[3] += 0.5; }
}

static void draw_axes(rve_image *im, plot_frame *f, const rve_plot_opts *o)
{
    char buf[32];
    double xs = nice_step(f->x1 - f->x0, 6);
    for (double v = ceil(f->x0 / xs) * xs; v <= f->x1 + xs * 1e-9; v += xs) {
        int x = frame_x(f, v);
        rve_image_line(im, x, f->py0, x, f->py1, GREY);
        format_tick(v, xs, buf, sizeof buf);
        rve_image_text(im, x - rve_image_text_width(buf, 1) / 2, f->py1 + 6, buf, BLACK, 1);
    }
    double ys = f->logy ? 1 : nice_step(f->y1 - f->y0, 6);
    if (f->logy && f->y1 - f->y0 < 1) {
        f->y0 = floor(f->y0);
        f->y1 = f->y0 + 1;
    }
    for (double v = ceil(f->y0 / ys) * ys; v <= f->y1 + ys * 1e-9; v += ys) {
        int y = frame_y(f, f->logy ? pow(10, v) : v);
        rve_image_line(im, f->px0, y, f->px1, y, GREY);
        if (f->logy)
            snprintf(buf, sizeof buf, "1e%d", (int)lround(v));
        else
            format_tick(v, ys, buf, sizeof buf);
        rve_image_text(im, f->px0 - 6 - rve_image_text_width(buf, 1), y - 3, buf, BLACK, 1);
    }
    rve_image_line(im, f->px0, f->py1, f->px1, f->py1, BLACK);
    rve_image_line(im, f->px0, f->py0, f->px0, f->py1, BLACK);
    if (o->title)
        rve_image_text(im, (im->w - rve_image_text_width(o->title, 2)) / 2, 8, o->title, BLACK, 2);
    if (o->xlabel)
        rve_image_text(im, (f->px0 + f->px1 - rve_image_text_width(o->xlabel, 1)) / 2, f->py1 + 20,
                       o->xlabel, BLACK, 1);
    if (o->ylabel)
        rve_image_text(im, 6, f->py0 - 14, o->ylabel, BLACK, 1);
}

static void draw_series(rve_image *im, const plot_frame *f, const rve_plot_series *s)
{
    int have = 0, px = 0, py = 0;
    for (int i = 0; i < s->n; i++) {
        double x = s->x ? s->x[i] : i, y = s->y[i];
        if (!isfinite(x) || !isfinite(y) || (f->logy && y <= 0)) {
            have = 0;
            continue;
        }
        int cx = frame_x(f, x), cy = frame_y(f, y);
        if (have) {
            if (s->steps) {
                rve_image_line(im, px, py, cx, py, s->colour);
                rve_image_line(im, cx, py, cx, cy, s->colour);
            } else {
                rve_image_line(im, px, py, cx, cy, s->colour);
                rve_image_line(im, px, py + 1, cx, cy + 1, s->colour); /* 2 px thick */
            }
        } else if (s->n == 1) {
            rve_image_fill_rect(im, cx - 2, cy - 2, cx + 2, cy + 2, s->colour);
        }
        have = 1;
        px = cx;
        py = cy;
    }
}

rve_image *rve_plot_render(const rve_plot_opts *o, const rve_plot_series *s, int ns)
{
    int w = o->width > 0 ? o->width : 640, h = o->height > 0 ? o->height : 420;
    rve_image *im = rve_image_alloc(w, h, WHITE);
    if (!im)
        return NULL;
    double r[4];
    data_range(s, ns, o->logy, r);
    double pad = 0.04 * (r[3] - r[2]);
    plot_frame f = {r[0], r[1], r[2] - (o->logy ? 0 : pad), r[3] + (o->logy ? 0 : pad),
                    70, w - 20, 36, h - 40, o->logy};
    draw_axes(im, &f, o);
    int ly = f.py0 + 6;
    for (int k = 0; k < ns; k++) {
        draw_series(im, &f, &s[k]);
        if (s[k].name) {
            int lx = f.px1 - rve_image_text_width(s[k].name, 1) - 30;
            rve_image_fill_rect(im, lx - 4, ly - 2, f.px1 - 4, ly + 9, WHITE);
            rve_image_fill_rect(im, lx, ly + 2, lx + 14, ly + 4, s[k].colour);
            rve_image_text(im, lx + 20, ly, s[k].name, BLACK, 1);
            ly += 14;
        }
    }
    return im;
}

rve_status rve_plot_png(const char *path, const rve_plot_opts *opts, const rve_plot_series *s,
                        int ns, rve_err *err)
{
    rve_image *im = rve_plot_render(opts, s, ns);
    if (!im)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory for the plot");
    rve_status st = rve_image_write_png(im, path, err);
    rve_image_free(im);
    return st;
}
