/* cli.h - shared plumbing of the `rve` program's subcommands (not installed). */
#ifndef RVE_CLI_H
#define RVE_CLI_H

#include <getopt.h>
#include <rve/util.h>
#include "cli/progress.h"
#include <rve/optim.h>
#include <rve/raster.h>

typedef struct {
    const char *name;    /* subcommand, e.g. "fit" */
    const char *summary; /* one line for `rve --help` */
    const char *usage;   /* full help text for `rve help NAME` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} cli_command;

/* Every subcommand; each lives in its own file src/cli/cmd_NAME.c. */
extern const cli_command cli_cmd_fit, cli_cmd_gen, cli_cmd_reg, cli_cmd_mesh, cli_cmd_run,
    cli_cmd_tess, cli_cmd_raster, cli_cmd_stat, cli_cmd_compare, cli_cmd_convert, cli_cmd_dist,
    cli_cmd_contact, cli_cmd_pack;

/* rve fit as rve run calls it: argv[0] "fit", then only fit options (those
 * that set outputs are refused, messages name rve run); the fit writes
 * tess, history and the report folder, and its JSON summary into json. */
typedef struct {
    rve_fit_opts fo;
    rve_map_load_opts lo; /* --dims, --in-bytes, --voxel-size, ... (cli_map.h) */
} cli_fit_parsed;
typedef struct {
    const char *tess, *history, *report;
    FILE *json;
    cli_fit_parsed *parsed; /* not NULL: only parse the options into it */
    int tess_written;       /* cli_fit_write: the tessellation is written already */
} cli_fit_outputs;
int cli_fit_main(int argc, char **argv, const cli_fit_outputs *to);
typedef struct cli_common cli_common;
/* The outputs of a finished fit of map m (file mapf) with options fo: the
 * tessellation (unless to->tess_written), to->history, to->report, the
 * summary line and the JSON summary on to->json.  0, or -1 with err set. */
int cli_fit_write(const cli_common *cc, const char *mapf, const rve_map *m, const rve_fit_opts *fo,
                  const rve_fit_result *r, const cli_fit_outputs *to, rve_err *err);

/* Options every subcommand accepts. */
struct cli_common {
    rve_verbosity verbosity;
    int json;
    int threads;
};

/* Short options of cli_common, to append to a subcommand's optstring. */
#define CLI_COMMON_SHORT "qvj:h"
/* Long options of cli_common, to put first in a subcommand's option table. */
#define CLI_COMMON_LONG                              \
    {"quiet", no_argument, NULL, 'q'},               \
    {"verbose", no_argument, NULL, 'v'},             \
    {"json", no_argument, NULL, CLI_OPT_JSON},       \
    {"threads", required_argument, NULL, 'j'},       \
    {"help", no_argument, NULL, 'h'}
#define CLI_OPT_JSON 0x1000
/* Subcommands number their own long-only options from here on. */
#define CLI_OPT_FIRST 0x1100

void cli_common_init(cli_common *c);
/* Handle one getopt result. Returns 1 if it was a common option (handled),
 * 0 if not, -1 on a bad value (message printed; exit with 2).
 * For 'h' it prints the usage of cmd and returns 2 (caller exits 0). */
int cli_common_option(cli_common *c, const cli_command *cmd, int opt, const char *arg);
/* Call after option parsing: applies the thread count. */
void cli_common_apply(const cli_common *c);

/* getopt_long with project defaults (no error message from getopt itself;
 * unknown options are reported by cli_bad_option). Resets getopt state. */
void cli_getopt_reset(void);
int cli_bad_option(const cli_command *cmd, int argc, char **argv);

/* Print "rve SUB: MSG" (+ a hint to `rve help SUB`) and return 2. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Print an rve_err as "rve SUB: FILE: MSG" and return its exit code (1 or 2). */
int cli_fail(const cli_command *cmd, const rve_err *err);
/* Refuse (usage error, returns 2) an output that is the same file as an
 * input or as another output (rve_path_same_file); 0 when all are distinct.
 * NULL entries are skipped.  Call before any work. */
int cli_check_paths(const cli_command *cmd, const char *const *in, int nin,
                    const char *const *out, int nout);
/* "rve SUB: not implemented yet (issue #N)"; returns 2. */
int cli_not_implemented(const cli_command *cmd, int issue);

/* Printing helpers honouring verbosity. */
void cli_info(const cli_common *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void cli_debug(const cli_common *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
