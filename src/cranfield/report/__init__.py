"""Rendering results for people: terminal tables, comparisons, plots, the HTML report."""
