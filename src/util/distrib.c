/* Distributions: the one type and text syntax of `rve gen --morpho` and
 * `rve pack --size` (parse, CDF, quantile, moments, sampling, format); see
 * rve/util.h. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/util.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/strtrim.h"

static const char *kind_names[] = {"normal", "lognormal", "weibull", "custom", "constant", "uniform"};

/* Lognormal parameters (of log x) from the mean and standard deviation of x. */
static void lognormal_params(double m, double s, double *zeta, double *sigma)
{
    double r = s / m;
    *sigma = sqrt(log1p(r * r));
    *zeta = log(m) - 0.5 * (*sigma) * (*sigma);
}

/* a distribution of zero width (normal or lognormal with SD 0, uniform(A,A)) */
static int degenerate(const rve_distrib *d)
{
    return d->kind == RVE_DISTRIB_DIRAC || ((d->kind == RVE_DISTRIB_NORMAL || d->kind == RVE_DISTRIB_LOGNORMAL) && d->p2 == 0) ||
           (d->kind == RVE_DISTRIB_UNIFORM && d->p1 == d->p2);
}

static double custom_cdf(const rve_distrib *d, double x)
{
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

/* Untruncated CDF. */
static double base_cdf(const rve_distrib *d, double x)
{
    if (degenerate(d))
        return x < d->p1 ? 0 : 1;
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
    case RVE_DISTRIB_UNIFORM: return x <= d->p1 ? 0 : x >= d->p2 ? 1 : (x - d->p1) / (d->p2 - d->p1);
    case RVE_DISTRIB_CUSTOM: return custom_cdf(d, x);
    case RVE_DISTRIB_DIRAC: break;
    }
    return 0;
}

static double base_quantile(const rve_distrib *d, double u)
{
    if (u <= 0)
        u = DBL_MIN;
    if (u >= 1)
        u = 1 - DBL_EPSILON;
    if (degenerate(d))
        return d->p1;
    switch (d->kind) {
    case RVE_DISTRIB_NORMAL: return d->p1 + gsl_cdf_gaussian_Pinv(u, d->p2);
    case RVE_DISTRIB_LOGNORMAL: {
        double z, s;
        lognormal_params(d->p1, d->p2, &z, &s);
        return gsl_cdf_lognormal_Pinv(u, z, s);
    }
    case RVE_DISTRIB_WEIBULL: return gsl_cdf_weibull_Pinv(u, d->p2, d->p1);
    case RVE_DISTRIB_UNIFORM: return d->p1 + u * (d->p2 - d->p1);
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
    case RVE_DISTRIB_DIRAC: break;
    }
    return d->p1;
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
    if (degenerate(d))
        return d->p1;
    /* midpoint rule on the quantile function (finite for every supported kind) */
    const int m = 4000;
    double s = 0;
    for (int k = 0; k < m; k++)
        s += rve_distrib_quantile(d, (k + 0.5) / m);
    return s / m;
}

double rve_distrib_base_mean(const rve_distrib *d)
{
    switch (d->kind) {
    case RVE_DISTRIB_DIRAC:
    case RVE_DISTRIB_NORMAL:
    case RVE_DISTRIB_LOGNORMAL: return d->p1;
    case RVE_DISTRIB_WEIBULL: return d->p2 * tgamma(1.0 + 1.0 / d->p1);
    case RVE_DISTRIB_UNIFORM: return 0.5 * (d->p1 + d->p2);
    case RVE_DISTRIB_CUSTOM: {
        double s = 0; /* the piecewise-linear density integrated exactly */
        for (size_t i = 1; i < d->npts; i++) {
            double a = d->x[i - 1], b = d->x[i], fa = d->pdf[i - 1], fb = d->pdf[i];
            s += (b - a) * (fa * (2 * a + b) + fb * (a + 2 * b)) / 6;
        }
        return s;
    }
    }
    return NAN;
}

