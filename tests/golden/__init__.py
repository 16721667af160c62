"""Golden worked examples: every number a textbook or a paper prints, reproduced.

A file is named by what it checks and where the example comes from,
``test_<measure>_<source>.py``, so a change to a measure finds its examples by name. The
sources are the texts in ``shared/seeds/`` (docstrings call them "Seed 000" to "Seed 004"):

* ``webis``: 000, the lecture chapter "IR:VIII Evaluation";
* ``wikipedia``: 001, Wikipedia's "Discounted cumulative gain";
* ``chen``: 002, Berlin Chen's slides "Retrieval Evaluation - Measures";
* ``metrics_note``: 003, the note "Information Retrieval Evaluation Metrics";
* ``ecnu``: 004, Zhang Rong's (ECNU) lecture "检索评价".

``test_rbp_err_alpha_ndcg_condensed.py`` checks the measures beyond the seeds on examples
computed by hand from their papers. ``_collection.py`` and ``_helpers.py`` are shared.
"""
