/* test_tess_neper.c - Neper interoperability of .tess / .tesr (issue 23).
 *
 * Oracles: the files Neper 4.10 wrote (../shared/data/neper, skipped when
 * absent) read with a plain token scan written here (not our reader), and
 * closed forms (a lattice of cubes).  Every file is read, written back,
 * read again; the second reading must equal the first.  The strict layout
 * check of what we write is tests/neper_tess_check.py (run by
 * test_tess_neper.sh). */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <math.h>
#include <rve/rve.h>
#include <unistd.h>

/* ------------------------------------------------- independent token scan */

typedef struct {
    char **tok;
    int n;
    char *buf;
} toks;

static int toks_load(const char *path, toks *T)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    T->buf = malloc((size_t)n + 1);
    size_t got = fread(T->buf, 1, (size_t)n, f);
    fclose(f);
    T->buf[got] = 0;
    T->tok = malloc(sizeof(char *) * ((size_t)n / 2 + 2));
    T->n = 0;
    for (char *p = strtok(T->buf, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) T->tok[T->n++] = p;
    return 1;
}

static void toks_free(toks *T)
{
    free(T->tok);
    free(T->buf);
}

/* Index of the token after marker (first occurrence at or after from), -1 if absent. */
static int toks_after(const toks *T, const char *marker, int from)
{
    for (int i = from; i < T->n; i++)
        if (strcmp(T->tok[i], marker) == 0) return i + 1;
    return -1;
}

static char *neper_path(const char *dir, const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/neper/%s", dir, name);
    return buf;
}

static char *tmp_path(const char *suffix)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "/tmp/rve_test_neper_%ld%s", (long)getpid(), suffix);
    return buf;
}

/* ---------------------------------------------------- equality of readings */

static void assert_same_tess(const rve_tess *a, const int *ida, const rve_tess *b, const int *idb)
{
    ck_assert_int_eq(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        ck_assert_int_eq(ida ? ida[i] : i + 1, idb ? idb[i] : i + 1);
        for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(a->seeds[4 * i + k], b->seeds[4 * i + k], 1e-12);
    }
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(a->lo[k], b->lo[k], 1e-12);
        ck_assert_double_eq_tol(a->hi[k], b->hi[k], 1e-12);
        ck_assert_int_eq(a->periodic[k], b->periodic[k]);
    }
    ck_assert_int_eq(a->nver, b->nver);
    ck_assert_int_eq(a->nedge, b->nedge);
    ck_assert_int_eq(a->nface, b->nface);
    for (int v = 0; v < 3 * a->nver; v++) ck_assert_double_eq_tol(a->ver[v], b->ver[v], 1e-12);
    for (int v = 0; v < a->nver; v++) ck_assert_int_eq(a->ver_state[v], b->ver_state[v]);
    for (int k = 0; k < 2 * a->nedge; k++) ck_assert_int_eq(a->edge_ver[k], b->edge_ver[k]);
    for (int g = 0; g <= a->nface; g++) ck_assert_int_eq(a->face_voff[g], b->face_voff[g]);
    for (int k = 0; k < a->face_voff[a->nface]; k++) {
        ck_assert_int_eq(a->face_ver[k], b->face_ver[k]);
        ck_assert_int_eq(a->face_edge[k], b->face_edge[k]);
        ck_assert_int_eq(a->face_esign[k], b->face_esign[k]);
    }
    for (int g = 0; g < a->nface; g++) {
        double pa[4], pb[4], xa[3], xb[3];
        rve_tess_face_plane(a, g, pa);
        rve_tess_face_plane(b, g, pb);
        for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(pa[k], pb[k], 1e-12);
        rve_tess_face_point(a, g, xa);
        rve_tess_face_point(b, g, xb);
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(xa[k], xb[k], 1e-12);
        ck_assert_int_eq(a->face_state[g], b->face_state[g]);
        ck_assert_int_eq(a->face_pt[g], b->face_pt[g]);
    }
    for (int c = 0; c < a->n; c++) ck_assert_double_eq_tol(a->cells[c].vol, b->cells[c].vol, 1e-12);
    ck_assert_int_eq(a->ori_n, b->ori_n);
    for (int k = 0; k < a->ori_n * a->n; k++) ck_assert(a->ori[k] == b->ori[k]);
    ck_assert((a->ori_des == NULL) == (b->ori_des == NULL));
    if (a->ori_des) ck_assert_str_eq(a->ori_des, b->ori_des);
    ck_assert((a->crysym == NULL) == (b->crysym == NULL));
    if (a->crysym) ck_assert_str_eq(a->crysym, b->crysym);
}

