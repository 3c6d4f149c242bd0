# Shared utilities (status codes, errors, atomic output, JSON, parsing).
# err.c and afile.c are also part of librve-dist (src/dist/local.mk).
librve_core_la_SOURCES += src/util/err.c src/util/afile.c src/util/json.c src/util/parse.c \
	src/util/misc.c src/util/rng.c src/util/distrib.c src/util/mathconst.h src/util/pcg.h src/util/strtrim.h
rveinclude_HEADERS += include/rve/util.h

UNIT_TESTS += tests/test_util
tests_test_util_SOURCES = tests/test_util.c src/cli/progress.c src/cli/progress.h
tests_test_util_CFLAGS = $(TEST_CFLAGS)
tests_test_util_LDADD = $(TEST_LIBS)
librve_core_la_SOURCES += src/util/vec3.h
