/* Tests of the report pictures: PNG round trip through libpng's reader,
 * drawing primitives, label colours and plot rendering. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "util/image.h"
#include <png.h>
#include <unistd.h>

/* Read an 8-bit RGB PNG with libpng directly (independent of our writer). */
static unsigned char *read_png(const char *path, int *w, int *h)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    unsigned char *data = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(fp);
        free(data);
        return NULL;
    }
    png_init_io(png, fp);
    png_read_info(png, info);
    *w = (int)png_get_image_width(png, info);
    *h = (int)png_get_image_height(png, info);
    ck_assert_int_eq(png_get_color_type(png, info), PNG_COLOR_TYPE_RGB);
    ck_assert_int_eq(png_get_bit_depth(png, info), 8);
    data = malloc((size_t)*w * (size_t)*h * 3);
    for (int y = 0; y < *h; y++)
        png_read_row(png, data + (size_t)y * (size_t)*w * 3, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    return data;
}

START_TEST(test_png_round_trip)
{
    rve_image *im = rve_image_alloc(7, 5, NULL);
    ck_assert_ptr_nonnull(im);
    /* A pattern with every byte value distinct enough to catch row/channel mix-ups. */
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++) {
            unsigned char c[3] = {(unsigned char)(x * 30), (unsigned char)(y * 50), (unsigned char)(x * y)};
            rve_image_set(im, x, y, c);
        }
    char path[] = "/tmp/rve-test-image-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    rve_err e;
    ck_assert_int_eq(rve_image_write_png(im, path, &e), RVE_OK);
    int w, h;
    unsigned char *px = read_png(path, &w, &h);
    ck_assert_ptr_nonnull(px);
    ck_assert_int_eq(w, 7);
    ck_assert_int_eq(h, 5);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++) {
            const unsigned char *p = px + 3 * (y * 7 + x);
            ck_assert_int_eq(p[0], x * 30);
            ck_assert_int_eq(p[1], y * 50);
            ck_assert_int_eq(p[2], x * y);
        }
    free(px);
    unlink(path);
    /* A folder that does not exist: error, no crash. */
    ck_assert_int_ne(rve_image_write_png(im, "/nonexistent-dir/x.png", &e), RVE_OK);
    ck_assert_str_eq(e.file, "/nonexistent-dir/x.png");
    rve_image_free(im);
}
END_TEST

static int is_colour(const rve_image *im, int x, int y, const unsigned char c[3])
{
    return memcmp(im->rgb + 3 * (y * im->w + x), c, 3) == 0;
}

START_TEST(test_drawing)
{
    const unsigned char red[3] = {255, 0, 0}, white[3] = {255, 255, 255};
    rve_image *im = rve_image_alloc(20, 10, NULL);
    rve_image_line(im, 0, 0, 19, 9, red);
    ck_assert(is_colour(im, 0, 0, red));
    ck_assert(is_colour(im, 19, 9, red));
    ck_assert(is_colour(im, 19, 0, white));
    /* Exactly one pixel per column for a shallow line. */
    for (int x = 0; x < 20; x++) {
        int n = 0;
        for (int y = 0; y < 10; y++)
            n += is_colour(im, x, y, red);
        ck_assert_int_eq(n, 1);
    }
    /* Clipping: drawing outside the canvas changes nothing and does not crash. */
    rve_image_fill_rect(im, -100, -100, -1, -1, red);
    rve_image_line(im, -50, 5, -10, 5, red);
    ck_assert(is_colour(im, 0, 5, white));
    /* Text: '1' has its 3-pixel base row in columns 1..3 of row 6. */
    rve_image *t = rve_image_alloc(6, 7, NULL);
    ck_assert_int_eq(rve_image_text(t, 0, 0, "1", red, 1), 6);
    ck_assert(is_colour(t, 1, 6, red) && is_colour(t, 2, 6, red) && is_colour(t, 3, 6, red));
    ck_assert(is_colour(t, 0, 6, white) && is_colour(t, 4, 6, white));
    rve_image_free(t);
    rve_image_free(im);
}
END_TEST

START_TEST(test_label_colours)
{
    unsigned char c[3], d[3];
    rve_label_colour(0, c);
    ck_assert(c[0] == 0 && c[1] == 0 && c[2] == 0);
    /* Consecutive labels (neighbouring grains often are) differ visibly. */
    for (uint32_t l = 1; l < 2000; l++) {
        rve_label_colour(l, c);
        rve_label_colour(l + 1, d);
        int diff = abs(c[0] - d[0]) + abs(c[1] - d[1]) + abs(c[2] - d[2]);
        ck_assert_int_gt(diff, 40);
    }
    uint32_t lab[4] = {1, 2, 3, 0};
    rve_image *im = rve_image_from_labels(lab, 2, 2, 3);
    ck_assert_int_eq(im->w, 6);
    rve_label_colour(3, c);
    ck_assert(is_colour(im, 0, 5, c)); /* bottom-left block is label 3 */
    rve_image_free(im);
}
END_TEST

START_TEST(test_plot)
{
    double x[50], y[50];
    for (int i = 0; i < 50; i++) {
        x[i] = i;
        y[i] = exp(-0.1 * i);
    }
    rve_plot_series s = {x, y, 50, {200, 30, 30}, "objective", 0};
    rve_plot_opts o = {"Convergence", "sweep", "objective", 320, 240, 1};
    rve_image *im = rve_plot_render(&o, &s, 1);
    ck_assert_ptr_nonnull(im);
    /* The series' colour must appear on the canvas. */
    int found = 0;
    for (int i = 0; i < im->w * im->h && !found; i++)
        found = memcmp(im->rgb + 3 * i, s.colour, 3) == 0;
    ck_assert(found);
    rve_image_free(im);
    /* Degenerate data (constant, NaN, empty) must render without trouble. */
    double c[3] = {1, NAN, 1};
    rve_plot_series d = {NULL, c, 3, {0, 0, 255}, NULL, 1};
    o.logy = 0;
    im = rve_plot_render(&o, &d, 1);
    ck_assert_ptr_nonnull(im);
    rve_image_free(im);
    d.n = 0;
    im = rve_plot_render(&o, &d, 1);
    ck_assert_ptr_nonnull(im);
    rve_image_free(im);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("image");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_png_round_trip);
    tcase_add_test(tc, test_drawing);
    tcase_add_test(tc, test_label_colours);
    tcase_add_test(tc, test_plot);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
