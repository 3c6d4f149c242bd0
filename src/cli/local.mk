# The `rve` program: dispatch, shared plumbing, one file per subcommand.
rve_SOURCES += src/cli/cli.c \
	src/cli/cmd_run.c src/cli/cmd_fit.c src/cli/cmd_reg.c src/cli/cmd_mesh.c \
	src/cli/cmd_gen.c src/cli/cmd_tess.c src/cli/cmd_raster.c src/cli/cmd_stat.c \
	src/cli/cmd_compare.c src/cli/cmd_convert.c src/cli/cmd_dist.c src/cli/cmd_contact.c \
	src/cli/cmd_pack.c src/cli/meshcli_ori.c src/cli/progress.c src/cli/progress.h \
	src/cli/pole_figure.c src/cli/pole_figure.h

dist_check_SCRIPTS += tests/test_cli.sh tests/test_faults.sh

# Load benchmark of the parallel commands.
BENCH_SHELL += bench/bench_load.sh
