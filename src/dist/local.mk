# Module dist: sources, public header, tests and benchmarks.
librve_la_SOURCES += src/dist/shape.c src/dist/gjk.c src/dist/graph.c src/dist/dist_internal.h

check_PROGRAMS += tests/test_dist
tests_test_dist_SOURCES = tests/test_dist.c tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_LDADD = $(TEST_LIBS) $(QHULL_LIBS)

check_PROGRAMS += tests/test_dist_pairs
tests_test_dist_pairs_SOURCES = tests/test_dist_pairs.c tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_pairs_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_pairs_LDADD = $(TEST_LIBS) $(QHULL_LIBS)
