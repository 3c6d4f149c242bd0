/* testutil.h - helpers shared by the Check suites. */
#ifndef RVE_TESTUTIL_H
#define RVE_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Folder of the real grain maps (../shared/data), or NULL when absent:
 * tests that need it print why they skip and call test_note_skip. */
static inline const char *test_shared_data(void)
{
    const char *d = getenv("RVE_SHARED_DATA");
    static char buf[4096];
    if (!d || !*d)
        return NULL;
    snprintf(buf, sizeof buf, "%s/in100-a.tif", d);
    FILE *f = fopen(buf, "rb");
    if (!f)
        return NULL;
    fclose(f);
    return d;
}

/* A test that skips must make the program report SKIP (exit 77), not PASS.
 * Check runs each test in a child process (unless CK_FORK=no), so the skip
 * is recorded both in this process and as a marker file named after the
 * runner's pid, which test_run_suite collects. */
static int test_skipped_here;

static inline void test_skip_path(char *buf, size_t n, long runner)
{
    snprintf(buf, n, "/tmp/rve-test-skip.%ld", runner);
}

static inline void test_note_skip(void)
{
    test_skipped_here = 1;
    const char *f = getenv("CK_FORK");
    if (f && strcmp(f, "no") == 0)
        return;
    char path[64];
    test_skip_path(path, sizeof path, (long)getppid());
    FILE *m = fopen(path, "w");
    if (m)
        fclose(m);
}

#define TEST_SKIP_WITHOUT_SHARED(dir)                                                      \
    const char *dir = test_shared_data();                                                 \
    if (!dir) {                                                                           \
        fprintf(stderr, "SKIP %s: ../shared/data is absent (set RVE_SHARED_DATA)\n", __func__); \
        test_note_skip();                                                                 \
        return;                                                                           \
    }

/* A Check fixture: setup() makes a fresh folder /tmp/rve-test-TAG-XXXXXX in
 * tmpdir, teardown() removes it (the file must define _POSIX_C_SOURCE
 * 200809L for mkdtemp). */
#define TEST_TMPDIR_FIXTURE(tag)                                              \
    static char tmpdir[256];                                                  \
    static void setup(void)                                                   \
    {                                                                         \
        snprintf(tmpdir, sizeof tmpdir, "/tmp/rve-test-" tag "-XXXXXX");      \
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));                               \
    }                                                                         \
    static void teardown(void)                                                \
    {                                                                         \
        char cmd_[512];                                                       \
        snprintf(cmd_, sizeof cmd_, "rm -rf '%s'", tmpdir);                   \
        if (system(cmd_) != 0)                                                \
            fprintf(stderr, "cannot remove %s\n", tmpdir);                   \
    }

/* Work scale for long stress loops: 1 normally, smaller under sanitizers
 * (RVE_TEST_SCALE=0.1 in the sanitizer build of .ci/run). */
static inline double test_scale(void)
{
    const char *s = getenv("RVE_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

/* Heavy oracles and stress runs: 1 under `make check-long` (RVE_TEST_LONG=1),
 * where the stress loops run longer; make check runs their fast slice. */
static inline int test_long(void)
{
    const char *s = getenv("RVE_TEST_LONG");
    return s && strcmp(s, "1") == 0;
}

/* Run a suite and return the process exit status. */
static inline int test_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char path[64];
    test_skip_path(path, sizeof path, (long)getpid());
    int skipped = test_skipped_here || access(path, F_OK) == 0;
    unlink(path);
    if (failed)
        return EXIT_FAILURE;
    if (skipped) {
        fprintf(stderr, "some tests skipped (../shared/data absent): reporting SKIP\n");
        return 77; /* automake: skipped */
    }
    return EXIT_SUCCESS;
}

#endif
