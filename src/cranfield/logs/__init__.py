"""Evaluation from what users do: interaction logs, click metrics, click models, online tests.

The fourth part of evaluation next to laboratory experiments, measures and training/testing:
sessions read from logs (:mod:`cranfield.logs.sessions`), click metrics per query and system,
click models fitted to sessions, interleaving and A/B tests, and users simulated over a run
and its qrels.
"""
