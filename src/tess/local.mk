# Module tess: sources, public header, tests and benchmarks.

# tessellations (issue 6)
librve_la_SOURCES += src/tess/rasterize.c src/tess/tess.c src/tess/topo.c src/tess/geom.c \
	src/tess/tess_internal.h src/tess/voro_wrap.h src/tess/voro_wrap.cc
check_PROGRAMS += tests/test_tess
tests_test_tess_SOURCES = tests/test_tess.c
tests_test_tess_CFLAGS = $(TEST_CFLAGS)
tests_test_tess_LDADD = $(TEST_LIBS)
# end tessellations (issue 6)
