/* Reading grain maps by layers (rve_map_part, rve/raster.h; the
 * distributed fit's partial reads, docs/mpi.md).  A serial test: it runs
 * in every build.  Oracle: the whole-map reader rve_map_load.  Every range
 * of layers read in part must equal those layers of the loaded map, label
 * for label, and the voxel-free header must carry the loaded map's
 * geometry, ids, orientations (bit for bit), phases and crystal symmetry.
 * Maps: a seeded random map with orientations and two phases written here
 * as TIFF and as DREAM3D (feature tables), data/dct/dct.dream3d and the
 * pymicro file of ../shared/data when present; a .tesr is refused. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "test_rng.h"
#include <math.h>
#include <rve/raster.h>
#include <stdint.h>

TEST_TMPDIR_FIXTURE("mappart")

/* Every range [k0, k1) with k1 - k0 in steps (all when nz is small) read in
 * part equals the loaded map's layers; the header equals the loaded map's
 * per-grain data. */
static void check_parts(const char *path, int stride)
{
    rve_err err;
    rve_map *m = NULL;
    ck_assert_msg(rve_map_load(path, NULL, &m, &err) == RVE_OK, "%s: %s", path, err.msg);
    rve_map_part *p = NULL;
    char why[200];
    ck_assert_msg(rve_map_part_open(path, NULL, 0, &p, why, sizeof why, &err) == RVE_OK, "%s: %s", path, err.msg);
    ck_assert_msg(p != NULL, "%s not read by layers: %s", path, why);
    const rve_map *g = rve_map_part_geometry(p);
    ck_assert_int_eq(g->nx, m->nx);
    ck_assert_int_eq(g->ny, m->ny);
    ck_assert_int_eq(g->nz, m->nz);
    ck_assert(!memcmp(g->h, m->h, sizeof m->h) && !memcmp(g->origin, m->origin, sizeof m->origin));
    ck_assert_int_eq(g->has_res, m->has_res);
    size_t layer = (size_t)m->nx * m->ny;
    uint64_t want = 0;
    for (int k0 = 0; k0 < m->nz; k0 += stride)
        for (int k1 = k0 + 1; k1 <= m->nz; k1 += stride) {
            rve_map *s = NULL;
            ck_assert_msg(rve_map_part_read(p, k0, k1, &s, &err) == RVE_OK, "%s %d..%d: %s", path, k0, k1, err.msg);
            ck_assert_int_eq(s->nz, k1 - k0);
            ck_assert_msg(!memcmp(s->lab, m->lab + layer * k0, layer * (k1 - k0) * sizeof *s->lab),
                          "%s: layers %d..%d differ from the whole map's", path, k0, k1);
            uint32_t mx = 0;
            for (size_t v = 0; v < layer * (k1 - k0); v++)
                mx = m->lab[layer * k0 + v] > mx ? m->lab[layer * k0 + v] : mx;
            ck_assert_uint_eq(s->nlabels, mx);
            ck_assert(s->origin[2] == m->origin[2] + k0 * m->h[2]);
            want += layer * (k1 - k0);
            rve_map_free(s);
        }
    ck_assert_uint_eq(rve_map_part_voxels_read(p), want);
    /* the header, from the labels present */
    char *seen = calloc((size_t)m->nlabels + 1, 1);
    uint32_t *lab = malloc(((size_t)m->nlabels + 1) * sizeof *lab);
    size_t n = 0;
    for (size_t v = 0; v < layer * m->nz; v++)
        seen[m->lab[v]] = 1;
    for (uint32_t l = m->nlabels; l >= 1; l--) /* any order */
        if (seen[l])
            lab[n++] = l;
    rve_map *h = NULL;
    ck_assert_msg(rve_map_part_header(p, lab, n, &h, &err) == RVE_OK, "%s header: %s", path, err.msg);
    ck_assert_ptr_null(h->lab);
    ck_assert_int_eq(h->nz, m->nz);
    ck_assert_uint_eq(h->nlabels, m->nlabels);
    ck_assert(!memcmp(h->h, m->h, sizeof m->h) && !memcmp(h->origin, m->origin, sizeof m->origin));
    ck_assert((h->ids == NULL) == (m->ids == NULL));
    if (m->ids)
        ck_assert(!memcmp(h->ids, m->ids, ((size_t)m->nlabels + 1) * sizeof *m->ids));
    ck_assert_int_eq(h->ori_n, m->ori_n);
    ck_assert((h->ori == NULL) == (m->ori == NULL));
    if (m->ori)
        ck_assert_msg(!memcmp(h->ori, m->ori, (size_t)m->nlabels * m->ori_n * sizeof *m->ori), "%s: orientations differ",
                      path);
    ck_assert((h->phase == NULL) == (m->phase == NULL));
    if (m->phase)
        ck_assert(!memcmp(h->phase, m->phase, (size_t)m->nlabels * sizeof *m->phase));
    ck_assert((h->crysym == NULL) == (m->crysym == NULL));
    if (m->crysym)
        ck_assert_str_eq(h->crysym, m->crysym);
    free(seen), free(lab);
    rve_map_free(h);
    rve_map_part_close(p);
    rve_map_free(m);
}

