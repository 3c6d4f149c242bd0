# Module mesh: sources, public header, tests and benchmarks.