/* The strict independent checker on a file we wrote (skipped without
 * python3 or the source folder). */
static void strict_check(const char *path)
{
    const char *src = getenv("RVE_SRCDIR");
    if (!src || system("python3 -c '' >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP strict check of %s: no python3 or RVE_SRCDIR\n", path);
        test_note_skip();
        return;
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/neper_tess_check.py' --ours '%s'", src, path);
    ck_assert_msg(system(cmd) == 0, "%s fails tests/neper_tess_check.py", path);
}

/* Read path; write it back; read again: the same tessellation. */
static rve_tess *roundtrip(const char *path, int **ids)
{
    rve_tess *a = NULL, *b = NULL;
    int *idb = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_tess_read_tess(path, &a, ids, &e) == RVE_OK, "%s: %s", path, e.msg);
    ck_assert_msg(rve_tess_check(a, &e) == RVE_OK, "%s", e.msg);
    const char *out = tmp_path(".tess");
    ck_assert_msg(rve_tess_write_tess(a, out, *ids, &e) == RVE_OK, "%s", e.msg);
    ck_assert_msg(rve_tess_read_tess(out, &b, &idb, &e) == RVE_OK, "%s: %s", out, e.msg);
    assert_same_tess(a, *ids, b, idb);
    ck_assert_str_eq(b->format, "3.5");
    strict_check(out);
    remove(out);
    free(idb);
    rve_tess_free(b);
    return a;
}

/* The file's counts, seeds and orientations, by the plain scan. */
static void assert_matches_file(const rve_tess *t, const char *path, int periodic)
{
    toks T;
    ck_assert(toks_load(path, &T));
    int i = toks_after(&T, "**cell", 0);
    ck_assert_int_eq(atoi(T.tok[i]), t->n);
    i = toks_after(&T, "*seed", 0);
    for (int c = 0; c < t->n; c++)
        for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(atof(T.tok[i + 5 * c + 1 + k]), t->seeds[4 * c + k], 1e-12);
    i = toks_after(&T, "*ori", 0);
    if (i >= 0) {
        ck_assert_str_eq(T.tok[i], t->ori_des);
        ck_assert_int_eq(t->ori_n, 3);
        for (int k = 0; k < 3 * t->n; k++) ck_assert_double_eq_tol(atof(T.tok[i + 1 + k]), t->ori[k], 1e-12);
    }
    i = toks_after(&T, "*crysym", 0);
    if (i >= 0) ck_assert_str_eq(T.tok[i], t->crysym);
    int nv = atoi(T.tok[toks_after(&T, "**vertex", 0)]);
    int ne = atoi(T.tok[toks_after(&T, "**edge", 0)]);
    int nf = atoi(T.tok[toks_after(&T, "**face", 0)]);
    if (!periodic) {
        ck_assert_int_eq(t->nver, nv);
        ck_assert_int_eq(t->nedge, ne);
        ck_assert_int_eq(t->nface, nf);
        /* vertex coordinates as the file has them */
        i = toks_after(&T, "**vertex", 0) + 1;
        for (int v = 0; v < nv; v++)
            for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(atof(T.tok[i + 5 * v + 1 + k]), t->ver[3 * v + k], 1e-12);
    } else { /* primaries only: the secondaries are periodic copies */
        int p = toks_after(&T, "**periodicity", 0);
        ck_assert_int_eq(t->nver, nv - atoi(T.tok[toks_after(&T, "*vertex", p)]));
        ck_assert_int_eq(t->nedge, ne - atoi(T.tok[toks_after(&T, "*edge", p)]));
        ck_assert_int_eq(t->nface, nf - atoi(T.tok[toks_after(&T, "*face", p)]));
    }
    toks_free(&T);
}

static void golden(const char *name, int periodic)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    const char *path = neper_path(dir, name);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "SKIP %s: %s is absent\n", name, path);
        test_note_skip();
        return;
    }
    int *ids = NULL;
    rve_tess *t = roundtrip(path, &ids);
    assert_matches_file(t, path, periodic);
    ck_assert_str_eq(t->format, "3.5");
    for (int a = 0; a < 3; a++) ck_assert_int_eq(t->periodic[a], periodic);
    double vol = 0;
    for (int c = 0; c < t->n; c++) vol += t->cells[c].vol;
    /* Neper's unit cube; regularised faces are not planar and each cell
     * fans its own copy of a face, so the volumes of n40-reg only add up
     * to 1 within 2e-3 (0.9987) */
    ck_assert_double_eq_tol(vol, 1.0, strstr(name, "reg") ? 2e-3 : 1e-9);
    free(ids);
    rve_tess_free(t);
}

