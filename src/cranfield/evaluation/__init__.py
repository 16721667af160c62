"""The evaluation layer: the object that binds qrels, measures and options once.

:class:`Evaluator` scores one run, a run streamed in blocks, or many runs into one aligned
:class:`ScoreTable`; :class:`EvalOptions` holds the evaluation options, validated once;
:func:`cranfield.evaluate` (one run), :func:`cranfield.evaluate_many` (several runs) and
:func:`cranfield.evaluate_stream` are thin convenience functions over an :class:`Evaluator`.
"""

import typing

from cranfield._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from cranfield.evaluation.evaluator import (
        Evaluator,
        evaluate,
        evaluate_many,
        evaluate_stream,
    )
    from cranfield.evaluation.options import EvalKwargs, EvalOptions
    from cranfield.evaluation.results import Results, ScoreTable

__all__ = [
    "EvalKwargs",
    "EvalOptions",
    "Evaluator",
    "Results",
    "ScoreTable",
    "evaluate",
    "evaluate_many",
    "evaluate_stream",
]

# Imported on first use: the options are read by the command line before anything is scored.
_LAZY = {
    "EvalKwargs": "cranfield.evaluation.options",
    "EvalOptions": "cranfield.evaluation.options",
    "Evaluator": "cranfield.evaluation.evaluator",
    "Results": "cranfield.evaluation.results",
    "ScoreTable": "cranfield.evaluation.results",
    "evaluate": "cranfield.evaluation.evaluator",
    "evaluate_many": "cranfield.evaluation.evaluator",
    "evaluate_stream": "cranfield.evaluation.evaluator",
}

__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals())
