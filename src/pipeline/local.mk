# Module pipeline: fit (or synthesis), regularisation and meshing in one call
# (rve/pipeline.h; what `rve run` does).
librve_core_la_SOURCES += src/pipeline/pipeline.c
rveinclude_HEADERS += include/rve/pipeline.h

UNIT_TESTS += tests/test_pipeline
tests_test_pipeline_SOURCES = tests/test_pipeline.c
tests_test_pipeline_CFLAGS = $(TEST_CFLAGS)
tests_test_pipeline_LDADD = $(TEST_LIBS)