START_TEST(test_golden_n40_reg) { golden("n40-reg.tess", 0); }
END_TEST
START_TEST(test_golden_n30_gg) { golden("n30-gg.tess", 0); }
END_TEST
START_TEST(test_golden_n30_periodic) { golden("n30-periodic.tess", 1); }
END_TEST

/* ----------------------------------------------------------- constructed */

/* 2 x 2 x 2 unit cubes; 3 orientation values per cell, cubic symmetry. */
static rve_tess *lattice(int periodic)
{
    double s[32], lo[3] = {0, 0, 0}, hi[3] = {2, 2, 2};
    for (int i = 0; i < 8; i++) {
        s[4 * i] = 0.5 + (i & 1);
        s[4 * i + 1] = 0.5 + ((i >> 1) & 1);
        s[4 * i + 2] = 0.5 + ((i >> 2) & 1);
        s[4 * i + 3] = 0;
    }
    int per[3] = {periodic, periodic, periodic};
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_tess_build(s, 8, lo, hi, per, NULL, &t, &e) == RVE_OK, "%s", e.msg);
    t->ori_des = strdup("rodrigues:active");
    t->crysym = strdup("cubic");
    t->ori_n = 3;
    t->ori = malloc(sizeof(double) * 24);
    for (int k = 0; k < 24; k++) t->ori[k] = 0.1 * k - 1.0 / 3;
    return t;
}

START_TEST(test_lattice_roundtrip)
{
    for (int per = 0; per < 2; per++) {
        rve_tess *t = lattice(per), *u = NULL;
        int ids[8] = {5, 6, 7, 8, 10, 20, 30, 40}, *rids = NULL;
        rve_err e;
        rve_err_clear(&e);
        const char *out = tmp_path(".tess");
        ck_assert_msg(rve_tess_write_tess(t, out, ids, &e) == RVE_OK, "%s", e.msg);
        ck_assert_msg(rve_tess_read_tess(out, &u, &rids, &e) == RVE_OK, "%s", e.msg);
        for (int i = 0; i < 8; i++) ck_assert_int_eq(rids[i], ids[i]);
        ck_assert_int_eq(u->ori_n, 3);
        for (int k = 0; k < 24; k++) ck_assert(u->ori[k] == t->ori[k]);
        ck_assert_str_eq(u->crysym, "cubic");
        ck_assert_str_eq(u->ori_des, "rodrigues:active");
        for (int c = 0; c < 8; c++) ck_assert_double_eq_tol(u->cells[c].vol, 1.0, 1e-12);
        /* closed form: non-periodic 27 vertices, 54 edges, 36 faces; periodic
         * (a 3-torus of 8 cubes): 8 vertices, 24 edges, 24 faces */
        ck_assert_int_eq(u->nver, per ? 8 : 27);
        ck_assert_int_eq(u->nedge, per ? 24 : 54);
        ck_assert_int_eq(u->nface, per ? 24 : 36);
        /* the file: periodic, each cube written whole: 8 x 8 corners, of
         * which 27 distinct points (cells of a 2-lattice share them) */
        toks T;
        ck_assert(toks_load(out, &T));
        ck_assert_str_eq(T.tok[toks_after(&T, "**general", 0) + 1], per ? "periodic" : "standard");
        ck_assert_int_eq(atoi(T.tok[toks_after(&T, "**vertex", 0)]), 27);
        if (per) ck_assert_int_eq(atoi(T.tok[toks_after(&T, "*seed", toks_after(&T, "**periodicity", 0))]), 26 * 8);
        toks_free(&T);
        strict_check(out);
        remove(out);
        free(rids);
        rve_tess_free(u);
        rve_tess_free(t);
    }
}
END_TEST

/* A 3.4 file (domain edges without their type lines) and a face whose edge
 * list is rotated against its vertex list are read, as Neper reads them. */
