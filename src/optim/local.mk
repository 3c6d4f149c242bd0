# Module optim: sources, public header, tests and benchmarks.

# synthesis (issue 9)
librve_la_SOURCES += src/optim/synth.h src/optim/distrib.c
# end synthesis (issue 9)
