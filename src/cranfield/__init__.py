"""cranfield: laboratory evaluation of search and ranking systems.

Exact trec_eval measures on a columnar engine, with a drop-in ``cranfield trec-eval``.

>>> import cranfield
>>> res = cranfield.evaluate({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "P@2")
>>> res["P@2"]
0.5
"""

import typing

from cranfield import data as _data
from cranfield import io as _io
from cranfield._deprecation import MovedName as _MovedName
from cranfield._lazy import lazy_names as _lazy_names
from cranfield._version import __version__
from cranfield.errors import (
    AmbiguousFormatError,
    CranfieldError,
    CranfieldWarning,
    EngineError,
    EvaluationError,
    InputError,
    MeasureError,
    MissingTopicError,
    OptionError,
    QrelsNoteWarning,
    QueryOverlapWarning,
    StoreWarning,
    UnknownKindError,
    WorkdirInUseError,
)

if typing.TYPE_CHECKING:
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run
    from cranfield.evaluation.evaluator import (
        Evaluator,
        evaluate,
        evaluate_many,
        evaluate_stream,
    )
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.results import Results, ScoreTable
    from cranfield.io.load import load_qrels, load_run, save_qrels, save_run
    from cranfield.io.runset import RunSet
    from cranfield.measures import Measure, MeasureSpec, parse_measure, parse_measures
    from cranfield.stats import Comparison, compare
    from cranfield.stats.plan import TestPlan


# Imported on first use: every CLI call imports this package, and only some need them.
# `cranfield --version` and `--help` need none of them (they would import numpy); polars is
# needed neither by them nor by a command on small clean files.
_LAZY = {
    "Comparison": "cranfield.stats",
    "EvalOptions": "cranfield.evaluation.options",
    "Evaluator": "cranfield.evaluation.evaluator",
    "Measure": "cranfield.measures",
    "MeasureSpec": "cranfield.measures",
    "Results": "cranfield.evaluation.results",
    "RunSet": "cranfield.io.runset",
    "ScoreTable": "cranfield.evaluation.results",
    "TestPlan": "cranfield.stats.plan",
    "compare": "cranfield.stats",
    "evaluate": "cranfield.evaluation.evaluator",
    "evaluate_many": "cranfield.evaluation.evaluator",
    "evaluate_stream": "cranfield.evaluation.evaluator",
    "parse_measure": "cranfield.measures",
    "parse_measures": "cranfield.measures",
    **dict.fromkeys(_data.__all__, "cranfield.data"),  # lazy there too
    **dict.fromkeys(_io.__all__, "cranfield.io"),
}


# Until 0.2.0 these were cranfield.io.trec's TREC-only readers and writers; one public name
# per job now (issue 29): load_* and save_* for every format, cranfield.io.trec for TREC text.
_MOVED = (
    _MovedName(
        "cranfield",
        "read_qrels",
        "cranfield.load_qrels, or cranfield.io.trec.read_qrels for TREC text only",
        "cranfield.io.trec",
        "read_qrels",
    ),
    _MovedName(
        "cranfield",
        "read_run",
        "cranfield.load_run, or cranfield.io.trec.read_run for TREC text only",
        "cranfield.io.trec",
        "read_run",
    ),
    _MovedName(
        "cranfield",
        "write_qrels",
        "cranfield.save_qrels, or cranfield.io.trec.write_qrels for TREC text only",
        "cranfield.io.trec",
        "write_qrels",
    ),
    _MovedName(
        "cranfield",
        "write_run",
        "cranfield.save_run, or cranfield.io.trec.write_run for TREC text only",
        "cranfield.io.trec",
        "write_run",
    ),
)

__getattr__, __dir__ = _lazy_names(__name__, _LAZY, globals(), _MOVED)

__all__ = [
    "AmbiguousFormatError",
    "Comparison",
    "CranfieldError",
    "CranfieldWarning",
    "EngineError",
    "EvalOptions",
    "EvaluationError",
    "Evaluator",
    "InputError",
    "Measure",
    "MeasureError",
    "MeasureSpec",
    "MissingTopicError",
    "OptionError",
    "Qrels",
    "QrelsNoteWarning",
    "QueryOverlapWarning",
    "Results",
    "Run",
    "RunSet",
    "ScoreTable",
    "StoreWarning",
    "TestPlan",
    "UnknownKindError",
    "WorkdirInUseError",
    "__version__",
    "compare",
    "evaluate",
    "evaluate_many",
    "evaluate_stream",
    "load_qrels",
    "load_run",
    "parse_measure",
    "parse_measures",
    "save_qrels",
    "save_run",
]