START_TEST(test_variants)
{
    rve_tess *t = lattice(0), *u = NULL;
    rve_err e;
    rve_err_clear(&e);
    const char *out = tmp_path(".tess");
    ck_assert(rve_tess_write_tess(t, out, NULL, &e) == RVE_OK);
    toks T;
    ck_assert(toks_load(out, &T));
    FILE *f = fopen(out, "w");
    int dom = toks_after(&T, "**domain", 0), fe = toks_after(&T, "**face", 0) + 1;
    int m = atoi(T.tok[fe + 1]); /* face 1: id m v1..vm m e1..em */
    for (int i = 0; i < T.n; i++) {
        if (i > dom && (strcmp(T.tok[i], "line") == 0 || (strcmp(T.tok[i - 1], "line") == 0))) continue;
        if (strcmp(T.tok[i], "3.5") == 0 && i < 5) {
            fprintf(f, "3.4\n");
            continue;
        }
        if (i >= fe + 3 + m && i < fe + 3 + 2 * m) { /* rotate face 1's edges by one */
            int k = i - (fe + 3 + m);
            fprintf(f, "%s\n", T.tok[fe + 3 + m + (k + m - 1) % m]);
            continue;
        }
        fprintf(f, "%s\n", T.tok[i]);
    }
    fclose(f);
    toks_free(&T);
    ck_assert_msg(rve_tess_read_tess(out, &u, NULL, &e) == RVE_OK, "%s", e.msg);
    ck_assert_str_eq(u->format, "3.4");
    ck_assert_int_eq(u->nver, 27);
    for (int k = 0; k < u->face_voff[u->nface]; k++) ck_assert_int_eq(u->face_edge[k], t->face_edge[k]);
    rve_tess_free(u);
    remove(out);
    rve_tess_free(t);
}
END_TEST

/* ------------------------------------------------------------------ .tesr */

START_TEST(test_tesr_22)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    const char *path = neper_path(dir, "n40-reg.tesr");
    if (access(path, R_OK) != 0) return;
    rve_map *m = NULL, *b = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_msg(rve_map_read_tesr(path, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(m->nx, 30);
    ck_assert_int_eq(m->nz, 30);
    ck_assert_int_eq((int)m->nlabels, 40);
    ck_assert_str_eq(m->ori_des, "rodrigues:passive");
    ck_assert_double_eq_tol(m->ori[0], -1.982282733258, 1e-12);
    const char *out = tmp_path(".tesr");
    ck_assert_msg(rve_map_write_tesr(m, out, NULL, &e) == RVE_OK, "%s", e.msg);
    toks T;
    ck_assert(toks_load(out, &T));
    ck_assert_str_eq(T.tok[2], "2.2");
    toks_free(&T);
    ck_assert_msg(rve_map_read_tesr(out, &b, &e) == RVE_OK, "%s", e.msg);
    for (size_t v = 0; v < rve_map_nvox(m); v++) ck_assert_uint_eq(m->lab[v], b->lab[v]);
    ck_assert_int_eq(b->ori_n, 3);
    for (int k = 0; k < 3 * 40; k++) ck_assert(m->ori[k] == b->ori[k]);
    remove(out);
    rve_map_free(m);
    rve_map_free(b);
}
END_TEST

/* Rasterising n40-reg.tess on Neper's grid against Neper's n40-reg.tesr:
 * the count of differing voxels is printed (the regularised faces are not
 * the power bisectors of the seeds near the deleted edges: a few voxels
 * differ) and bounded. */
START_TEST(test_raster_vs_neper)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    char tp[4096];
    snprintf(tp, sizeof tp, "%s", neper_path(dir, "n40-reg.tess"));
    const char *mp = neper_path(dir, "n40-reg.tesr");
    if (access(tp, R_OK) != 0 || access(mp, R_OK) != 0) return;
    rve_map *m = NULL;
    rve_tess *t = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert(rve_map_read_tesr(mp, &m, &e) == RVE_OK);
    ck_assert(rve_tess_read_tess(tp, &t, NULL, &e) == RVE_OK);
    rve_map *r = rve_map_copy(m);
    ck_assert_msg(rve_tess_rasterize(t, NULL, r, &e) == RVE_OK, "%s", e.msg);
    size_t n = rve_map_nvox(m), diff = 0;
    for (size_t v = 0; v < n; v++) diff += r->lab[v] != m->lab[v];
    fprintf(stderr, "n40-reg: rve raster (seeds) vs Neper's .tesr: %zu of %zu voxels differ\n", diff, n);
    ck_assert(diff < n / 50);
    rve_map_free(r);
    rve_map_free(m);
    rve_tess_free(t);
}
END_TEST

static Suite *neper_suite(void)
{
    Suite *s = suite_create("tess_neper");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_golden_n40_reg);
    tcase_add_test(tc, test_golden_n30_gg);
    tcase_add_test(tc, test_golden_n30_periodic);
    tcase_add_test(tc, test_lattice_roundtrip);
    tcase_add_test(tc, test_variants);
    tcase_add_test(tc, test_tesr_22);
    tcase_add_test(tc, test_raster_vs_neper);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(neper_suite());
}
