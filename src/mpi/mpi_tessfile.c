/* mpi_tessfile.c - the seeds of a Neper .tess file as a stream (docs/mpi.md):
 * under mpirun, rve raster T.tess has every rank read the file's *seed and
 * *id sections chunk by chunk and keep only the seeds of its slab, instead
 * of loading the whole tessellation (its topology is many times the seeds).
 *
 * Opening scans the file line by line once (nothing kept but the offsets
 * of the **cell *id and *seed sections, the **domain box and the
 * **periodicity flags) and validates every seed and id, so that the stream,
 * which cannot report errors, only re-reads bytes known to be good. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rve_mpi_tessfile {
    FILE *fs, *fi;         /* *seed and *id streams */
    long n;
    long seed_off, id_off; /* offsets after the section names (-1: none) */
    int per[3];
    double lo[3], hi[3];
    int has_dom;
};

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int is_tok(const char *p, const char *tok)
{
    size_t n = strlen(tok);
    return strncmp(p, tok, n) == 0 && (p[n] == '\0' || p[n] == '\n' || p[n] == '\r' || p[n] == ' ' || p[n] == '\t');
}

/* The **domain *vertex lines: "id x y z label" then "count vertices". */
static int read_domain(FILE *fp, struct rve_mpi_tessfile *f, char **line, size_t *cap)
{
    int dn = 0;
    if (getline(line, cap, fp) < 0 || sscanf(*line, "%d", &dn) != 1 || dn < 1 || dn > 1000000)
        return 0;
    for (int k = 0; k < dn; k++) {
        int id;
        double x[3];
        if (getline(line, cap, fp) < 0 || sscanf(*line, "%d %lf %lf %lf", &id, &x[0], &x[1], &x[2]) != 4 ||
            getline(line, cap, fp) < 0)
            return 0;
        for (int a = 0; a < 3; a++) {
            f->lo[a] = k == 0 || x[a] < f->lo[a] ? x[a] : f->lo[a];
            f->hi[a] = k == 0 || x[a] > f->hi[a] ? x[a] : f->hi[a];
        }
    }
    f->has_dom = 1;
    return 1;
}

/* One pass over the file: section offsets, domain, periodicity. */
static rve_status scan(FILE *fp, const char *path, struct rve_mpi_tessfile *f, rve_err *err)
{
    char *line = NULL;
    size_t cap = 0;
    char sec[32] = "";
    rve_status st = RVE_OK;
    while (st == RVE_OK && getline(&line, &cap, fp) >= 0) {
        const char *p = skip_ws(line);
        if (is_tok(p, "***end"))
            break;
        if (p[0] == '*' && p[1] == '*' && p[2] != '*') {
            sscanf(p + 2, "%31s", sec);
            if (strcmp(sec, "cell") == 0 && (getline(&line, &cap, fp) < 0 || sscanf(line, "%ld", &f->n) != 1 ||
                                            f->n < 1 || f->n > INT32_MAX))
                st = rve_err_set(err, RVE_EDATA, path, "**cell: number of cells expected");
        } else if (p[0] == '*' && p[1] != '*' && strcmp(sec, "cell") == 0) {
            if (is_tok(p, "*id"))
                f->id_off = ftell(fp);
            else if (is_tok(p, "*seed"))
                f->seed_off = ftell(fp);
        } else if (is_tok(p, "*vertex") && strcmp(sec, "domain") == 0) {
            if (!read_domain(fp, f, &line, &cap))
                st = rve_err_set(err, RVE_EDATA, path, "**domain *vertex: vertex lines expected");
        } else if (is_tok(p, "*general") && strcmp(sec, "periodicity") == 0) {
            if (getline(&line, &cap, fp) < 0 || sscanf(line, "%d %d %d", &f->per[0], &f->per[1], &f->per[2]) != 3)
                st = rve_err_set(err, RVE_EDATA, path, "**periodicity: flags expected");
        }
    }
    free(line);
    if (st == RVE_OK && f->n < 1)
        st = rve_err_set(err, RVE_EDATA, path, "no **cell section");
    else if (st == RVE_OK && f->seed_off < 0)
        st = rve_err_set(err, RVE_EDATA, path, "no *seed section (needed to rasterise under mpirun)");
    else if (st == RVE_OK && !f->has_dom)
        st = rve_err_set(err, RVE_EDATA, path, "no **domain section (needed to rasterise under mpirun)");
    for (int a = 0; st == RVE_OK && a < 3; a++)
        if (!(f->hi[a] > f->lo[a]) || !isfinite(f->hi[a] - f->lo[a]))
            st = rve_err_set(err, RVE_EDATA, path, "degenerate domain");
    return st;
}

