"""The evaluation options, declared once: :class:`EvalOptions`.

Every function and command that evaluates (``evaluate``, ``evaluate_stream``, ``compare``, the
curves, the plots, the HTML report, the lab, cross-validation, pooling, ``trec-eval``) takes
these options through one :class:`EvalOptions`, either given whole (``options=``) or as
keywords (``missing="skip"``), and validates them here, once. :data:`EvalKwargs` is the same
list as a ``TypedDict``, so that ``**kwargs`` stay typed; a test checks that the two agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from cranfield._types import (
    AGGREGATIONS,
    COMPATS,
    DUPLICATE_POLICIES,
    FILE_FORMATS,
    MISSING_POLICIES,
    Aggregation,
    Compat,
    DuplicatePolicy,
    FileFormat,
    MissingPolicy,
)
from cranfield._validate import check_bool, check_choice, check_float, check_int
from cranfield.errors import OptionError
from cranfield.kernels.binary import MIN_GEO_MEAN

if TYPE_CHECKING:
    from cranfield.measures import Measure

__all__ = ["AggregateOption", "EvalKwargs", "EvalOptions", "options_from"]

AggregateOption = Aggregation | Mapping["str | Measure", Aggregation] | None


@dataclass(frozen=True)
class EvalOptions:
    """How runs are ranked and scored: the options every evaluation shares.

    Parameters
    ----------
    missing:
        Judged queries absent from a run: ``"zero"`` (default) scores them as an empty ranking
        (0 for almost every measure) and counts them, so skipping hard queries cannot help;
        ``"skip"`` leaves them out of the averages; ``"error"`` raises
        :class:`~cranfield.errors.MissingTopicError`. Run queries without judgments are always
        ignored.
    relevance_level:
        Minimum judged level counted as relevant by binary measures (trec_eval ``-l``),
        unless a measure sets its own ``rel=``.
    judged_only:
        Drop unjudged documents before ranking-based measures (trec_eval ``-J``): the
        condensed-list evaluation of Sakai (2007), for any measure.
    depth:
        Keep only the first ``depth`` documents of each query after sorting (trec_eval
        ``-M``); ``None`` keeps every document.
    float32:
        Round scores to float32 before ranking (trec_eval 9.x, pytrec_eval, NIST's TREC-COVID).
    compat:
        10 (default) or 9: the trec_eval version whose rounding of recall levels interpolated
        precision follows.
    num_docs:
        Collection size N: utility's true-negative cell (trec_eval ``-N``) and the cell d of
        the set measures that need it (SetFallout, SetAccuracy; without it their collection
        is each query's judged and retrieved documents).
    aggregate:
        How ``results[m]`` summarises each measure over queries; ``None`` (default) uses each
        measure's declared aggregate (mean; sum for counts; geometric mean for GMAP).
        ``"mean"`` (macro-averaging), ``"sum"``, ``"gmean"``, ``"median"``, ``"micro"`` (set
        measures only: pool the contingency counts of all queries, then compute), or a
        mapping ``{measure: how}`` for some measures. Per-query values are unaffected.
    epsilon:
        Floor applied before the logarithm of a geometric mean (GMAP; trec_eval's 1e-5).
    duplicates:
        A (query, document) pair judged on several lines of a qrels file: ``"merge"``
        (default) makes lines with the same relevance one judgment and says so in the
        results' notes, and refuses different relevances; ``"error"`` refuses any repeat
        (trec_eval); ``"first"``, ``"last"`` or ``"max"`` keep that line's relevance (named
        in the notes). Runs are strict whatever this says: a repeated run line is an error.
    ignore_self:
        Drop every run document whose id is the query's id before ranking (BEIR's ArguAna
        and Quora, whose queries are also documents of the corpus); how many were dropped is
        in the results' notes.
    qrels_format, run_format:
        The format of qrels and run files (:mod:`cranfield.io.formats`: ``"trec"``,
        ``"msmarco"``, ``"beir"``, ``"csv"``, ``"tsv"``, ``"json"``, ``"jsonl"``,
        ``"parquet"``); ``None`` (default) detects it from each file's first lines. A format
        other than TREC is named in the results' notes.

    Raises
    ------
    OptionError
        For a value an option cannot take, with one sentence:
        ``The 'depth' option must be an integer >= 0 or None, got -1.``

    Examples
    --------
    >>> EvalOptions(missing="skip", depth=100)
    EvalOptions(missing='skip', depth=100)
    >>> EvalOptions(depth=-1)
    Traceback (most recent call last):
    ...
    cranfield.errors.OptionError: The 'depth' option must be an integer >= 0 or None, got -1.
    """

    missing: MissingPolicy = "zero"
    relevance_level: int = 1
    judged_only: bool = False
    depth: int | None = None
    float32: bool = False
    compat: Compat = 10
    num_docs: int = 0
    aggregate: AggregateOption = None
    epsilon: float = MIN_GEO_MEAN
    duplicates: DuplicatePolicy = "merge"
    ignore_self: bool = False
    qrels_format: FileFormat | None = None
    run_format: FileFormat | None = None

    def __post_init__(self) -> None:
        check_choice("missing", self.missing, MISSING_POLICIES)
        integers = {  # stored as plain ints (a numpy integer is accepted, then converted)
            "relevance_level": check_int("relevance_level", self.relevance_level),
            "depth": check_int("depth", self.depth, minimum=0, none=True),
        }
        check_bool("judged_only", self.judged_only)
        check_bool("float32", self.float32)
        check_choice("compat", self.compat, COMPATS)
        integers["num_docs"] = check_int("num_docs", self.num_docs, minimum=0)
        check_float("epsilon", self.epsilon, minimum=0, above=True)
        _check_aggregate(self.aggregate)
        check_choice("duplicates", self.duplicates, DUPLICATE_POLICIES)
        check_bool("ignore_self", self.ignore_self)
        for name in ("qrels_format", "run_format"):
            if getattr(self, name) is not None:
                check_choice(name, getattr(self, name), FILE_FORMATS)
        for name, value in integers.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        changed = ", ".join(f"{k}={v!r}" for k, v in self.changed().items())
        return f"EvalOptions({changed})"

    def changed(self) -> dict[str, Any]:
        """The options that differ from their defaults, in declaration order."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain data (for provenance: JSON, the report, the lab's caches)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if isinstance(self.aggregate, Mapping):
            out["aggregate"] = {str(k): v for k, v in self.aggregate.items()}
        return out

    def replace(self, **changes: Any) -> EvalOptions:
        """A copy with some options changed (validated again)."""
        return dataclasses.replace(self, **changes)


class EvalKwargs(TypedDict, total=False):
    """The fields of :class:`EvalOptions` as keyword arguments (``**kwargs`` of the
    functions that evaluate); documented on :class:`EvalOptions`."""

    missing: MissingPolicy
    relevance_level: int
    judged_only: bool
    depth: int | None
    float32: bool
    compat: Compat
    num_docs: int
    aggregate: AggregateOption
    epsilon: float
    duplicates: DuplicatePolicy
    ignore_self: bool
    qrels_format: FileFormat | None
    run_format: FileFormat | None


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(EvalOptions))