double rve_distrib_base_sd(const rve_distrib *d)
{
    switch (d->kind) {
    case RVE_DISTRIB_DIRAC: return 0;
    case RVE_DISTRIB_NORMAL:
    case RVE_DISTRIB_LOGNORMAL: return d->p2;
    case RVE_DISTRIB_WEIBULL: {
        double g1 = tgamma(1.0 + 1.0 / d->p1), g2 = tgamma(1.0 + 2.0 / d->p1);
        double v = g2 - g1 * g1;
        return d->p2 * sqrt(v > 0 ? v : 0);
    }
    case RVE_DISTRIB_UNIFORM: return (d->p2 - d->p1) / sqrt(12.0);
    case RVE_DISTRIB_CUSTOM: {
        double m = rve_distrib_base_mean(d), s = 0;
        for (size_t i = 1; i < d->npts; i++) {
            /* integral of (x - m)^2 f(x) over a linear piece, Simpson (exact for cubics) */
            double a = d->x[i - 1], b = d->x[i], fa = d->pdf[i - 1], fb = d->pdf[i];
            double c = 0.5 * (a + b), fc = 0.5 * (fa + fb);
            s += (b - a) / 6 * ((a - m) * (a - m) * fa + 4 * (c - m) * (c - m) * fc + (b - m) * (b - m) * fb);
        }
        return sqrt(s > 0 ? s : 0);
    }
    }
    return NAN;
}

/* one untruncated draw; the same streams as rve pack always drew */
static double draw(const rve_distrib *d, rve_rng *rng)
{
    switch (d->kind) {
    case RVE_DISTRIB_DIRAC: return d->p1;
    case RVE_DISTRIB_NORMAL: return d->p1 + d->p2 * rve_rng_normal(rng);
    case RVE_DISTRIB_LOGNORMAL: {
        double mu, sigma;
        lognormal_params(d->p1, d->p2, &mu, &sigma);
        return exp(mu + sigma * rve_rng_normal(rng));
    }
    case RVE_DISTRIB_WEIBULL: {
        double u = 1.0 - rve_rng_uniform(rng); /* (0,1] */
        return d->p2 * pow(-log(u), 1.0 / d->p1);
    }
    case RVE_DISTRIB_UNIFORM: return d->p1 + (d->p2 - d->p1) * rve_rng_uniform(rng);
    case RVE_DISTRIB_CUSTOM: return base_quantile(d, rve_rng_uniform(rng));
    }
    return NAN;
}

rve_status rve_distrib_sample(const rve_distrib *d, rve_rng *rng, double *x)
{
    if (d->kind == RVE_DISTRIB_DIRAC) {
        if (d->p1 < d->lo || d->p1 > d->hi)
            return RVE_EUSAGE;
        *x = d->p1;
        return RVE_OK;
    }
    for (int t = 0; t < 10000; t++) {
        double v = draw(d, rng);
        if (v >= d->lo && v <= d->hi) {
            *x = v;
            return RVE_OK;
        }
    }
    return RVE_ECAP;
}

int rve_distrib_format(const rve_distrib *d, char *buf, size_t n)
{
    int k;
    if (d->kind == RVE_DISTRIB_DIRAC)
        k = snprintf(buf, n, "constant(%.17g", d->p1);
    else if (d->kind == RVE_DISTRIB_CUSTOM)
        k = snprintf(buf, n, "custom(%zu points", d->npts);
    else
        k = snprintf(buf, n, "%s(%.17g,%.17g", kind_names[d->kind], d->p1, d->p2);
    size_t used = k > 0 ? (size_t)k : 0;
    if (isfinite(d->lo))
        used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ",from=%.17g", d->lo);
    if (isfinite(d->hi))
        used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ",to=%.17g", d->hi);
    used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ")");
    return (int)used;
}

/* ------------------------------------------------------------ parsing */
static void distrib_init(rve_distrib *d)
{
    memset(d, 0, sizeof *d);
    d->lo = -HUGE_VAL;
    d->hi = HUGE_VAL;
    d->fhi = 1;
}