/* A map of random blocks of labels (some absent), two phases, random
 * orientations, a voxel size and origin of its own. */
static rve_map *random_map(void)
{
    rve_map *m = rve_map_alloc(7, 5, 11);
    for (size_t v = 0; v < rve_map_nvox(m); v++)
        m->lab[v] = 1 + (uint32_t)(rnd() % 40) / 2 * 2; /* even labels absent */
    m->nlabels = 0;
    for (size_t v = 0; v < rve_map_nvox(m); v++)
        m->nlabels = m->lab[v] > m->nlabels ? m->lab[v] : m->nlabels;
    m->h[0] = 0.5, m->h[1] = 0.25, m->h[2] = 2;
    m->origin[0] = -1, m->origin[1] = 3, m->origin[2] = 0.75;
    m->has_res = 1;
    m->ori_n = 4;
    m->ori_des = strdup("quaternion");
    m->ori = malloc((size_t)m->nlabels * 4 * sizeof *m->ori);
    m->phase = malloc((size_t)m->nlabels * sizeof *m->phase);
    for (uint32_t l = 0; l < m->nlabels; l++) {
        double q[4], s = 0;
        for (int a = 0; a < 4; a++)
            q[a] = (double)(rnd() % 2001) / 1000 - 1, s += q[a] * q[a];
        for (int a = 0; a < 4; a++)
            m->ori[4 * l + a] = q[a] / sqrt(s);
        m->phase[l] = 1 + (int)(l % 2);
    }
    return m;
}

START_TEST(test_tiff_hdf5_synthetic)
{
    rve_map *m = random_map();
    rve_err err;
    char tif[300], h5[300], tesr[300];
    snprintf(tif, sizeof tif, "%s/m.tif", tmpdir);
    snprintf(h5, sizeof h5, "%s/m.dream3d", tmpdir);
    snprintf(tesr, sizeof tesr, "%s/m.tesr", tmpdir);
    ck_assert(rve_map_write(m, tif, RVE_MAP_AUTO, NULL, &err) == RVE_OK);
    ck_assert_msg(rve_map_write_hdf5(m, h5, &err) == RVE_OK, "%s", err.msg);
    ck_assert(rve_map_write(m, tesr, RVE_MAP_AUTO, NULL, &err) == RVE_OK);
    check_parts(tif, 1);
    check_parts(h5, 1);
    /* a .tesr cannot be read by layers: no part, and a reason */
    rve_map_part *p = (rve_map_part *)1;
    char why[200];
    ck_assert(rve_map_part_open(tesr, NULL, 0, &p, why, sizeof why, &err) == RVE_OK);
    ck_assert_ptr_null(p);
    ck_assert(strstr(why, "TIFF and HDF5") != NULL);
    /* a missing file: an error naming it */
    ck_assert(rve_map_part_open("/nonexistent/m.tif", NULL, 0, &p, why, sizeof why, &err) != RVE_OK);
    ck_assert(strstr(err.file, "/nonexistent/m.tif") != NULL);
    rve_map_free(m);
}
END_TEST

START_TEST(test_real_maps)
{
    char path[4096];
    const char *src = getenv("RVE_SRCDIR") ? getenv("RVE_SRCDIR") : "..";
    snprintf(path, sizeof path, "%s/data/dct/dct.dream3d", src);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("no %s: skipped\n", path);
        test_note_skip();
        return;
    }
    fclose(f);
    check_parts(path, 23);
    snprintf(path, sizeof path, "%s/data/dct/dct.tif", src);
    check_parts(path, 23);
    const char *sh = test_shared_data();
    if (sh) {
        snprintf(path, sizeof path, "%s/pymicro/n27-id1_data.h5", sh);
        check_parts(path, 13);
    }
}
END_TEST

static Suite *mappart_suite(void)
{
    Suite *s = suite_create("mappart");
    TCase *tc = tcase_create("part");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tiff_hdf5_synthetic);
    tcase_add_test(tc, test_real_maps);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run_suite(mappart_suite());
}
