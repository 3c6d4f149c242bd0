/* Tests of the fitting module (issue 7). */
#include "config.h"
#include "testutil.h"
#include <rve/optim.h>

START_TEST(test_placeholder) { ck_assert_int_eq(1, 1); }
END_TEST

int main(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_placeholder);
    suite_add_tcase(s, tc);
    return test_run_suite(s);
}
