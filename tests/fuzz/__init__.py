"""kdump's mutation fuzzer: seed corpus (:mod:`.corpus`), mutators (:mod:`.mutate`),
the in-process runner and its invariants (:mod:`.harness`) and a command line for long
runs (``python -m tests.fuzz.run``).  See docs/fuzzing.md."""
