/* test_hdf5.c - HDF5 grain maps without Python: the real pymicro files of
 * ../shared/data against their grain tables read here with the HDF5 C API,
 * and the DREAM3D writer read back (labels, geometry, phases, orientations). */
#include "testutil.h"

#include <hdf5.h>
#include <math.h>
#include <rve/ori.h>
#include <rve/raster.h>

/* Angle between two rotations given as quaternions (atan2: exact near 0). */
static double qangle(const double a[4], const double b[4])
{
    double d[4];
    rve_ori_misori(a, b, d);
    return rve_ori_qangle(d);
}

typedef struct {
    int id;
    double rod[3];
} row;

/* The table, independently of the reader under test. */
static int read_table(const char *path, row **out)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/GrainData/GrainDataTable", H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    int n = (int)H5Sget_simple_extent_npoints(s);
    hsize_t three = 3;
    hid_t at = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &three);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(row));
    H5Tinsert(mt, "idnumber", offsetof(row, id), H5T_NATIVE_INT);
    H5Tinsert(mt, "orientation", offsetof(row, rod), at);
    *out = malloc((size_t)n * sizeof **out);
    H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out);
    H5Tclose(mt), H5Tclose(at), H5Sclose(s), H5Dclose(d), H5Fclose(f);
    return n;
}

static void check_real(const char *dir, const char *name, int ngrains, int nx, int ny, int nz)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pymicro/%s", dir, name);
    FILE *t = fopen(path, "rb");
    if (!t) {
        fprintf(stderr, "SKIP %s: %s absent\n", __func__, path);
        test_note_skip();
        return;
    }
    fclose(t);
    rve_map *m;
    rve_err e;
    double t0 = rve_now();
    ck_assert_msg(rve_map_read(path, RVE_MAP_AUTO, NULL, &m, &e) == RVE_OK, "%s", e.msg);
    fprintf(stderr, "%s: read in %.3f s\n", name, rve_now() - t0);
    ck_assert_int_eq(m->nx, nx);
    ck_assert_int_eq(m->ny, ny);
    ck_assert_int_eq(m->nz, nz);
    ck_assert_str_eq(m->ori_des, "quaternion");
    ck_assert_int_eq(m->ori_n, 4);
    /* distinct labels present */
    char *seen = calloc((size_t)m->nlabels + 1, 1);
    int count = 0;
    for (size_t v = 0; v < rve_map_nvox(m); v++)
        if (m->lab[v] && !seen[m->lab[v]])
            seen[m->lab[v]] = 1, count++;
    ck_assert_int_eq(count, ngrains);
    row *rows;
    int n = read_table(path, &rows);
    ck_assert_int_eq(n, ngrains);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        ck_assert(rows[i].id >= 1 && (uint32_t)rows[i].id <= m->nlabels && seen[rows[i].id]);
        double r = sqrt(1 + rows[i].rod[0] * rows[i].rod[0] + rows[i].rod[1] * rows[i].rod[1] +
                        rows[i].rod[2] * rows[i].rod[2]);
        double q[4] = {1 / r, rows[i].rod[0] / r, rows[i].rod[1] / r, rows[i].rod[2] / r};
        worst = fmax(worst, qangle(q, m->ori + 4 * (rows[i].id - 1)));
    }
    fprintf(stderr, "%s: %d grains, worst orientation difference to the table %.2g rad\n", name, n, worst);
    ck_assert(worst < 1e-6);
    free(rows), free(seen);
    rve_map_free(m);
}

START_TEST(test_real_pymicro)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    check_real(dir, "n27-id1_data.h5", 27, 64, 64, 64);
    check_real(dir, "t5_dct_slice_data.h5", 21, 654, 654, 1);
}
END_TEST

START_TEST(test_writer_roundtrip)
{
    rve_map *m = rve_map_alloc(5, 4, 3);
    ck_assert_ptr_nonnull(m);
    m->h[0] = 0.5, m->h[1] = 0.25, m->h[2] = 2;
    m->origin[0] = -1, m->origin[1] = 3, m->origin[2] = 0.5;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 5; i++)
                m->lab[rve_map_index(m, i, j, k)] = (uint32_t)((i + 2 * j + k) % 4); /* 0 is void */
    m->nlabels = 3;
    m->ori_n = 4;
    m->ori = malloc(12 * sizeof *m->ori);
    m->ori_des = malloc(16);
    strcpy(m->ori_des, "quaternion");
    m->phase = malloc(3 * sizeof *m->phase);
    rve_rng r;
    rve_rng_seed(&r, 42);
    for (int l = 0; l < 3; l++) {
        rve_ori_random(&r, m->ori + 4 * l);
        m->phase[l] = 1 + l % 2;
    }
    const char *out = "test_hdf5_roundtrip.dream3d"; /* in the build folder */
    rve_err e;
    ck_assert_msg(rve_map_write(m, out, RVE_MAP_AUTO, NULL, &e) == RVE_OK, "%s", e.msg);
    rve_map *b;
    ck_assert_msg(rve_map_read(out, RVE_MAP_AUTO, NULL, &b, &e) == RVE_OK, "%s", e.msg);
    ck_assert(b->nx == 5 && b->ny == 4 && b->nz == 3 && b->nlabels == 3);
    ck_assert(memcmp(b->lab, m->lab, rve_map_nvox(m) * sizeof *m->lab) == 0);
    for (int a = 0; a < 3; a++) {
        ck_assert(fabs(b->h[a] - m->h[a]) < 1e-6 && fabs(b->origin[a] - m->origin[a]) < 1e-6);
    }
    ck_assert_ptr_nonnull(b->phase);
    for (int l = 0; l < 3; l++) {
        ck_assert_int_eq(b->phase[l], m->phase[l]);
        /* float32 Euler angles in the file */
        ck_assert(qangle(b->ori + 4 * l, m->ori + 4 * l) < 1e-6);
    }
    char xdmf[80];
    snprintf(xdmf, sizeof xdmf, "%s.xdmf", out);
    FILE *x = fopen(xdmf, "r");
    ck_assert_ptr_nonnull(x);
    fclose(x);
    /* the same file behind a 512-byte user block (HDF5 addresses are
     * relative to the superblock): read by content, whatever the name */
    char *img;
    size_t n;
    ck_assert_msg(rve_read_file(out, &img, &n, &e) == RVE_OK, "%s", e.msg);
    char *ub = calloc(n + 512, 1);
    ck_assert_ptr_nonnull(ub);
    memcpy(ub + 512, img, n);
    const char *ubp = "test_hdf5_userblock.map";
    x = fopen(ubp, "wb");
    ck_assert(x && fwrite(ub, 1, n + 512, x) == n + 512);
    fclose(x);
    rve_map *u = NULL;
    ck_assert_msg(rve_map_read(ubp, RVE_MAP_AUTO, NULL, &u, &e) == RVE_OK, "%s", e.msg);
    ck_assert(memcmp(u->lab, m->lab, rve_map_nvox(m) * sizeof *m->lab) == 0);
    rve_map_free(u);
    free(ub), free(img);
    remove(ubp);
    remove(out), remove(xdmf);
    /* a file that is not HDF5 is refused by the HDF5 reader */
    rve_map *z = NULL;
    ck_assert_int_eq(rve_map_read_hdf5("/dev/null", NULL, &z, &e), RVE_EDATA);
    ck_assert_ptr_null(z);
    rve_map_free(b);
    rve_map_free(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hdf5");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_real_pymicro);
    tcase_add_test(tc, test_writer_roundtrip);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
