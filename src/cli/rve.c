/* rve - command-line front end: subcommand dispatch and global help. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/cli_mpi.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_command *const commands[] = {
    &cli_cmd_run,  &cli_cmd_fit,     &cli_cmd_reg,     &cli_cmd_mesh,
    &cli_cmd_gen,  &cli_cmd_tess,    &cli_cmd_raster,  &cli_cmd_stat,
    &cli_cmd_compare, &cli_cmd_convert, &cli_cmd_dist, &cli_cmd_contact,
    &cli_cmd_pack,
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

static void print_help(FILE *fp)
{
    fprintf(fp,
            "Usage: rve SUBCOMMAND [OPTIONS] [ARGS]\n"
            "       rve help SUBCOMMAND | rve --help | rve --version\n"
            "\n"
            "Fit Laguerre tessellations to 3D grain maps, regularise and mesh them, and\n"
            "compute exact distances and contacts between convex bodies.\n"
            "\n"
            "Subcommands:\n");
    for (size_t i = 0; i < ncommands; i++)
        fprintf(fp, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(fp,
            "\n"
            "Options every subcommand accepts:\n"
            "  -q, --quiet       no progress or information on stderr\n"
            "  -v, --verbose     more information on stderr\n"
            "  -j, --threads N   number of threads (default: RVE_THREADS, else all cores)\n"
            "      --json        print a JSON summary of the result on stdout\n"
            "  -h, --help        help of the subcommand\n"
            "\n"
            "Environment: RVE_THREADS (threads), RVE_GMSH_LIBRARY (the gmsh library to load\n"
            "when meshing, a build of the same gmsh version; default " RVE_GMSH_SONAME ").\n"
            "\n"
            "Exit status: 0 success, 1 bad data or failed input/output, 2 bad usage.\n");
}

static int rve_main(int argc, char **argv);

int main(int argc, char **argv)
{
    /* Idle OpenMP workers must sleep instead of spinning between the many
     * short parallel regions: with the default spinning the polish of rve reg
     * ran 9x slower beside one busy process on 2 cores.  libgomp reads its
     * environment in a constructor, before main, so the policy is set and the
     * program executed again (once: the variable is then set).  A value the
     * user set wins. */
    if (!getenv("OMP_WAIT_POLICY") && setenv("OMP_WAIT_POLICY", "PASSIVE", 0) == 0)
        execv("/proc/self/exe", argv); /* on failure: go on, merely slower under load */
    /* under mpirun (MPI build): one process of a distributed run (docs/mpi.md) */
    if (cli_mpi_begin(&argc, &argv) != 0)
        return 1;
    int rc = rve_main(argc, argv);
    cli_mpi_end();
    return rc;
}

static int rve_main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(sub, "--version") == 0 || strcmp(sub, "-V") == 0) {
        printf("rve %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp(sub, "help") == 0) {
        if (argc < 3) {
            print_help(stdout);
            return 0;
        }
        const cli_command *cmd = find_command(argv[2]);
        if (!cmd) {
            fprintf(stderr, "rve help: no subcommand '%s'; 'rve --help' lists them\n", argv[2]);
            return 2;
        }
        fputs(cmd->usage, stdout);
        return 0;
    }
    const cli_command *cmd = find_command(sub);
    if (!cmd) {
        fprintf(stderr, "rve: no subcommand '%s'; 'rve --help' lists them\n", sub);
        return 2;
    }
    if (cli_mpi_refuse(cmd))
        return 2;
    cli_getopt_reset();
    /* Every output of the subcommand is staged and committed together at the
     * end, or removed on failure and on SIGINT/SIGTERM/SIGHUP. */
    rve_afile_txn_begin();
    rve_afile_signals_install();
    /* the summary reaches standard output at the end, with the results: a
     * run killed before then prints none (the handler does not flush) */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    int rc = cmd->run(argc - 1, argv + 1);
    /* a summary that did not reach standard output (--json >/dev/full) is a
     * failure, and then nothing is committed */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc == 0)
            fprintf(stderr, "rve %s: standard output: write failed: %s\n", cmd->name,
                    strerror(errno ? errno : EIO));
        rc = rc ? rc : 1;
    }
    /* distributed: no rank commits unless every rank succeeded */
    rc = cli_mpi_agree_rc(rc);
    if (rc != 0) {
        rve_afile_txn_abort();
        return rc;
    }
    /* from here on signals are ignored (rve_afile_txn_commit): the renames
     * are not interrupted, and a run whose results are in place exits 0 */
    rve_err err;
    rve_err_clear(&err);
    if (rve_afile_txn_commit(&err) != RVE_OK)
        return cli_fail(cmd, &err);
    return 0;
}
