/* Shared plumbing of the subcommands. */
#include "config.h"
#include "cli/cli.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cli_common_init(cli_common *c)
{
    c->verbosity = RVE_NORMAL;
    c->json = 0;
    c->threads = 0;
}

int cli_common_option(cli_common *c, const cli_command *cmd, int opt, const char *arg)
{
    long v;
    switch (opt) {
    case 'q': c->verbosity = RVE_QUIET; return 1;
    case 'v': c->verbosity = RVE_VERBOSE; return 1;
    case CLI_OPT_JSON: c->json = 1; return 1;
    case 'j':
        if (rve_parse_int_range(arg, 1, 4096, &v) != RVE_OK) {
            cli_usage_error(cmd, "-j: expected a thread count from 1 to 4096, got '%s'", arg);
            return -1;
        }
        c->threads = (int)v;
        return 1;
    case 'h':
        fputs(cmd->usage, stdout);
        return 2;
    default: return 0;
    }
}

void cli_common_apply(const cli_common *c)
{
    rve_threads_setup(c->threads);
}

void cli_getopt_reset(void)
{
    optind = 0; /* glibc: 0 also resets its internal state */
    opterr = 0;
}

int cli_bad_option(const cli_command *cmd, int argc, char **argv)
{
    const char *bad = (optind > 0 && optind <= argc) ? argv[optind - 1] : "?";
    if (optopt && strchr(":", optopt) == NULL && bad[0] == '-' && bad[1] != '-')
        return cli_usage_error(cmd, "option -%c: unknown or missing its value", optopt);
    return cli_usage_error(cmd, "option '%s': unknown or missing its value", bad);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "rve %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'rve help %s'.\n", cmd->name);
    return 2;
}

int cli_fail(const cli_command *cmd, const rve_err *err)
{
    rve_err_print(err, cmd->name, stderr);
    return rve_status_exit_code(err->code == RVE_OK ? RVE_EINTERNAL : err->code);
}

int cli_not_implemented(const cli_command *cmd, int issue)
{
    fprintf(stderr, "rve %s: not implemented yet (issue #%d)\n", cmd->name, issue);
    return 2;
}

static void cli_vprint(const char *fmt, va_list ap)
{
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_info(const cli_common *c, const char *fmt, ...)
{
    if (c->verbosity < RVE_NORMAL)
        return;
    va_list ap;
    va_start(ap, fmt);
    cli_vprint(fmt, ap);
    va_end(ap);
}

void cli_debug(const cli_common *c, const char *fmt, ...)
{
    if (c->verbosity < RVE_VERBOSE)
        return;
    va_list ap;
    va_start(ap, fmt);
    cli_vprint(fmt, ap);
    va_end(ap);
}

int cli_check_paths(const cli_command *cmd, const char *const *in, int nin,
                    const char *const *out, int nout)
{
    for (int i = 0; i < nout; i++) {
        if (!out[i])
            continue;
        for (int k = 0; k < nin; k++)
            if (in[k] && rve_path_same_file(out[i], in[k]))
                return cli_usage_error(cmd, "output '%s' is the input '%s': it would be overwritten",
                                       out[i], in[k]);
        for (int k = 0; k < i; k++)
            if (out[k] && rve_path_same_file(out[i], out[k]))
                return cli_usage_error(cmd, "outputs '%s' and '%s' are the same file", out[k], out[i]);
    }
    return 0;
}
