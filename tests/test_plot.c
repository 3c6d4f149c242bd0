/* test_plot.c - the cairo pictures of the rve program (src/cli/plot*.c).
 *
 * Every picture is written as a PNG and read back by tests/pngcheck.py, an
 * independent decoder (zlib and struct): the size, and pixels of the series
 * colours where the data put them, computed here from the data and the plot
 * frame by the linear map of the axes. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "cli/plot.h"
#include "testutil.h"
#include <math.h>
#include <sys/wait.h>

static char dir[] = "/tmp/rve-test-plot.XXXXXX";

/* pngcheck.py on path with the given specs must pass; without Python the
 * test is a skip. */
static void expect_png(const char *path, int w, int h, const char *specs)
{
    char cmd[16384];
    if (system("python3 -c 'import zlib, struct' >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP %s: no python3\n", path);
        test_note_skip();
        return;
    }
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/pngcheck.py' '%s' %d %d %s", RVE_SRCDIR, path, w, h, specs);
    int r = system(cmd);
    ck_assert_msg(WIFEXITED(r) && WEXITSTATUS(r) == 0, "%s: pngcheck failed", path);
}

static void add_spec(char *buf, size_t n, int neg, double x, double y, const unsigned char c[3], int rad)
{
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, " %s%d,%d,%d,%d,%d,%d", neg ? "!" : "", (int)floor(x), (int)floor(y), c[0], c[1], c[2],
             rad);
}

static double lin(double v, double a, double b, double p, double q)
{
    return p + (v - a) / (b - a) * (q - p);
}

START_TEST(test_series_where_the_data_say)
{
    /* a rising curve ending in the top-right corner, where a legend drawn
     * inside the plot area would cover it */
    double x[11], y[11], yb[11];
    for (int i = 0; i < 11; i++)
        x[i] = i, y[i] = (double)i * i, yb[i] = 20;
    cli_plot_series s[2] = {{x, y, 11, {220, 20, 20}, "quadratic, a long legend entry", 0},
                            {x, yb, 11, {20, 60, 220}, "constant", 1}};
    cli_plot_mark mk = {4, "stage 2"};
    cli_plot_opts o;
    cli_plot_opts_init(&o);
    o.title = "test", o.xlabel = "x", o.ylabel = "y", o.marks = &mk, o.nmarks = 1;
    cli_plot_frame f;
    char path[256], specs[8192] = "";
    snprintf(path, sizeof path, "%s/lin.png", dir);
    rve_err err;
    ck_assert_int_eq(cli_plot_png(path, &o, s, 2, &f, &err), RVE_OK);
    ck_assert(f.x0 < f.x1 && f.y0 < f.y1 && f.x1 <= 640 && f.y1 <= 420);
    ck_assert(f.xmin <= 0 && f.xmax >= 10 && f.ymin <= 0 && f.ymax >= 100);
    for (int i = 1; i < 11; i++) {
        double px = lin(x[i], f.xmin, f.xmax, f.x0, f.x1), py = lin(y[i], f.ymin, f.ymax, f.y1, f.y0);
        add_spec(specs, sizeof specs, 0, px, py, s[0].colour, 1);
    }
    /* the step series: flat at 20 between data points */
    add_spec(specs, sizeof specs, 0, lin(7.5, f.xmin, f.xmax, f.x0, f.x1), lin(20, f.ymin, f.ymax, f.y1, f.y0),
             s[1].colour, 1);
    /* the stage mark: a dashed grey line at x = 4 */
    unsigned char grey[3] = {89, 89, 89};
    add_spec(specs, sizeof specs, 0, lin(4, f.xmin, f.xmax, f.x0, f.x1), (f.y0 + f.y1) / 2, grey, 5);
    /* nothing red far from the curve (bottom-right of the plot area) */
    add_spec(specs, sizeof specs, 1, f.x1 - 20, f.y1 - 20, s[0].colour, 8);
    /* the legend is outside the plot area: its swatches right of x1 */
    add_spec(specs, sizeof specs, 0, f.x1 + 24, f.y0 + 12, s[0].colour, 4);
    add_spec(specs, sizeof specs, 0, f.x1 + 24, f.y0 + 30, s[1].colour, 4);
    expect_png(path, 640, 420, specs);
}
END_TEST

