# Module dist: sources, public header, tests and benchmarks.

# contact kernels (issue 4)
librve_la_SOURCES += src/dist/contact_internal.h src/dist/contact_poly.c src/dist/contact_cp.c
check_PROGRAMS += tests/test_contact
tests_test_contact_SOURCES = tests/test_contact.c tests/contact_oracle.c tests/contact_oracle.h
tests_test_contact_CFLAGS = $(TEST_CFLAGS)
tests_test_contact_LDADD = $(TEST_LIBS) $(QHULL_LIBS)
