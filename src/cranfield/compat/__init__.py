"""Reproductions of other tools' exact behaviour (trec_eval)."""
