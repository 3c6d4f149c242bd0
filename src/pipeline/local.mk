# Module pipeline: fit (or synthesis), regularisation and meshing in one call
# (rve/pipeline.h; what `rve run` does).
librve_core_la_SOURCES += src/pipeline/pipeline.c
rveinclude_HEADERS += include/rve/pipeline.h
