# Module tess: sources, public header, tests and benchmarks.


# tessellations
librve_core_la_SOURCES += src/tess/rasterize.c src/tess/tess.c src/tess/topo.c src/tess/topo_query.c src/tess/geom.c src/tess/tess_io.c src/tess/tess_read.c src/tess/tess_build.c src/tess/tess_read.h src/tess/tess_ori.c \
	src/tess/tess_internal.h src/tess/voro_wrap.h src/tess/voro_wrap.cc
UNIT_TESTS += tests/test_tess
tests_test_tess_SOURCES = tests/test_tess.c
tests_test_tess_CFLAGS = $(TEST_CFLAGS)
tests_test_tess_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_tess.sh
BENCH_PROGS += bench/bench_tess
bench_bench_tess_SOURCES = bench/bench_tess.c
# the bench calls the voro++ wrapper (tv_*, internal): the convenience library, a C++ link
bench_bench_tess_LDADD = librve_core.la $(RVE_DEP_LIBS)
nodist_EXTRA_bench_bench_tess_SOURCES = bench-cxx-dummy.cc
# end tessellations

# Neper interoperability
UNIT_TESTS += tests/test_tess_neper
tests_test_tess_neper_SOURCES = tests/test_tess_neper.c
tests_test_tess_neper_CFLAGS = $(TEST_CFLAGS)
tests_test_tess_neper_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_tess_neper.sh
EXTRA_DIST += tests/neper_tess_check.py
# end Neper interoperability

# sphericity of voxel grains
UNIT_TESTS += tests/test_stats_sphericity
tests_test_stats_sphericity_SOURCES = tests/test_stats_sphericity.c
tests_test_stats_sphericity_CFLAGS = $(TEST_CFLAGS)
tests_test_stats_sphericity_LDADD = $(TEST_LIBS) $(TIFF_LIBS)
# end sphericity
BENCH_SHELL += bench/bench_hdf5.sh
