# The `rve` program: dispatch, shared plumbing, one file per subcommand.
rve_SOURCES += src/cli/cli.c \
	src/cli/cmd_run.c src/cli/cmd_fit.c src/cli/cmd_reg.c src/cli/cmd_mesh.c \
	src/cli/cmd_gen.c src/cli/cmd_tess.c src/cli/cmd_raster.c src/cli/cmd_stat.c \
	src/cli/cmd_compare.c src/cli/cmd_convert.c src/cli/cmd_dist.c src/cli/cmd_contact.c src/cli/query_read.c src/cli/query_read.h \
	src/cli/cmd_pack.c src/cli/meshcli_ori.c src/cli/meshcli_opts.c src/cli/progress.c src/cli/progress.h \
	src/cli/pole_figure.c src/cli/pole_figure.h src/cli/cli_mpi.h \
	src/cli/fit_report.c src/cli/fit_report.h src/cli/vti_out.h $(CLI_PLOT_SOURCES)
# Pictures (report plots, slices, pole figures) belong to the program, not to
# librve: cairo is a dependency of the command only.
CLI_PLOT_SOURCES = src/cli/plot.h src/cli/plot.c src/cli/plot_canvas.c src/cli/plot_gen.c
rve_CPPFLAGS = $(AM_CPPFLAGS) $(CAIRO_CFLAGS)
rve_LDADD += $(CAIRO_LIBS)

dist_check_SCRIPTS += tests/test_cli.sh tests/test_faults.sh tests/test_plot_report.sh tests/test_mpi_gen.sh

# Load benchmark of the parallel commands.
BENCH_SHELL += bench/bench_load.sh

# The pictures, read back by an independent PNG decoder (tests/pngcheck.py).
UNIT_TESTS += tests/test_plot
tests_test_plot_SOURCES = tests/test_plot.c $(CLI_PLOT_SOURCES)
tests_test_plot_CPPFLAGS = $(AM_CPPFLAGS) $(CAIRO_CFLAGS)
tests_test_plot_CFLAGS = $(TEST_CFLAGS)
tests_test_plot_LDADD = $(CORE_LIBS) $(CAIRO_LIBS)
EXTRA_DIST += tests/pngcheck.py

# Fault injection: an LD_PRELOAD shim (tests/faultinject.c) that
# fails the k-th allocation, write, fsync or rename; tests/test_faultinject.sh
# sweeps k over representative commands.
check_LTLIBRARIES = tests/libfaultinject.la
tests_libfaultinject_la_SOURCES = tests/faultinject.c
tests_libfaultinject_la_CFLAGS = $(AM_CFLAGS)
tests_libfaultinject_la_LDFLAGS = -module -shared -avoid-version -rpath /nowhere
tests_libfaultinject_la_LIBADD = -ldl
dist_check_SCRIPTS += tests/test_faultinject.sh
# SIGINT/SIGTERM/SIGHUP mid-run: nothing left behind (docs/reliability.md)
dist_check_SCRIPTS += tests/test_signal.sh
