/* bench_pack - the acceptance runs of `rve pack` (issue 10):
 *   1000 spheres, radii lognormal(1,0.2), periodic box, as dense as possible;
 *   1000 convex polyhedra from the cells of a random Voronoi tessellation,
 *   periodic box, target fraction 0.58.
 * Prints fraction, void ratio e, coordination number Z, the largest overlap
 * (relative to the mean bounding radius) measured by an all-pairs check,
 * the time, and the narrow-phase calls per step with the broad phase against
 * all pairs (the "peer" here is the brute-force all-pairs narrow phase).
 * RVE_BENCH_PACK_N sets the body count (default 1000), RVE_BENCH_PACK_TIME
 * the compaction budget in seconds (default 280). */
#include "config.h"
#include <rve/pack.h>
#include <rve/tess.h>
#include <rve/dist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double all_pairs_max_overlap(const rve_pack_set *s, double *seconds)
{
    /* every pair, every image in {-1,0,1}^3, narrow phase without broad phase */
    double t0 = rve_now(), worst = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i; j < s->n; j++)
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        if (i == j && (a || b || c) == 0)
                            continue;
                        int sh[3] = {a, b, c};
                        double d2 = 0;
                        for (int k = 0; k < 3; k++) {
                            double dk = s->b[j].x[k] + sh[k] * s->L[k] - s->b[i].x[k];
                            d2 += dk * dk;
                        }
                        double rr = s->b[i].rbound + s->b[j].rbound;
                        if (d2 > rr * rr)
                            continue;
                        double sep;
                        int ov;
                        if (rve_pack_separation(s, (int)i, (int)j, sh, &sep, &ov) != RVE_OK)
                            return INFINITY;
                        if (ov && sep >= 0)
                            sep = -1e-300; /* GJK says touching/overlapping */
                        if (-sep > worst)
                            worst = -sep;
                    }
    *seconds = rve_now() - t0;
    return worst;
}

static void report(const char *name, rve_pack_set *s, const rve_pack_result *res, rve_status st,
                   const rve_err *e)
{
    double rmean = 0;
    for (size_t i = 0; i < s->n; i++)
        rmean += s->b[i].rbound / s->n;
    rve_pack_metrics m, m3;
    rve_err err;
    rve_pack_measure(s, 1e-6 * rmean, &m, &err);
    rve_pack_measure(s, 1e-3 * rmean, &m3, &err);
    double tcheck = 0;
    double ov = all_pairs_max_overlap(s, &tcheck);
    double allp = res->method == RVE_PACK_MC ? (double)s->n * (s->n - 1) : (double)s->n * (s->n - 1) / 2;
    printf("%-34s status %s%s%s\n", name, rve_status_name(st), st ? ": " : "", st ? e->msg : "");
    printf("  bodies %zu, box %.4g x %.4g x %.4g periodic, %.1f s, %ld steps\n", s->n, s->L[0], s->L[1],
           s->L[2], res->seconds, res->steps);
    printf("  packing fraction %.4f   void ratio e %.4f\n", m.fraction, m.void_ratio);
    printf("  Z (gap <= 1e-6 r) %.3f (%ld rattlers)   Z (gap <= 1e-3 r) %.3f (%ld rattlers)\n", m.z,
           m.rattlers, m3.z, m3.rattlers);
    printf("  largest overlap, all pairs checked: %.3g (relative to mean radius %.3g), check %.2f s\n", ov,
           ov / rmean, tcheck);
    printf("  narrow-phase calls per step: broad phase %.0f, all pairs %.0f, ratio %.1f\n",
           res->calls_per_step, allp, res->calls_per_step > 0 ? allp / res->calls_per_step : 0);
}

/* ------------------------------------------------------------------ oracle */
/* `bench_pack --oracle FILE`: an independent overlap check of a packing
 * written by `rve pack -o` (issue 22): the text is parsed here, every piece
 * (a "poly", alone or inside a "compound") gets its own hull from qhull
 * (facet normals and edges), and every pair of pieces of different bodies
 * (images {-1,0,1}^3 when periodic) whose boxes overlap is tested by the
 * separating axis theorem over the facet normals of both and the cross
 * products of their edges, in long double: the pair's overlap is the
 * smallest projection overlap over those axes (<= 0: separated), an exact
 * penetration bound.  Walls: vertices outside the box. */
#include <libqhull_r/qhull_ra.h>
#include <string.h>