START_TEST(test_log_axis)
{
    double x[5] = {0, 1, 2, 3, 4}, y[5] = {1, 10, 100, 1000, 10000};
    cli_plot_series s = {x, y, 5, {40, 160, 60}, NULL, 0};
    cli_plot_opts o;
    cli_plot_opts_init(&o);
    o.width = 320, o.height = 240, o.logy = 1;
    cli_plot_frame f;
    char path[256], specs[4096] = "";
    snprintf(path, sizeof path, "%s/log.png", dir);
    rve_err err;
    ck_assert_int_eq(cli_plot_png(path, &o, &s, 1, &f, &err), RVE_OK);
    ck_assert(f.logy);
    for (int i = 0; i < 5; i++) /* equal steps of the log: a straight line */
        add_spec(specs, sizeof specs, 0, lin(x[i], f.xmin, f.xmax, f.x0, f.x1),
                 lin(log10(y[i]), f.ymin, f.ymax, f.y1, f.y0), s.colour, 1);
    expect_png(path, 320, 240, specs);
}
END_TEST

START_TEST(test_label_colours)
{
    unsigned char c[3], d[3];
    cli_label_colour(0, c);
    ck_assert(c[0] == 0 && c[1] == 0 && c[2] == 0);
    for (uint32_t l = 1; l < 2000; l++) {
        cli_label_colour(l, c);
        cli_label_colour(l + 1, d);
        ck_assert_msg(c[0] + c[1] + c[2] > 3 * 60, "label %u is too dark to tell from void", l);
        ck_assert_msg(abs(c[0] - d[0]) + abs(c[1] - d[1]) + abs(c[2] - d[2]) > 30, "labels %u, %u look alike", l,
                      l + 1);
    }
    /* a 3 x 2 label image scaled by 10 (nearest): void black, label 7 its colour */
    uint32_t lab[6] = {0, 7, 7, 3, 0, 3};
    cairo_surface_t *img = cli_label_surface(lab, 3, 2);
    ck_assert_ptr_nonnull(img);
    cairo_t *cr = cli_canvas(30, 20);
    ck_assert_ptr_nonnull(cr);
    cairo_scale(cr, 10, 10);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_surface_destroy(img);
    char path[256], specs[512] = "";
    snprintf(path, sizeof path, "%s/lab.png", dir);
    rve_err err;
    ck_assert_int_eq(cli_canvas_png(cr, path, &err), RVE_OK);
    unsigned char black[3] = {0, 0, 0}, c7[3], c3[3];
    cli_label_colour(7, c7);
    cli_label_colour(3, c3);
    add_spec(specs, sizeof specs, 0, 5, 5, black, 0);
    add_spec(specs, sizeof specs, 0, 15, 5, c7, 0);
    add_spec(specs, sizeof specs, 0, 25, 5, c7, 0);
    add_spec(specs, sizeof specs, 0, 5, 15, c3, 0);
    add_spec(specs, sizeof specs, 0, 15, 15, black, 0);
    expect_png(path, 30, 20, specs);
}
END_TEST

START_TEST(test_unwritable)
{
    cli_plot_opts o;
    cli_plot_opts_init(&o);
    double y[2] = {1, 2};
    cli_plot_series s = {NULL, y, 2, {0, 0, 0}, NULL, 0};
    rve_err err;
    rve_err_clear(&err);
    ck_assert_int_ne(cli_plot_png("/nonexistent-dir/a.png", &o, &s, 1, NULL, &err), RVE_OK);
    ck_assert(strstr(err.file, "/nonexistent-dir") != NULL);
    ck_assert_int_eq(access("/nonexistent-dir/a.png", F_OK), -1);
    /* an absurd canvas is refused, not drawn */
    ck_assert_ptr_null(cli_canvas(0, 10));
    ck_assert_int_eq(cli_canvas_png(NULL, "x.png", &err), RVE_ENOMEM);
}
END_TEST

static Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_series_where_the_data_say);
    tcase_add_test(tc, test_log_axis);
    tcase_add_test(tc, test_label_colours);
    tcase_add_test(tc, test_unwritable);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!mkdtemp(dir))
        return 99;
    int r = test_run_suite(plot_suite());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_plot: could not remove %s\n", dir);
    return r;
}
