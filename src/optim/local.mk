# Module optim: sources, public header, tests and benchmarks.

# fitting (issue 7)
librve_la_SOURCES += src/optim/cpoly.c src/optim/cpoly.h src/optim/lopt.c src/optim/lopt.h \
	src/optim/fit.c
check_PROGRAMS += tests/test_fit
tests_test_fit_SOURCES = tests/test_fit.c
tests_test_fit_CFLAGS = $(TEST_CFLAGS)
tests_test_fit_LDADD = $(TEST_LIBS)
# end of fitting (issue 7)

# synthesis (issue 9)
librve_la_SOURCES += src/optim/synth.h src/optim/distrib.c
# end synthesis (issue 9)