void rve_distrib_free(rve_distrib *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->pdf);
    free(d->cdf);
    d->x = d->pdf = d->cdf = NULL;
    d->npts = 0;
}

/* x density lines of a custom file, normalised; d->x, pdf, cdf, npts */
static rve_status custom_points(rve_distrib *d, char *buf, const char *path, rve_err *err)
{
    size_t cap = 64, n = 0;
    double *x = malloc(cap * sizeof *x), *p = malloc(cap * sizeof *p), *c = NULL;
    char *save = NULL;
    int lineno = 0;
    rve_status st = RVE_OK;
    if (!x || !p)
        st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    for (char *tok = st ? NULL : strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
        lineno++;
        while (isspace((unsigned char)*tok))
            tok++;
        if (*tok == '#' || *tok == '\0')
            continue;
        char *e1, *e2;
        errno = 0;
        double a = strtod(tok, &e1), b = strtod(e1, &e2);
        while (isspace((unsigned char)*e2))
            e2++;
        if (e1 == tok || e2 == e1 || *e2 != '\0' || errno || !isfinite(a) || !isfinite(b))
            st = rve_err_set(err, RVE_EDATA, path, "line %d: expected two numbers 'x density'", lineno);
        else if (b < 0)
            st = rve_err_set(err, RVE_EDATA, path, "line %d: negative density %g", lineno, b);
        else if (n > 0 && !(a > x[n - 1]))
            st = rve_err_set(err, RVE_EDATA, path, "line %d: x values must increase", lineno);
        if (st == RVE_OK && n == cap) {
            double *nx = realloc(x, 2 * cap * sizeof *x), *np = nx ? realloc(p, 2 * cap * sizeof *p) : NULL;
            x = nx ? nx : x;
            p = np ? np : p;
            cap *= 2;
            if (!nx || !np)
                st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        }
        if (st != RVE_OK)
            break;
        x[n] = a;
        p[n] = b;
        n++;
    }
    if (st == RVE_OK && n < 2)
        st = rve_err_set(err, RVE_EDATA, path, "a custom distribution needs at least 2 points");
    if (st == RVE_OK && !(c = malloc(n * sizeof *c)))
        st = rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    if (st == RVE_OK) {
        c[0] = 0;
        for (size_t i = 1; i < n; i++)
            c[i] = c[i - 1] + 0.5 * (p[i] + p[i - 1]) * (x[i] - x[i - 1]);
        if (!(c[n - 1] > 0))
            st = rve_err_set(err, RVE_EDATA, path, "the density integrates to zero");
    }
    if (st != RVE_OK) {
        free(x);
        free(p);
        free(c);
        return st;
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
    return RVE_OK;
}

static rve_status load_custom(rve_distrib *d, const char *path, rve_err *err)
{
    char *buf;
    size_t len;
    rve_status st = rve_read_file(path, &buf, &len, err);
    if (st != RVE_OK)
        return st;
    st = custom_points(d, buf, path, err);
    free(buf);
    return st;
}

/* parameter checks of a parsed distribution; NULL when valid */
static const char *invalid(const rve_distrib *d)
{
    switch (d->kind) {
    case RVE_DISTRIB_NORMAL: return d->p2 > 0 ? NULL : "the standard deviation must be > 0 (constant(X) for one value)";
    case RVE_DISTRIB_LOGNORMAL:
        return d->p1 > 0 && d->p2 > 0 ? NULL : "lognormal needs mean > 0 and standard deviation > 0";
    case RVE_DISTRIB_WEIBULL: return d->p1 > 0 && d->p2 > 0 ? NULL : "weibull needs shape and scale > 0";
    case RVE_DISTRIB_UNIFORM: return d->p1 <= d->p2 ? NULL : "uniform needs LO <= HI";
    default: return NULL;
    }
}

/* "name(args)" with the closing parenthesis removed: name and arguments */
static rve_status parse_call(char *t, rve_distrib *d, const char *s, rve_err *err)
{
    char *par = strchr(t, '(');
    *par = '\0';
    char *name = str_trim(t), *args = par + 1, *save = NULL, *file = NULL;
    int kind = -1, nnum = 0;
    for (int k = 0; k < 6; k++)
        if (strcasecmp(name, kind_names[k]) == 0)
            kind = k;
    if (kind < 0)
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': unknown distribution '%s' (normal, lognormal, "
                           "weibull, uniform, constant, custom)", s, name);
    d->kind = (rve_distrib_kind)kind;
    int need = kind == RVE_DISTRIB_DIRAC ? 1 : kind == RVE_DISTRIB_CUSTOM ? 0 : 2;
    double num[2] = {0, 0};
    for (char *a = strtok_r(args, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        a = str_trim(a);
        char *eq = strchr(a, '=');
        double *bound = NULL;
        if (eq) {
            *eq = '\0';
            char *key = str_trim(a);
            bound = strcasecmp(key, "from") == 0 ? &d->lo : strcasecmp(key, "to") == 0 ? &d->hi : NULL;
            if (!bound)
                return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': unknown '%s=' (only from=A, to=B)", s, key);
            if (rve_parse_double(str_trim(eq + 1), bound) != RVE_OK)
                return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': bad truncation bound", s);
        } else if (kind == RVE_DISTRIB_CUSTOM && !file) {
            file = a;
        } else if (nnum < need) {
            if (rve_parse_double(a, &num[nnum++]) != RVE_OK)
                return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': parameter %d is not a number", s, nnum);
        } else
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': too many parameters", s);
    }
    if (kind == RVE_DISTRIB_CUSTOM) {
        if (!file || !*file)
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': custom() needs a file name", s);
        return load_custom(d, file, err);
    }
    if (nnum != need)
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': %s needs %d parameter%s", s, name, need,
                           need > 1 ? "s" : "");
    d->p1 = num[0];
    d->p2 = num[1];
    return RVE_OK;
}

