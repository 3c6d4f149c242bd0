/* mathconst.h - the mathematical constants C11 does not define (M_PI is
 * POSIX/XSI, absent under -std=c11 without feature macros): the one place
 * every module takes them from (internal, not installed). */
#ifndef RVE_UTIL_MATHCONST_H
#define RVE_UTIL_MATHCONST_H
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#endif
