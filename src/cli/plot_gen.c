/* plot_gen.c - `rve gen --plot FILE.png`: the target and achieved
 * cumulative distributions of every prescribed property, one panel each. */
#include "config.h"
#include "cli/plot.h"
#include <stdio.h>
#include <stdlib.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The target CDF sampled at M points over the range of the values and of
 * the law's 0.1 % .. 99.9 % quantiles. */
static void target_cdf(const rve_distrib *d, double lo, double hi, int M, double *tx, double *ty)
{
    double q0 = rve_distrib_quantile(d, 0.001), q1 = rve_distrib_quantile(d, 0.999);
    double a = lo < q0 ? lo : q0, b = hi > q1 ? hi : q1;
    for (int j = 0; j < M; j++) {
        tx[j] = a + (b - a) * j / (M - 1.0);
        ty[j] = rve_distrib_cdf(d, tx[j]);
    }
}

rve_status cli_gen_plot_png(const char *path, const rve_morpho *m, size_t n, const double *vals, rve_err *err)
{
    int np = 0;
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        np += m->has[p];
    if (np == 0)
        return rve_err_set(err, RVE_EUSAGE, path, "--plot needs --morpho");
    enum { W = 600, H = 400, M = 200 };
    cairo_t *cr = cli_canvas(W * np, H);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *tx = malloc(M * sizeof *tx),
           *ty = malloc(M * sizeof *ty);
    if (!cr || !x || !y || !tx || !ty) {
        free(x), free(y), free(tx), free(ty);
        cli_canvas_free(cr);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    for (int p = 0, k = 0; p < RVE_PROP_COUNT; p++) {
        if (!m->has[p])
            continue;
        for (size_t i = 0; i < n; i++)
            x[i] = vals[RVE_PROP_COUNT * i + p], y[i] = (i + 1.0) / (double)n;
        qsort(x, n, sizeof *x, cmp_d);
        target_cdf(&m->dist[p], x[0], x[n - 1], M, tx, ty);
        cli_plot_series s[2] = {{tx, ty, M, {200, 30, 30}, "target", 0},
                                {x, y, (int)n, {30, 60, 200}, "achieved", 1}};
        char title[96];
        snprintf(title, sizeof title, "%s: CDF (KS %.4f)", rve_prop_name(p), rve_ks_distance(x, n, &m->dist[p]));
        cli_plot_opts o;
        cli_plot_opts_init(&o);
        o.title = title, o.xlabel = rve_prop_name(p), o.ylabel = "cumulative fraction";
        o.width = W, o.height = H;
        cli_plot_draw(cr, (double)W * k++, 0, &o, s, 2, NULL);
    }
    free(x), free(y), free(tx), free(ty);
    return cli_canvas_png(cr, path, err);
}
