# Module optim: sources, public header, tests and benchmarks.

# fitting
librve_core_la_SOURCES += src/optim/cpoly.c src/optim/cpoly.h src/optim/lopt.c src/optim/lopt.h src/optim/lopt_int.h src/optim/lopt_cell.c src/optim/lopt_graph.c src/optim/lopt_sweep.c \
	src/optim/fit.c src/optim/fit_int.h src/optim/fit_ctx.c src/optim/fit_cost.c src/optim/fit_quality.c \
	src/optim/fit_state.c src/optim/fit_classify.c src/optim/fit_hinge.c src/optim/fit_stages.c src/optim/fit_open.c
UNIT_TESTS += tests/test_fit
tests_test_fit_SOURCES = tests/test_fit.c
tests_test_fit_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_LDADD = $(TEST_LIBS)
UNIT_TESTS += tests/test_fit_effort
tests_test_fit_effort_SOURCES = tests/test_fit_effort.c
tests_test_fit_effort_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_effort_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_fit_effort.sh
UNIT_TESTS += tests/test_fit_surrogate
tests_test_fit_surrogate_SOURCES = tests/test_fit_surrogate.c
tests_test_fit_surrogate_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_surrogate_LDADD = $(CORE_LIBS)
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
