"""Rendering results for people: trec_eval text, terminal tables, machine formats."""
