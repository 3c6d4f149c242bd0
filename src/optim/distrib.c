/* Distributions, morphology specifications, KS and smoothed-CDF distances. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/optim.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

static const char *prop_names[RVE_PROP_COUNT] = {"diameq", "size", "sphericity", "1-sphericity"};

const char *rve_prop_name(rve_prop p)
{
    return (p >= 0 && p < RVE_PROP_COUNT) ? prop_names[p] : "?";
}

/* Lognormal parameters (of log x) from the mean and standard deviation of x. */
static void lognormal_params(double m, double s, double *zeta, double *sigma)
{
    double r = s / m;
    *sigma = sqrt(log1p(r * r));
    *zeta = log(m) - 0.5 * (*sigma) * (*sigma);
}

/* Untruncated CDF. */
static double base_cdf(const rve_distrib *d, double x)
{
    switch (d->kind) {
    case RVE_DISTRIB_NORMAL: return gsl_cdf_gaussian_P(x - d->p1, d->p2);
    case RVE_DISTRIB_LOGNORMAL: {
        if (x <= 0)
            return 0;
        double z, s;
        lognormal_params(d->p1, d->p2, &z, &s);
        return gsl_cdf_lognormal_P(x, z, s);
    }
    case RVE_DISTRIB_WEIBULL: return x <= 0 ? 0 : gsl_cdf_weibull_P(x, d->p2, d->p1);
    case RVE_DISTRIB_DIRAC: return x < d->p1 ? 0 : 1;
    case RVE_DISTRIB_CUSTOM: {
        size_t n = d->npts;
        if (x <= d->x[0])
            return 0;
        if (x >= d->x[n - 1])
            return 1;
        size_t a = 0, b = n - 1;
        while (b - a > 1) {
            size_t c = (a + b) / 2;
            if (d->x[c] <= x)
                a = c;
            else
                b = c;
        }
        double h = d->x[b] - d->x[a], t = x - d->x[a];
        double v = d->cdf[a] + d->pdf[a] * t + (d->pdf[b] - d->pdf[a]) * t * t / (2 * h);
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    }
    return 0;
}

static double base_quantile(const rve_distrib *d, double u)
{
    if (u <= 0)
        u = DBL_MIN;
    if (u >= 1)
        u = 1 - DBL_EPSILON;
    switch (d->kind) {
    case RVE_DISTRIB_NORMAL: return d->p1 + gsl_cdf_gaussian_Pinv(u, d->p2);
    case RVE_DISTRIB_LOGNORMAL: {
        double z, s;
        lognormal_params(d->p1, d->p2, &z, &s);
        return gsl_cdf_lognormal_Pinv(u, z, s);
    }
    case RVE_DISTRIB_WEIBULL: return gsl_cdf_weibull_Pinv(u, d->p2, d->p1);
    case RVE_DISTRIB_DIRAC: return d->p1;
    case RVE_DISTRIB_CUSTOM: {
        double a = d->x[0], b = d->x[d->npts - 1];
        for (int it = 0; it < 200 && b - a > 1e-15 * (fabs(a) + fabs(b) + 1e-300); it++) {
            double c = 0.5 * (a + b);
            if (base_cdf(d, c) < u)
                a = c;
            else
                b = c;
        }
        return 0.5 * (a + b);
    }
    }
    return 0;
}

double rve_distrib_cdf(const rve_distrib *d, double x)
{
    if (x < d->lo)
        return 0;
    if (x >= d->hi)
        return 1;
    double den = d->fhi - d->flo;
    if (!(den > 0))
        return x < d->p1 ? 0 : 1;
    double v = (base_cdf(d, x) - d->flo) / den;
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

double rve_distrib_quantile(const rve_distrib *d, double u)
{
    if (u < 0)
        u = 0;
    if (u > 1)
        u = 1;
    double x = base_quantile(d, d->flo + u * (d->fhi - d->flo));
    if (x < d->lo)
        x = d->lo;
    if (x > d->hi)
        x = d->hi;
    return x;
}

double rve_distrib_mean(const rve_distrib *d)
{
    if (d->kind == RVE_DISTRIB_DIRAC)
        return d->p1;
    /* Midpoint rule on the quantile function (finite for every supported kind). */
    const int m = 4000;
    double s = 0;
    for (int k = 0; k < m; k++)
        s += rve_distrib_quantile(d, (k + 0.5) / m);
    return s / m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double rve_ks_distance(const double *x, size_t n, const rve_distrib *d)
{
    if (n == 0)
        return 1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double D = 0;
    for (size_t i = 0; i < n; i++) {
        double F = rve_distrib_cdf(d, s[i]);
        /* F_n just below s[i] is i/n (ties: the first of equal values). */
        /* With ties the maxima over a run of equal values are still exact. */
        double lo = (double)i / n, hi = (double)(i + 1) / n;
        if (F - lo > D)
            D = F - lo;
        if (hi - F > D)
            D = hi - F;
    }
    free(s);
    return D;
}

double rve_ks_pvalue(double D, size_t n)
{
    double sn = sqrt((double)n);
    double l = (sn + 0.12 + 0.11 / sn) * D;
    if (l < 0.2)
        return 1;
    double q = 0, sgn = 1;
    for (int k = 1; k <= 100; k++) {
        double t = sgn * exp(-2.0 * k * k * l * l);
        q += t;
        if (fabs(t) < 1e-12)
            break;
        sgn = -sgn;
    }
    q *= 2;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* The distance on x sorted in place: no allocation, so the synthesis
 * objective, evaluated thousands of times, cannot fail half-way. */
double synth_smooth_cdf_distance_inplace(double *s, size_t n, double h, const rve_distrib *d, int m)
{
    if (n == 0 || m <= 0)
        return NAN;
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    size_t lo = 0;
    for (int k = 0; k < m; k++) {
        double u = (k + 0.5) / m, xk = rve_distrib_quantile(d, u);
        /* values below xk - 8h count fully, above xk + 8h not at all */
        while (lo < n && s[lo] < xk - 8 * h)
            lo++;
        double F = (double)lo;
        for (size_t i = lo; i < n && s[i] <= xk + 8 * h; i++)
            F += 0.5 * erfc((s[i] - xk) / (h * 1.4142135623730951));
        F /= (double)n;
        double e = F - u;
        sum += e * e / (u * (1 - u));
    }
    return sum / m;
}

double rve_smooth_cdf_distance(const double *x, size_t n, double h, const rve_distrib *d, int m)
{
    if (n == 0 || m <= 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    double r = synth_smooth_cdf_distance_inplace(s, n, h, d, m);
    free(s);
    return r;
}

/* ------------------------------------------------------------ parsing */
static void distrib_init(rve_distrib *d)
{
    memset(d, 0, sizeof *d);
    d->lo = -HUGE_VAL;
    d->hi = HUGE_VAL;
}

static void distrib_free(rve_distrib *d)
{
    free(d->x);
    free(d->pdf);
    free(d->cdf);
    d->x = d->pdf = d->cdf = NULL;
}

void rve_morpho_free(rve_morpho *m)
{
    if (!m)
        return;
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        distrib_free(&m->dist[p]);
    memset(m, 0, sizeof *m);
}

static rve_status load_custom(rve_distrib *d, const char *path, rve_err *err)
{
    char *buf;
    size_t len;
    rve_status st = rve_read_file(path, &buf, &len, err);
    if (st != RVE_OK)
        return st;
    size_t cap = 64, n = 0;
    double *x = malloc(cap * sizeof *x), *p = malloc(cap * sizeof *p);
    char *line = buf, *save = NULL;
    int lineno = 0;
    st = RVE_OK;
    if (!x || !p) {
        st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        goto done;
    }
    for (char *tok = strtok_r(line, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *c = tok;
        while (isspace((unsigned char)*c))
            c++;
        if (*c == '#' || *c == '\0')
            continue;
        char *e1, *e2;
        errno = 0;
        double a = strtod(c, &e1);
        double b = strtod(e1, &e2);
        while (isspace((unsigned char)*e2))
            e2++;
        if (e1 == c || e2 == e1 || *e2 != '\0' || errno || !isfinite(a) || !isfinite(b)) {
            st = rve_err_set(err, RVE_EDATA, path, "line %d: expected two numbers 'x density'", lineno);
            goto done;
        }
        if (b < 0) {
            st = rve_err_set(err, RVE_EDATA, path, "line %d: negative density %g", lineno, b);
            goto done;
        }
        if (n > 0 && !(a > x[n - 1])) {
            st = rve_err_set(err, RVE_EDATA, path, "line %d: x values must increase", lineno);
            goto done;
        }
        if (n == cap) {
            cap *= 2;
            double *nx = realloc(x, cap * sizeof *x), *np;
            if (!nx) {
                st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                goto done;
            }
            x = nx;
            np = realloc(p, cap * sizeof *p);
            if (!np) {
                st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                goto done;
            }
            p = np;
        }
        x[n] = a;
        p[n] = b;
        n++;
    }
    if (n < 2) {
        st = rve_err_set(err, RVE_EDATA, path, "a custom distribution needs at least 2 points");
        goto done;
    }
    double *c = malloc(n * sizeof *c);
    if (!c) {
        st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        goto done;
    }
    c[0] = 0;
    for (size_t i = 1; i < n; i++)
        c[i] = c[i - 1] + 0.5 * (p[i] + p[i - 1]) * (x[i] - x[i - 1]);
    if (!(c[n - 1] > 0)) {
        free(c);
        st = rve_err_set(err, RVE_EDATA, path, "the density integrates to zero");
        goto done;
    }
    double tot = c[n - 1];
    for (size_t i = 0; i < n; i++) {
        c[i] /= tot;
        p[i] /= tot;
    }
    d->kind = RVE_DISTRIB_CUSTOM;
    d->npts = n;
    d->x = x;
    d->pdf = p;
    d->cdf = c;
    x = p = NULL;
done:
    free(x);
    free(p);
    free(buf);
    return st;
}

static rve_status parse_num(const char *s, double *v, const char *spec, rve_err *err)
{
    if (rve_parse_double(s, v) != RVE_OK)
        return rve_err_set(err, RVE_EUSAGE, spec, "'%s' is not a number", s);
    return RVE_OK;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Parse one distribution text (modified in place). */
static rve_status parse_distrib(char *t, rve_distrib *d, const char *spec, rve_err *err)
{
    distrib_init(d);
    t = trim(t);
    char *par = strchr(t, '(');
    if (!par) {
        double v;
        if (parse_num(t, &v, spec, err) != RVE_OK)
            return rve_err_set(err, RVE_EUSAGE, spec, "'%s': expected a distribution such as lognormal(1,0.35) or a number", t);
        d->kind = RVE_DISTRIB_DIRAC;
        d->p1 = v;
        d->flo = 0;
        d->fhi = 1;
        return RVE_OK;
    }
    size_t tl = strlen(t);
    if (t[tl - 1] != ')')
        return rve_err_set(err, RVE_EUSAGE, spec, "'%s': missing ')'", t);
    t[tl - 1] = '\0';
    *par = '\0';
    char *name = trim(t), *args = par + 1;
    int nnum = 0;
    double num[2] = {0, 0};
    char *save = NULL;
    const char *file = NULL;
    int custom = strcmp(name, "custom") == 0;
    for (char *a = strtok_r(args, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        a = trim(a);
        if (strncmp(a, "from=", 5) == 0) {
            if (parse_num(a + 5, &d->lo, spec, err) != RVE_OK)
                return RVE_EUSAGE;
        } else if (strncmp(a, "to=", 3) == 0) {
            if (parse_num(a + 3, &d->hi, spec, err) != RVE_OK)
                return RVE_EUSAGE;
        } else if (custom && !file) {
            file = a;
        } else if (!custom && nnum < 2) {
            if (parse_num(a, &num[nnum++], spec, err) != RVE_OK)
                return RVE_EUSAGE;
        } else
            return rve_err_set(err, RVE_EUSAGE, spec, "%s(): too many arguments", name);
    }
    if (custom) {
        if (!file || !*file)
            return rve_err_set(err, RVE_EUSAGE, spec, "custom() needs a file name");
        rve_status st = load_custom(d, file, err);
        if (st != RVE_OK)
            return st;
    } else {
        if (nnum != 2)
            return rve_err_set(err, RVE_EUSAGE, spec, "%s() needs two parameters", name);
        d->p1 = num[0];
        d->p2 = num[1];
        if (strcmp(name, "normal") == 0) {
            d->kind = RVE_DISTRIB_NORMAL;
            if (!(d->p2 > 0))
                return rve_err_set(err, RVE_EUSAGE, spec, "normal(): the standard deviation must be positive");
        } else if (strcmp(name, "lognormal") == 0) {
            d->kind = RVE_DISTRIB_LOGNORMAL;
            if (!(d->p1 > 0 && d->p2 > 0))
                return rve_err_set(err, RVE_EUSAGE, spec, "lognormal(): mean and standard deviation must be positive");
        } else if (strcmp(name, "weibull") == 0) {
            d->kind = RVE_DISTRIB_WEIBULL;
            if (!(d->p1 > 0 && d->p2 > 0))
                return rve_err_set(err, RVE_EUSAGE, spec, "weibull(): shape and scale must be positive");
        } else
            return rve_err_set(err, RVE_EUSAGE, spec, "unknown distribution '%s' (normal, lognormal, weibull, custom)", name);
    }
    if (!(d->lo < d->hi))
        return rve_err_set(err, RVE_EUSAGE, spec, "empty truncation interval [%g, %g]", d->lo, d->hi);
    d->flo = isfinite(d->lo) ? base_cdf(d, d->lo) : 0;
    d->fhi = isfinite(d->hi) ? base_cdf(d, d->hi) : 1;
    if (!(d->fhi - d->flo > 1e-12))
        return rve_err_set(err, RVE_EUSAGE, spec, "the truncation interval [%g, %g] has no probability", d->lo, d->hi);
    return RVE_OK;
}

rve_status rve_morpho_parse(const char *spec, rve_morpho *m, rve_err *err)
{
    memset(m, 0, sizeof *m);
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        distrib_init(&m->dist[p]);
    if (!spec)
        return rve_err_set(err, RVE_EUSAGE, "", "empty morphology");
    const char *s = spec;
    if (strcmp(spec, "gg") == 0)
        s = "diameq:lognormal(1,0.35),1-sphericity:lognormal(0.145,0.03)";
    char *buf = strdup(s);
    if (!buf)
        return rve_err_set(err, RVE_ENOMEM, spec, "out of memory");
    rve_status st = RVE_OK;
    /* split at top-level commas */
    char *item = buf;
    int depth = 0;
    for (char *c = buf;; c++) {
        if (*c == '(')
            depth++;
        else if (*c == ')')
            depth--;
        if ((*c == ',' && depth == 0) || *c == '\0') {
            int end = *c == '\0';
            *c = '\0';
            char *it = trim(item);
            char *colon = strchr(it, ':');
            if (!colon) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "'%s': expected PROPERTY:DISTRIBUTION", it);
                break;
            }
            *colon = '\0';
            char *pn = trim(it);
            int p;
            for (p = 0; p < RVE_PROP_COUNT; p++)
                if (strcmp(pn, prop_names[p]) == 0)
                    break;
            if (p == RVE_PROP_COUNT) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "unknown property '%s' (diameq, size, sphericity, 1-sphericity)", pn);
                break;
            }
            int other = p == RVE_PROP_DIAMEQ ? RVE_PROP_SIZE : p == RVE_PROP_SIZE ? RVE_PROP_DIAMEQ
                        : p == RVE_PROP_SPHERICITY ? RVE_PROP_1MSPHERICITY : RVE_PROP_SPHERICITY;
            if (m->has[p] || m->has[other]) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "'%s' conflicts with an earlier property", pn);
                break;
            }
            st = parse_distrib(colon + 1, &m->dist[p], spec, err);
            if (st != RVE_OK)
                break;
            m->has[p] = 1;
            if (end)
                break;
            item = c + 1;
        }
        if (depth < 0) {
            st = rve_err_set(err, RVE_EUSAGE, spec, "unbalanced parentheses");
            break;
        }
    }
    free(buf);
    if (st != RVE_OK)
        rve_morpho_free(m);
    return st;
}