typedef struct {
    int nv, nf, ne;
    double *v, *fn; /* vertices; facet normals */
    int *e;         /* edges (vertex pairs) */
    int *tri;       /* facets (triangulated by qhull's Qt): vertex triples, nf of them */
    double lo[3], hi[3];
} opiece;

static int opiece_hull(opiece *p)
{
    FILE *devnull = fopen("/dev/null", "w");
    qhT qh_qh;
    qhT *qh = &qh_qh;
    qh_zero(qh, devnull);
    coordT *cp = malloc(sizeof(coordT) * 3 * (size_t)p->nv);
    for (int i = 0; i < 3 * p->nv; i++)
        cp[i] = p->v[i];
    char opts[] = "qhull Qt";
    int code = qh_new_qhull(qh, 3, p->nv, cp, False, opts, NULL, devnull);
    if (!code) {
        p->fn = malloc(sizeof(double) * 3 * (size_t)qh->num_facets);
        p->e = malloc(sizeof(int) * 6 * (size_t)qh->num_facets);
        p->tri = malloc(sizeof(int) * 3 * (size_t)qh->num_facets);
        facetT *facet;
        vertexT *vertex, **vertexp;
        FORALLfacets {
            for (int k = 0; k < 3; k++)
                p->fn[3 * p->nf + k] = facet->normal[k];
            p->nf++;
            int ids[3], m = 0;
            FOREACHvertex_(facet->vertices) if (m < 3) ids[m++] = qh_pointid(qh, vertex->point);
            for (int a = 0; a < 3; a++)
                p->tri[3 * (p->nf - 1) + a] = ids[a < m ? a : 0];
            for (int a = 0; a < m; a++) {
                int u = ids[a], w = ids[(a + 1) % m], dup = 0;
                for (int q = 0; q < p->ne && !dup; q++)
                    dup = (p->e[2 * q] == u && p->e[2 * q + 1] == w) || (p->e[2 * q] == w && p->e[2 * q + 1] == u);
                if (!dup) {
                    p->e[2 * p->ne] = u;
                    p->e[2 * p->ne + 1] = w;
                    p->ne++;
                }
            }
        }
    }
    qh_freeqhull(qh, !qh_ALL);
    int cl, tl;
    qh_memfreeshort(qh, &cl, &tl);
    fclose(devnull);
    free(cp);
    for (int k = 0; k < 3; k++) {
        p->lo[k] = INFINITY;
        p->hi[k] = -INFINITY;
    }
    for (int i = 0; i < p->nv; i++)
        for (int k = 0; k < 3; k++) {
            p->lo[k] = fmin(p->lo[k], p->v[3 * i + k]);
            p->hi[k] = fmax(p->hi[k], p->v[3 * i + k]);
        }
    return code;
}