rve_status rve_distrib_parse(const char *s, rve_distrib *d, rve_err *err)
{
    distrib_init(d);
    if (!s)
        return rve_err_set(err, RVE_EUSAGE, NULL, "empty distribution");
    /* a copy to cut up: on the stack for the usual short texts (parsing
     * allocates nothing then), else on the heap */
    char small[512], *buf = small;
    size_t sl = strlen(s);
    if (sl < sizeof small)
        memcpy(small, s, sl + 1);
    else if (!(buf = strdup(s)))
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    char *t = str_trim(buf);
    size_t tl = strlen(t);
    rve_status st = RVE_OK;
    if (!strchr(t, '(')) {
        d->kind = RVE_DISTRIB_DIRAC;
        if (rve_parse_double(t, &d->p1) != RVE_OK)
            st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': expected a number or constant(X), "
                             "normal(M,SD), lognormal(M,SD), weibull(K,LAMBDA), uniform(LO,HI), custom(FILE)", s);
    } else if (t[tl - 1] != ')') {
        st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': expected ')' at the end", s);
    } else {
        t[tl - 1] = '\0';
        st = parse_call(t, d, s, err);
    }
    if (buf != small)
        free(buf);
    const char *why = st == RVE_OK ? invalid(d) : NULL;
    if (why)
        st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': %s", s, why);
    if (st == RVE_OK && !(d->lo <= d->hi))
        st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': from must not exceed to", s);
    if (st == RVE_OK && degenerate(d) && (d->p1 < d->lo || d->p1 > d->hi))
        st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': the value lies outside from..to", s);
    if (st == RVE_OK && !degenerate(d)) {
        d->flo = isfinite(d->lo) ? base_cdf(d, d->lo) : 0;
        d->fhi = isfinite(d->hi) ? base_cdf(d, d->hi) : 1;
        if (!(d->fhi - d->flo > 1e-12))
            st = rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': the truncation interval has no probability", s);
    }
    if (st != RVE_OK)
        rve_distrib_free(d);
    return st;
}
