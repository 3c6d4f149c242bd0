# Module pack: sources, public header, tests and benchmarks.