static void ts_reset(void *ctx)
{
    struct rve_mpi_tessfile *f = ctx;
    fseek(f->fs, f->seed_off, SEEK_SET);
    if (f->fi)
        fseek(f->fi, f->id_off, SEEK_SET);
}

/* Read count seeds "i x y z w" (validated at open; 0 on a bad line). */
static int read_seeds(struct rve_mpi_tessfile *f, double *buf, long first, long count)
{
    for (long c = 0; c < count; c++) {
        long id;
        double *s = buf + 4 * c;
        if (fscanf(f->fs, "%ld %lf %lf %lf %lf", &id, &s[0], &s[1], &s[2], &s[3]) != 5 || id != first + c + 1 ||
            !isfinite(s[0]) || !isfinite(s[1]) || !isfinite(s[2]) || !isfinite(s[3]))
            return 0;
    }
    return 1;
}

static int read_ids(struct rve_mpi_tessfile *f, uint32_t *lab, long count)
{
    for (long c = 0; c < count; c++) {
        long v;
        if (fscanf(f->fi, "%ld", &v) != 1 || v < 1 || v > INT32_MAX)
            return 0;
        lab[c] = (uint32_t)v;
    }
    return 1;
}

static void ts_next(void *ctx, double *buf, long count)
{
    struct rve_mpi_tessfile *f = ctx;
    long id;
    for (long c = 0; c < count; c++) { /* validated at open: the ids run 1..n in order */
        double *s = buf + 4 * c;
        if (fscanf(f->fs, "%ld %lf %lf %lf %lf", &id, &s[0], &s[1], &s[2], &s[3]) != 5)
            s[0] = s[1] = s[2] = s[3] = NAN;
    }
}

static void ts_next_labels(void *ctx, uint32_t *lab, long count)
{
    struct rve_mpi_tessfile *f = ctx;
    if (!f->fi || !read_ids(f, lab, count))
        for (long c = 0; c < count; c++)
            lab[c] = 0;
}

/* Every seed and id once, in chunks, as the stream will read them. */
static rve_status validate(struct rve_mpi_tessfile *f, const char *path, rve_err *err)
{
    enum { CH = 4096 };
    double *buf = malloc(CH * 4 * sizeof *buf);
    uint32_t *lab = malloc(CH * sizeof *lab);
    rve_status st = buf && lab ? RVE_OK : rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    ts_reset(f);
    for (long i0 = 0; st == RVE_OK && i0 < f->n; i0 += CH) {
        long cnt = f->n - i0 < CH ? f->n - i0 : CH;
        if (!read_seeds(f, buf, i0, cnt))
            st = rve_err_set(err, RVE_EDATA, path, "*seed: seeds 1..%ld in order, 'i x y z w' with finite numbers "
                             "expected (near seed %ld)", f->n, i0 + 1);
        else if (f->fi && !read_ids(f, lab, cnt))
            st = rve_err_set(err, RVE_EDATA, path, "*id: %ld positive cell ids (labels) expected (near cell %ld)",
                             f->n, i0 + 1);
    }
    free(buf), free(lab);
    return st;
}

rve_status rve_mpi_tessfile_open(const char *path, rve_mpi_tessfile **out, rve_mpi_seeds *seeds, double lo[3],
                                 double hi[3], int periodic[3], rve_err *err)
{
    *out = NULL;
    struct rve_mpi_tessfile *f = calloc(1, sizeof *f);
    if (!f)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    f->seed_off = f->id_off = -1;
    rve_status st = RVE_OK;
    if (!(f->fs = fopen(path, "r")))
        st = rve_err_set(err, RVE_EIO, path, "cannot open");
    if (st == RVE_OK)
        st = scan(f->fs, path, f, err);
    if (st == RVE_OK && f->id_off >= 0 && !(f->fi = fopen(path, "r")))
        st = rve_err_set(err, RVE_EIO, path, "cannot open");
    if (st == RVE_OK)
        st = validate(f, path, err);
    if (st != RVE_OK) {
        rve_mpi_tessfile_close(f);
        return st;
    }
    memset(seeds, 0, sizeof *seeds);
    seeds->n = f->n;
    seeds->reset = ts_reset;
    seeds->next = ts_next;
    seeds->next_labels = f->fi ? ts_next_labels : NULL;
    seeds->ctx = f;
    memcpy(lo, f->lo, sizeof f->lo);
    memcpy(hi, f->hi, sizeof f->hi);
    for (int a = 0; a < 3; a++)
        periodic[a] = f->per[a] != 0;
    *out = f;
    return RVE_OK;
}

void rve_mpi_tessfile_close(rve_mpi_tessfile *f)
{
    if (!f)
        return;
    if (f->fs)
        fclose(f->fs);
    if (f->fi)
        fclose(f->fi);
    free(f);
}
