# Module optim: sources, public header, tests and benchmarks.

# fitting
librve_core_la_SOURCES += src/optim/cpoly.c src/optim/cpoly.h src/optim/lopt.c src/optim/lopt.h \
	src/optim/fit.c
UNIT_TESTS += tests/test_fit
tests_test_fit_SOURCES = tests/test_fit.c
tests_test_fit_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_LDADD = $(TEST_LIBS)
BENCH_SHELL += bench/bench_fit.sh bench/bench_fit_validation.sh
EXTRA_DIST += bench/bench_fit.sh bench/bench_fit_validation.sh
# end of fitting

# synthesis
librve_core_la_SOURCES += src/optim/synth.h src/optim/pvol.c src/optim/distrib.c src/optim/gen.c \
	src/optim/gen_search.c src/optim/gen_internal.h
UNIT_TESTS += tests/test_gen
tests_test_gen_SOURCES = tests/test_gen.c
tests_test_gen_CFLAGS = $(TEST_CFLAGS)
tests_test_gen_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_gen.sh
BENCH_PROGS += bench/bench_gen
bench_bench_gen_SOURCES = bench/bench_gen.c
bench_bench_gen_LDADD = librve.la $(GSL_LIBS) -lm
# end synthesis
