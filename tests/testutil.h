/* testutil.h - helpers shared by the Check suites. */
#ifndef RVE_TESTUTIL_H
#define RVE_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Folder of the real grain maps (../shared/data), or NULL when absent:
 * tests that need it print why they skip and pass. */
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

#define TEST_SKIP_WITHOUT_SHARED(dir)                                                      \
    const char *dir = test_shared_data();                                                 \
    if (!dir) {                                                                           \
        fprintf(stderr, "SKIP %s: ../shared/data is absent (set RVE_SHARED_DATA)\n", __func__); \
        return;                                                                           \
    }

/* Work scale for long stress loops: 1 normally, smaller under sanitizers
 * (RVE_TEST_SCALE=0.1 in the sanitizer build of .ci/run). */
static inline double test_scale(void)
{
    const char *s = getenv("RVE_TEST_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

/* Run a suite and return the process exit status. */
static inline int test_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
