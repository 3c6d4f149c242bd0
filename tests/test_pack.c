/* Tests of the pack module. */
#include "config.h"
#include "testutil.h"
#include <rve/pack.h>
#include <math.h>

START_TEST(test_placeholder) { ck_assert_int_eq(1, 1); }
END_TEST

int main(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_placeholder);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
