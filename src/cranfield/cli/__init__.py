"""The ``cranfield`` command line: thin wrappers that parse, call the library, render."""
