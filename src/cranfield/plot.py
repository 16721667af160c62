"""Figures of evaluation results: precision–recall and gain curves, per-query plots, and
figures of the evaluation itself (rankings under two settings, ASL curves, topics needed).

Needs matplotlib, the optional extra ``cranfield[plot]`` (``pip install '.[plot]'``);
it is imported only when a figure is drawn. Every function returns a
:class:`matplotlib.figure.Figure` and never calls ``show()``: save it with
``fig.savefig("pr.png")`` or display it in a notebook. The implementation lives in
:mod:`cranfield.report.plots`.

>>> import cranfield.plot
>>> sorted(cranfield.plot.__all__)[:3]
['asl_curves', 'difference_bars', 'gain_curve']
"""

from cranfield.report.plots import (
    asl_curves,
    difference_bars,
    gain_curve,
    judging_curves,
    pr_curve,
    query_pr_curve,
    ranking_scatter,
    score_distribution,
    topic_set_curves,
)

__all__ = [
    "asl_curves",
    "difference_bars",
    "gain_curve",
    "judging_curves",
    "pr_curve",
    "query_pr_curve",
    "ranking_scatter",
    "score_distribution",
    "topic_set_curves",
]
