/* query_read.h - the query files of `rve dist` and `rve contact`: pairs of
 * shapes in the text format of rve_shape_parse_pair. */
#ifndef RVE_CLI_QUERY_READ_H
#define RVE_CLI_QUERY_READ_H

#include <rve/dist.h>
#include <stddef.h>

/* A body is a shape or a compound: `compound k SHAPE ... SHAPE` (k convex
 * pieces in the world frame, 1 <= k <= 100000); ca / cb are NULL for
 * shapes (a and b then hold them), else the compound (a, b unused). */
typedef struct {
    rve_shape a, b;
    rve_compound *ca, *cb;
} cli_shape_pair;

/* Reads every query of path ("-": standard input) before anything runs, so a
 * malformed query prints nothing.  On failure err names the file (or
 * <stdin>) and the query index with the offending token; *out is untouched.
 * *name gets the name used in messages (path or "<stdin>"). */
rve_status cli_read_pairs(const char *path, cli_shape_pair **out, size_t *n, const char **name, rve_err *err);
/* frees the shapes and the array (NULL accepted) */
void cli_free_pairs(cli_shape_pair *q, size_t n);

#endif
