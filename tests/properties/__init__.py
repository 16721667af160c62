"""Property tests: every measure against the one oracle (``tests/reference.py``), and the
properties each spec's tags promise."""
