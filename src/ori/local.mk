# Module ori: crystal orientations (descriptors, symmetry, misorientation, mean).
librve_core_la_SOURCES += src/ori/ori_conv.c src/ori/ori_sym.c

UNIT_TESTS += tests/test_ori
tests_test_ori_SOURCES = tests/test_ori.c
tests_test_ori_CFLAGS = $(TEST_CFLAGS)
tests_test_ori_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_hdf5.sh tests/test_ori_run.sh tests/test_sample_ori.sh tests/test_ori_texture.sh

UNIT_TESTS += tests/test_hdf5
tests_test_hdf5_SOURCES = tests/test_hdf5.c
tests_test_hdf5_CFLAGS = $(TEST_CFLAGS)
tests_test_hdf5_LDADD = $(TEST_LIBS) $(HDF5_LIBS)
EXTRA_DIST += tests/rot_oracle.py
