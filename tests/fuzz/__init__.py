"""The fuzzing suite: every reader against a plain reference reader of its documented format,
on generated inputs (``conftest.py`` sets the budget; ``CRANFIELD_FUZZ=long`` runs longer)."""
