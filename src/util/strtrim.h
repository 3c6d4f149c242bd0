/* strtrim.h - trimming white space in place, for the text parsers of util
 * (distributions) and optim (morphology specs): one body, header-only like
 * the other small util helpers. */
#ifndef RVE_UTIL_STRTRIM_H
#define RVE_UTIL_STRTRIM_H

#include <ctype.h>
#include <string.h>

/* s without its leading white space, its trailing white space cut off */
static inline char *str_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

#endif
