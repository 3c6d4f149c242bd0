# Module mpi: distributed rasterisation and tessellation (MPI + parallel
# HDF5), built only with configure --with-mpi.  Public header
# include/rve/mpi.h.  A library of its own (linked into the rve program of
# the MPI build): librve itself has no MPI in it.
if HAVE_MPI
noinst_LTLIBRARIES += librve_mpi.la
librve_mpi_la_SOURCES = src/mpi/mpi_core.c src/mpi/mpi_raster.c src/mpi/mpi_seeds.c src/mpi/mpi_tess.c src/mpi/mpi_pvol.c src/mpi/mpi_tessfile.c \
	src/mpi/mpi_fit.c src/mpi/mpi_fitmap.c src/mpi/mpi_mapsrc.c src/mpi/mpi_lloyd.c src/mpi/mpi_internal.h src/mpi/mpi_fit_int.h
librve_mpi_la_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
librve_mpi_la_LIBADD = $(MPI_LIBS)
rve_LDADD += librve_mpi.la $(MPI_LIBS) $(HDF5_LIBS)
rve_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
rve_SOURCES += src/cli/cli_mpi.c
noinst_HEADERS += include/rve/mpi.h
dist_check_SCRIPTS += tests/test_mpi.sh tests/test_mpi_tess.sh tests/test_mpi_pvol.sh tests/test_mpi_fit.sh
endif
EXTRA_DIST += include/rve/mpi.h src/cli/cli_mpi.c src/mpi/mpi_core.c src/mpi/mpi_raster.c src/mpi/mpi_seeds.c \
	src/mpi/mpi_tess.c src/mpi/mpi_pvol.c src/mpi/mpi_tessfile.c src/mpi/mpi_internal.h src/mpi/mpi_fit.c src/mpi/mpi_fitmap.c src/mpi/mpi_mapsrc.c src/mpi/mpi_lloyd.c src/mpi/mpi_fit_int.h \
	tests/test_mpi.sh tests/test_mpi_tess.sh tests/test_mpi_pvol.sh tests/test_mpi_fit.sh tests/mpi_fit_oracle.py \
	tests/mpi_tess_oracle.py
if HAVE_MPI
AM_TESTS_ENVIRONMENT += RVE_MPIRUN='$(MPIRUN)'; export RVE_MPIRUN;
endif
EXTRA_DIST += bench/bench_mpi.sh
# make bench-mpi: the distributed benchmarks (docs/mpi.md), printed only
bench-mpi: rve
	RVE='$(abs_top_builddir)/rve' RVE_MPIRUN='$(MPIRUN)' sh $(top_srcdir)/bench/bench_mpi.sh
.PHONY: bench-mpi
# reading grain maps by layers (rve_map_part, the distributed fit's partial
# reads): a serial test, in every build
UNIT_TESTS += tests/test_mpi_mappart
tests_test_mpi_mappart_SOURCES = tests/test_mpi_mappart.c
tests_test_mpi_mappart_CFLAGS = $(TEST_CFLAGS)
tests_test_mpi_mappart_LDADD = $(TEST_LIBS)