static long double proj_overlap(const opiece *a, const opiece *b, const double t[3], const long double ax[3])
{
    long double n = sqrtl(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    if (n < 1e-30L)
        return INFINITY;
    long double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
    for (int i = 0; i < a->nv; i++) {
        long double x = (ax[0] * a->v[3 * i] + ax[1] * a->v[3 * i + 1] + ax[2] * a->v[3 * i + 2]) / n;
        amin = fminl(amin, x);
        amax = fmaxl(amax, x);
    }
    for (int i = 0; i < b->nv; i++) {
        long double x = (ax[0] * ((long double)b->v[3 * i] + t[0]) + ax[1] * ((long double)b->v[3 * i + 1] + t[1]) +
                         ax[2] * ((long double)b->v[3 * i + 2] + t[2])) / n;
        bmin = fminl(bmin, x);
        bmax = fmaxl(bmax, x);
    }
    return fminl(amax - bmin, bmax - amin);
}

static long double sat_pieces(const opiece *a, const opiece *b, const double t[3])
{
    long double best = INFINITY;
    for (int s = 0; s < 2; s++) {
        const opiece *p = s ? b : a;
        for (int f = 0; f < p->nf && best > 0; f++) {
            long double ax[3] = {p->fn[3 * f], p->fn[3 * f + 1], p->fn[3 * f + 2]};
            best = fminl(best, proj_overlap(a, b, t, ax));
        }
    }
    for (int i = 0; i < a->ne && best > 0; i++)
        for (int j = 0; j < b->ne && best > 0; j++) {
            long double ea[3], eb[3], ax[3];
            for (int k = 0; k < 3; k++) {
                ea[k] = (long double)a->v[3 * a->e[2 * i + 1] + k] - a->v[3 * a->e[2 * i] + k];
                eb[k] = (long double)b->v[3 * b->e[2 * j + 1] + k] - b->v[3 * b->e[2 * j] + k];
            }
            ax[0] = ea[1] * eb[2] - ea[2] * eb[1];
            ax[1] = ea[2] * eb[0] - ea[0] * eb[2];
            ax[2] = ea[0] * eb[1] - ea[1] * eb[0];
            best = fminl(best, proj_overlap(a, b, t, ax));
        }
    return best;
}

/* `bench_pack --oracle FILE CONTACTS`: the contacts written by `rve pack
 * --contacts` against distances computed here: for every pair of bodies
 * (images) the distance is the smallest over their piece pairs, each by
 * brute force over the qhull facets and edges (tests/pack_dist_oracle.h,
 * long double; piece pairs whose separating-axis gap already exceeds the
 * tolerance are skipped: that gap bounds the distance from below).  The
 * pairs within the tolerance must be those of the file (so Z is the same),
 * with the same distance (1e-9 of the mean size) and normal. */
#include "../tests/pack_dist_oracle.h"

typedef struct {
    int i, j, sh[3];
    long double d, n[3];
} ocontact;

static int ocontact_cmp(const void *x, const void *y)
{
    const ocontact *a = x, *b = y;
    int ka[5] = {a->i, a->j, a->sh[0], a->sh[1], a->sh[2]}, kb[5] = {b->i, b->j, b->sh[0], b->sh[1], b->sh[2]};
    for (int k = 0; k < 5; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* A body against its own image: one of the two opposite shifts (the first
 * non-zero component positive), the normal turned with it. */
static void ocontact_canon(ocontact *c)
{
    if (c->i != c->j)
        return;
    int k = c->sh[0] ? 0 : c->sh[1] ? 1 : 2;
    if (c->sh[k] < 0)
        for (int a = 0; a < 3; a++) {
            c->sh[a] = -c->sh[a];
            c->n[a] = -c->n[a];
        }
}

static ocontact *read_contacts(const char *path, size_t *n, double *tol)
{
    FILE *fp = fopen(path, "r");
    size_t want;
    if (!fp || fscanf(fp, " # contacts %zu tol %lf", &want, tol) != 2) {
        fprintf(stderr, "bench_pack: %s: not a contacts file\n", path);
        if (fp)
            fclose(fp);
        return NULL;
    }
    ocontact *c = malloc(sizeof *c * (want + 1));
    char line[1024];
    *n = 0;
    while (fgets(line, sizeof line, fp)) {
        double v[15];
        int ia, ib;
        ocontact *x = &c[*n];
        if (line[0] == '#' || *n >= want ||
            sscanf(line, "%d %d %d %d %d %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &x->i, &x->j, &x->sh[0],
                   &x->sh[1], &x->sh[2], &ia, &ib, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
                   &v[9]) != 17)
            continue;
        x->d = v[0];
        for (int k = 0; k < 3; k++)
            x->n[k] = v[1 + k];
        ocontact_canon(x);
        (*n)++;
    }
    fclose(fp);
    qsort(c, *n, sizeof *c, ocontact_cmp);
    return c;
}

/* Smallest distance between the pieces of bodies a and b (b shifted by t). */
static long double body_dist(const opiece *pc, const size_t *first, size_t a, size_t b, const double t[3], double tol,
                             long double n[3], long *calls)
{
    long double best = INFINITY;
    for (size_t p = first[a]; p < first[a + 1]; p++)
        for (size_t q = first[b]; q < first[b + 1]; q++) {
            int ap = 0;
            for (int k = 0; k < 3; k++)
                ap |= pc[q].lo[k] + t[k] > pc[p].hi[k] + tol || pc[q].hi[k] + t[k] < pc[p].lo[k] - tol;
            if (ap || -sat_pieces(&pc[p], &pc[q], t) > tol)
                continue;
            ld3 x = {0, 0, 0}, y = {0, 0, 0};
            (*calls)++;
            long double d = ld_poly_dist(pc[p].v, pc[p].tri, pc[p].nf, pc[p].e, pc[p].ne, pc[q].v, pc[q].tri, pc[q].nf,
                                         pc[q].e, pc[q].ne, pc[p].nv, pc[q].nv, t, x, y);
            if (d < best) {
                best = d;
                for (int k = 0; k < 3; k++)
                    n[k] = d > 0 ? (y[k] - x[k]) / d : 0;
            }
        }
    return best;
}

static int contacts_oracle(const opiece *pc, const size_t *first, size_t nb, const double L[3], int periodic,
                           double msize, const char *ctpath)
{
    size_t nf, no = 0, capo = 256;
    double tol;
    ocontact *f = read_contacts(ctpath, &nf, &tol);
    if (!f)
        return 1;
    ocontact *o = malloc(sizeof *o * capo);
    double amb = 1e-9 * msize, t0 = rve_now();
    long ambiguous = 0, calls = 0;
    double *bx = malloc(sizeof(double) * 6 * nb); /* body boxes: lo, hi */
    for (size_t a = 0; a < nb; a++)
        for (int q = 0; q < 3; q++) {
            bx[6 * a + q] = INFINITY;
            bx[6 * a + 3 + q] = -INFINITY;
            for (size_t p = first[a]; p < first[a + 1]; p++) {
                bx[6 * a + q] = fmin(bx[6 * a + q], pc[p].lo[q]);
                bx[6 * a + 3 + q] = fmax(bx[6 * a + 3 + q], pc[p].hi[q]);
            }
        }
    for (size_t a = 0; a < nb; a++)
        for (size_t b = a; b < nb; b++)
            for (int s = 0; s < 27; s++) {
                int sh[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
                if ((!periodic && s != 13) || (a == b && s <= 13)) /* own images: one of each opposite pair */
                    continue;
                double t[3] = {sh[0] * L[0], sh[1] * L[1], sh[2] * L[2]};
                int apart = 0;
                for (int q = 0; q < 3; q++)
                    apart |= bx[6 * b + q] + t[q] > bx[6 * a + 3 + q] + tol || bx[6 * b + 3 + q] + t[q] < bx[6 * a + q] - tol;
                if (apart)
                    continue;
                long double n[3];
                long double d = body_dist(pc, first, a, b, t, tol, n, &calls);
                if (fabsl(d - tol) <= amb)
                    ambiguous++;
                if (!(d <= tol) || fabsl(d - tol) <= amb)
                    continue;
                if (no == capo)
                    o = realloc(o, sizeof *o * (capo *= 2));
                ocontact *x = &o[no++];
                x->i = (int)a;
                x->j = (int)b;
                memcpy(x->sh, sh, sizeof sh);
                x->d = d;
                memcpy(x->n, n, sizeof n);
                ocontact_canon(x);
            }
    qsort(o, no, sizeof *o, ocontact_cmp);
    size_t i = 0, k = 0, matched = 0, missing = 0, extra = 0;
    long double derr = 0, nerr = 0, Lmax = fmax(L[0], fmax(L[1], L[2]));
    int bad = 0;
    while (i < nf || k < no) {
        int c = i >= nf ? 1 : k >= no ? -1 : ocontact_cmp(&f[i], &o[k]);
        if (c < 0) {
            if (fabsl(f[i].d - tol) > amb) /* near the tolerance: the oracle counted it as ambiguous */
                extra++;
            i++;
            continue;
        }
        if (c > 0) {
            missing++;
            k++;
            continue;
        }
        long double e = fabsl(f[i].d - o[k].d), ne = 0;
        for (int a = 0; a < 3; a++)
            ne += (f[i].n[a] - o[k].n[a]) * (f[i].n[a] - o[k].n[a]);
        ne = sqrtl(ne);
        derr = fmaxl(derr, e);
        nerr = fmaxl(nerr, ne);
        bad |= e > amb || ne > 1e-6L + 1e-13L * Lmax / fmaxl(o[k].d, 1e-300L);
        matched++;
        i++;
        k++;
    }
    bad |= missing || extra;
    printf("contacts %s (tol %.6g = %.3g x mean size): file %zu, oracle %zu (Z %.4f and %.4f), matched %zu, "
           "missing %zu, extra %zu, %ld within 1e-9 of the tolerance left out\n",
           ctpath, tol, tol / msize, nf, no, 2.0 * nf / nb, 2.0 * no / nb, matched, missing, extra, ambiguous);
    printf("  largest distance difference %.3Lg = %.3Lg x mean size, largest normal difference %.3Lg; "
           "%ld piece distances by brute force, %.1f s%s\n",
           derr, derr / msize, nerr, calls, rve_now() - t0, bad ? "  MISMATCH" : "  OK");
    free(bx);
    free(f);
    free(o);
    return bad ? 3 : 0;
}

static int oracle(const char *path, const char *ctpath)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "bench_pack: cannot open %s\n", path);
        return 1;
    }
    double L[3];
    char per[32];
    if (fscanf(fp, " # domain %lf %lf %lf %31s", &L[0], &L[1], &L[2], per) != 4) {
        fprintf(stderr, "bench_pack: %s: no domain line\n", path);
        return 1;
    }
    int periodic = strcmp(per, "periodic") == 0;
    size_t nb = 0, capb = 0, npc = 0, capp = 0;
    opiece *pc = NULL;
    size_t *first = NULL; /* first piece of each body, nb + 1 */
    char word[32];
    double t0 = rve_now();
    while (fscanf(fp, " %31s", word) == 1) {
        int np = 1;
        if (strcmp(word, "compound") == 0) {
            if (fscanf(fp, "%d", &np) != 1)
                return 1;
        } else if (strcmp(word, "poly") != 0) {
            fprintf(stderr, "bench_pack: oracle reads poly and compound bodies only (got %s)\n", word);
            return 1;
        }
        if (nb + 2 > capb) {
            capb = capb ? 2 * capb : 1024;
            first = realloc(first, capb * sizeof *first);
        }
        first[nb] = npc;
        for (int k = 0; k < np; k++) {
            if (k > 0 || np > 1 || strcmp(word, "compound") == 0)
                if (fscanf(fp, " %31s", word) != 1 || strcmp(word, "poly") != 0)
                    return 1;
            if (npc == capp) {
                capp = capp ? 2 * capp : 4096;
                pc = realloc(pc, capp * sizeof *pc);
            }
            opiece *p = &pc[npc++];
            memset(p, 0, sizeof *p);
            if (fscanf(fp, "%d", &p->nv) != 1)
                return 1;
            p->v = malloc(sizeof(double) * 3 * (size_t)p->nv);
            for (int i = 0; i < 3 * p->nv; i++)
                if (fscanf(fp, "%lf", &p->v[i]) != 1)
                    return 1;
            if (opiece_hull(p)) {
                fprintf(stderr, "bench_pack: qhull failed on a piece of body %zu\n", nb + 1);
                return 1;
            }
        }
        nb++;
        first[nb] = npc;
    }
    fclose(fp);
    /* body boxes, mean body size */
    double *blo = malloc(sizeof(double) * 3 * nb), *bhi = malloc(sizeof(double) * 3 * nb), msize = 0;
    for (size_t b = 0; b < nb; b++) {
        for (int k = 0; k < 3; k++) {
            blo[3 * b + k] = INFINITY;
            bhi[3 * b + k] = -INFINITY;
        }
        for (size_t q = first[b]; q < first[b + 1]; q++)
            for (int k = 0; k < 3; k++) {
                blo[3 * b + k] = fmin(blo[3 * b + k], pc[q].lo[k]);
                bhi[3 * b + k] = fmax(bhi[3 * b + k], pc[q].hi[k]);
            }
        double dx = bhi[3 * b] - blo[3 * b], dy = bhi[3 * b + 1] - blo[3 * b + 1], dz = bhi[3 * b + 2] - blo[3 * b + 2];
        msize += cbrt(dx * dy * dz) / nb;
    }
    long double worst = -INFINITY, wall = -INFINITY;
    long tested = 0, edge_axes = 0;
    int m = periodic ? 1 : 0;
    for (size_t a = 0; a < nb; a++)
        for (size_t b = a; b < nb; b++)
            for (int s = 0; s < 27; s++) {
                int sh[3] = {s % 3 - 1, (s / 3) % 3 - 1, s / 9 - 1};
                if ((!m && s != 13) || (a == b && s == 13))
                    continue;
                double t[3] = {sh[0] * L[0], sh[1] * L[1], sh[2] * L[2]};
                int apart = 0;
                for (int k = 0; k < 3; k++)
                    apart |= blo[3 * b + k] + t[k] > bhi[3 * a + k] || bhi[3 * b + k] + t[k] < blo[3 * a + k];
                if (apart)
                    continue;
                for (size_t p = first[a]; p < first[a + 1]; p++)
                    for (size_t q = first[b]; q < first[b + 1]; q++) {
                        int ap = 0;
                        for (int k = 0; k < 3; k++)
                            ap |= pc[q].lo[k] + t[k] > pc[p].hi[k] || pc[q].hi[k] + t[k] < pc[p].lo[k];
                        if (ap)
                            continue;
                        tested++;
                        long double o = sat_pieces(&pc[p], &pc[q], t);
                        if (o > worst)
                            worst = o;
                    }
            }
    (void)edge_axes;
    if (!periodic)
        for (size_t q = 0; q < npc; q++)
            for (int k = 0; k < 3; k++) {
                wall = fmaxl(wall, -(long double)pc[q].lo[k]);
                wall = fmaxl(wall, (long double)pc[q].hi[k] - L[k]);
            }
    printf("oracle %s: %zu bodies, %zu pieces, %s box %.6g x %.6g x %.6g, mean size (box volume^1/3) %.6g\n", path,
           nb, npc, periodic ? "periodic" : "walled", L[0], L[1], L[2], msize);
    printf("  %ld piece pairs with overlapping boxes tested by SAT (facet normals, edge cross products)\n", tested);
    printf("  largest overlap %.3Lg = %.3Lg x mean size (<= 0: every pair separated)%s\n", worst,
           worst / (long double)msize, worst <= 1e-9L * msize ? "  OK" : "  OVERLAP");
    if (!periodic)
        printf("  largest wall penetration %.3Lg\n", wall);
    printf("  %.1f s\n", rve_now() - t0);
    int crc = ctpath ? contacts_oracle(pc, first, nb, L, periodic, msize, ctpath) : 0;
    for (size_t q = 0; q < npc; q++) {
        free(pc[q].v);
        free(pc[q].fn);
        free(pc[q].e);
        free(pc[q].tri);
    }
    free(pc);
    free(first);
    free(blo);
    free(bhi);
    return worst <= 1e-9L * msize ? crc : 2;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--oracle") == 0)
        return oracle(argv[2], argc == 4 ? argv[3] : NULL);
    int n = getenv("RVE_BENCH_PACK_N") ? atoi(getenv("RVE_BENCH_PACK_N")) : 1000;
    double tmax = getenv("RVE_BENCH_PACK_TIME") ? atof(getenv("RVE_BENCH_PACK_TIME")) : 280;
    if (n < 2)
        n = 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    rve_err e;
    rve_rng r;
    printf("pack benchmark: %d bodies, budget %.0f s per packing\n\n", n, tmax);

    /* ---- spheres */
    rve_pack_set *s = rve_pack_set_alloc((size_t)n);
    s->periodic = 1;
    rve_distrib law;
    rve_distrib_parse("lognormal(1,0.2)", &law, &e);
    rve_rng_seed(&r, 2024);
    for (int i = 0; i < n; i++) {
        double x;
        rve_distrib_sample(&law, &r, &x);
        rve_pack_body_sphere(&s->b[i], x, &e);
    }
    rve_pack_params p;
    rve_pack_params_init(&p);
    p.max_seconds = tmax;
    rve_pack_result res;
    rve_status st = rve_pack_run(s, &p, &res, &e);
    report("spheres lognormal(1,0.2):", s, &res, st, &e);
    rve_pack_set_free(s);

    /* ---- Voronoi cells */
    double *seeds = malloc(sizeof(double) * 4 * (size_t)n);
    rve_rng_seed(&r, 77);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            seeds[4 * i + k] = rve_rng_uniform(&r);
        seeds[4 * i + 3] = 0;
    }
    double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    int per[3] = {1, 1, 1};
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.topology = 0;
    o.keep_container = 0;
    rve_tess *t;
    if (rve_tess_build(seeds, n, lo, hi, per, &o, &t, &e) != RVE_OK) {
        printf("tessellation failed: %s\n", e.msg);
        free(seeds);
        return 1;
    }
    s = rve_pack_set_alloc((size_t)n);
    s->periodic = 1;
    int k = 0;
    double nvsum = 0;
    for (int i = 0; i < n; i++)
        if (t->cells[i].nv >= 4 && rve_pack_body_poly(&s->b[k], t->cells[i].nv, t->cells[i].v, &e) == RVE_OK) {
            nvsum += s->b[k].nv;
            k++;
        }
    s->n = (size_t)k;
    rve_tess_free(t);
    free(seeds);
    printf("\n(Voronoi cells: %d polyhedra, %.1f vertices on average)\n", k, nvsum / k);
    rve_pack_params_init(&p);
    p.max_seconds = tmax;
    p.target_fraction = 0.58;
    st = rve_pack_run(s, &p, &res, &e);
    report("Voronoi cells, target 0.58:", s, &res, st, &e);
    rve_pack_set_free(s);
    return 0;
}