def options_from(
    options: EvalOptions | None, kwargs: Mapping[str, Any], *, caller: str = "evaluate"
) -> EvalOptions:
    """``options`` with ``kwargs`` applied: the one way an evaluation's options are built.

    An unknown keyword is an :class:`~cranfield.errors.OptionError` naming the accepted ones
    (a ``TypeError`` too, as Python raises for an unexpected keyword).
    """
    for key in kwargs:
        if key not in OPTION_NAMES:
            raise OptionError(
                key,
                "an option of " + caller,
                kwargs[key],
                note="Accepted evaluation options: " + ", ".join(OPTION_NAMES) + ".",
            )
    base = EvalOptions() if options is None else options
    if not isinstance(base, EvalOptions):
        raise OptionError("options", "an EvalOptions or None", options)
    return dataclasses.replace(base, **kwargs) if kwargs else base


def _check_aggregate(option: object) -> None:
    if option is None:
        return
    if isinstance(option, str):
        check_choice("aggregate", option, AGGREGATIONS)
        return
    if not isinstance(option, Mapping):
        raise OptionError(
            "aggregate",
            "one of " + ", ".join(map(repr, AGGREGATIONS)) + ", a mapping or None",
            option,
        )
    for how in option.values():
        check_choice("aggregate", how, AGGREGATIONS)
