"""trec_eval, reproduced: measure selection, evaluation and byte-identical output.

``run(TrecEvalOptions(...))`` returns the text trec_eval would print. Semantics follow
trec_eval 10.0 (``compat=10``) or 9.0.8 (``compat=9``: float32 scores, ``trunc(p·R + 0.9)``
recall cutoffs, no rbp/unj/dcg, topics missing from the run skipped and, with ``-c``, not
printed). One deliberate difference from 10.0: a judged topic absent from the run is not
fatal without ``-c``; it is skipped and reported in :attr:`TrecEvalOutput.warnings`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from cranfield._types import Compat
from cranfield.data.ranking import (
    NOT_IN_POOL,
    UNJUDGED,
    Ranking,
    ranked_doc_ids,
)
from cranfield.errors import EvaluationError, InputError, MeasureError, QrelsNoteWarning
from cranfield.evaluation.aggregate import aggregate, sequential_sum
from cranfield.evaluation.judgments import Judgments
from cranfield.evaluation.options import EvalOptions
from cranfield.evaluation.ranked import rank_run
from cranfield.evaluation.scoring import compute
from cranfield.io.source import read_bytes, source_name
from cranfield.io.trec_eval_text import format_line
from cranfield.kernels.binary import log_clamped
from cranfield.kernels.context import EvalContext
from cranfield.measures import trec_names
from cranfield.measures.trec_names import TrecOutput

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from cranfield.evaluation.evaluator import Evaluator

QrelsFormat = Literal["qrels", "prefs", "qrels_prefs", "qrels_jg"]
MISSING_ZSCORE = -1000000.0


@dataclass
class TrecEvalOptions:
    """The flags of the trec_eval command line."""

    qrels: str
    run: str
    measures: list[str] = field(default_factory=list)
    per_query: bool = False  # -q
    complete: bool = False  # -c
    num_docs: int = 0  # -N
    depth: int | None = None  # -M
    judged_only: bool = False  # -J
    relevance_level: int = 1  # -l
    no_summary: bool = False  # -n
    qrels_format: QrelsFormat = "qrels"  # -R
    zscores: str | None = None  # -Z
    compat: Compat = 10


@dataclass
class TrecEvalOutput:
    text: str
    warnings: list[str] = field(default_factory=list)


def select(measure_args: list[str], *, compat: int) -> list[tuple[str, str | None]]:
    """Requested trec_eval measures with their parameter strings, in table order.

    A nickname expands to its members; a measure named several times keeps the first
    non-empty parameter list; parameters given to a nickname are ignored (as trec_eval).
    """
    chosen: dict[str, str | None] = {}
    for arg in measure_args or ["official"]:
        name, _, raw = arg.partition(".")
        params = raw if _ else None
        if name in trec_names.NICKNAMES:
            members = [
                m
                for m in trec_names.NICKNAMES[name]
                if not (compat == 9 and trec_names.not_in_v9(m))
            ]
            for m in members:
                chosen.setdefault(m, None)
            continue
        if name not in trec_names.BY_NAME or (compat == 9 and trec_names.not_in_v9(name)):
            raise MeasureError(f"trec_eval: illegal measure '{name}'")
        if chosen.get(name) is None:
            chosen[name] = params
    return sorted(chosen.items(), key=lambda kv: trec_names.ORDER[kv[0]])


class TrecEval:
    """trec_eval bound to its options, the qrels read once: what the runs of one command line
    share (``cranfield trec-eval QRELS RUN...``, each run's output as ``trec_eval QRELS RUN``
    prints it). ``opts.run`` is not read here.

    The measures are checked first, as trec_eval does (an unknown one is an error before any
    file is read); the qrels are read on the first run, or by :meth:`prepare`.
    """

    def __init__(self, opts: TrecEvalOptions) -> None:
        self.opts = opts
        self.rows: list[TrecOutput] = []
        for name, raw in select(opts.measures, compat=opts.compat):
            self.rows.extend(
                trec_names.expand(
                    name, raw, rel_level=opts.relevance_level, c_floats=True, strict=False
                )
            )
        # The qrels and the options they are scored with; None for the grouped formats, which
        # read their own.
        self.judgments: Judgments | None = None
        self.options: EvalOptions | None = None
        if opts.qrels_format not in ("prefs", "qrels_prefs", "qrels_jg"):
            grouped = next((r.trec for r in self.rows if r.family != "ranked"), None)
            if grouped is not None:
                raise EvaluationError(
                    f"trec_eval: measure '{grouped}' needs -R prefs, qrels_prefs or qrels_jg"
                )
            self.options = EvalOptions(
                missing="zero" if opts.complete else "skip",
                depth=opts.depth,
                judged_only=opts.judged_only,
                float32=opts.compat == 9,
                duplicates="error",  # trec_eval stops at a repeated judgment (exit 4)
            )
            self.judgments = Judgments.of(opts.qrels, self.options)
        self._decimal: list[str] = []  # the decimal-label warning, once worked out

    @property
    def evaluator(self) -> Evaluator | None:
        """Deprecated (CHANGELOG.md): the qrels and options are :attr:`judgments` and
        :attr:`options`. An :class:`~cranfield.evaluation.evaluator.Evaluator` of them,
        sharing the qrels once read (``None`` for the grouped formats)."""
        from cranfield._deprecation import warn_renamed
        from cranfield.evaluation.evaluator import Evaluator

        warn_renamed("TrecEval.evaluator", "TrecEval.judgments and TrecEval.options")
        if self.judgments is None or self.options is None:
            return None
        evaluator = Evaluator(self.opts.qrels, [], self.options)
        evaluator.judgments = self.judgments  # read once, shared
        return evaluator

    def prepare(self) -> TrecEval:
        """Read the qrels now (before this object is sent to worker processes)."""
        if self.judgments is not None:
            self.judgments.prepare()
        return self

    def output(self, run: str) -> TrecEvalOutput:
        """What trec_eval prints for the run file ``run``."""
        if self.judgments is None or self.options is None:
            return _run_grouped(dataclasses.replace(self.opts, run=run), self.rows)
        opts = self.opts
        warnings: list[str] = []
        ranking, qrels_topics, positives = _ranked(self.judgments, self.options, run)
        if ranking.judgments.gains is not None:
            # trec_eval reads a label with atol: its integer part, the level already ranked.
            plain = dataclasses.replace(ranking.judgments, gains=None, labels=None)
            ranking = dataclasses.replace(ranking, judgments=plain)
            if not self._decimal:
                self._decimal.append(_decimal_label_warning(opts.qrels))
            warnings.append(self._decimal[0])
        if not opts.complete:
            absent = sorted(set(qrels_topics) - set(ranking.topics))
            if absent:
                warnings.append(
                    f"cranfield trec-eval: {len(absent)} judged topic(s) absent from the run "
                    f"were skipped ({', '.join(absent[:5])}{' ...' if len(absent) > 5 else ''}); "
                    "use -c to score them 0."
                )
        if ranking.num_topics == 0:
            raise EvaluationError("trec_eval: No queries with both results and relevance info")

        ctx = EvalContext(ranking, compat=opts.compat, num_docs=opts.num_docs)
        topic_values: list[tuple[TrecOutput, NDArray[np.float64] | list[str]]] = []
        for row in self.rows:
            if row.measure is not None:
                values = compute(ctx, row.measure, relevance_level=opts.relevance_level)
                if row.summary == "gmean":
                    values = log_clamped(values)
                topic_values.append((row, values))
            elif row.trec == "relstring":
                topic_values.append((row, _relstrings(ctx, int(row.arg))))
            else:  # runid: the run tag, printed by _emit
                topic_values.append((row, []))

        printable = (
            ~ranking.missing if opts.compat == 9 else np.ones(ranking.num_topics, dtype=bool)
        )
        text = _emit(
            opts,
            ranking.topics,
            topic_values,
            printable,
            ranking.run_tag,
            num_rel_override=positives if opts.complete else None,
        )
        return TrecEvalOutput(text, warnings)


def output_of(bound: TrecEval, run: str) -> TrecEvalOutput:
    """:meth:`TrecEval.output` as the module-level function an engine maps over run files
    (:mod:`cranfield.evaluation.engines`)."""
    return bound.output(run)


def run(opts: TrecEvalOptions) -> TrecEvalOutput:
    """Evaluate as trec_eval would and return its output text."""
    return TrecEval(opts).output(opts.run)


def _decimal_label_warning(qrels: str) -> str:
    """The warning naming the first decimal relevance label of the qrels file ``qrels``."""
    from cranfield.io.lines import BOM
    from cranfield.io.trec import first_decimal_label

    label = source_name(qrels)
    line, text = first_decimal_label(read_bytes(qrels).removeprefix(BOM), label)
    return (
        f"cranfield trec-eval: warning: {label}:{line}: relevance {text!r} read as "
        f"{int(float(text))}, as trec_eval's atol reads it (decimal labels are truncated)"
    )


def _ranked(judgments: Judgments, options: EvalOptions, run: str) -> tuple[Ranking, list[str], int]:
    """The ranking of ``run``, the qrels topics and the number of judgments with relevance
    > 0.

    Loaded and ranked as every evaluation is (:func:`~cranfield.evaluation.ranked.rank_run`,
    what :meth:`Evaluator.ranking <cranfield.evaluation.evaluator.Evaluator.ranking>` calls):
    small clean files with numpy alone, any others with polars, to the same ranking;
    trec_eval 9 rounds scores to float32 first. Only the core's pieces are imported, not the
    evaluator with its machinery for many runs: trec_eval scores one run at a time.
    """
    with warnings.catch_warnings():  # trec_eval's own warning names a decimal label (output)
        warnings.simplefilter("ignore", QrelsNoteWarning)
        ranking = rank_run(run, judgments, options).ranking
        return ranking, judgments.judged_topics(), judgments.count_relevant()


def _emit(
    opts: TrecEvalOptions,
    topics: list[str],
    topic_values: list[tuple[TrecOutput, NDArray[np.float64] | list[str]]],
    printable: NDArray[np.bool_],
    run_tag: str,
    *,
    num_rel_override: int | None,
) -> str:
    """trec_eval's output: per-topic blocks (with -q) then the summary block."""
    zscores = _read_zscores(opts.zscores) if opts.zscores else None
    lines: list[str] = []
    if zscores is not None:
        topic_values = [(r, _to_z(r, v, topics, zscores)) for r, v in topic_values]
    if opts.per_query:
        for i, topic in enumerate(topics):
            if not printable[i]:
                continue
            for row, values in topic_values:
                if not row.per_topic or row.trec == "runid":
                    continue
                label = _label(row, zscores is not None and row.trec != "relstring")
                if row.trec == "relstring":
                    lines.append(format_line(label, topic, f"'{values[i]}'"))
                else:
                    v = float(values[i])
                    lines.append(
                        format_line(label, topic, v, integer=row.integer and zscores is None)
                    )
    if not opts.no_summary:
        for row, values in topic_values:
            if row.trec == "relstring":
                continue
            if row.trec == "runid":
                lines.append(format_line("runid", "all", run_tag))
                continue
            label = _label(row, zscores is not None)
            value = _summary(row, values, len(topics), qrels_rel_count=num_rel_override)  # type: ignore[arg-type]
            lines.append(format_line(label, "all", value, integer=row.integer and zscores is None))
    return "".join(line + "\n" for line in lines)


def _label(row: TrecOutput, z: bool) -> str:
    # trec_eval prints "Z" in front of the already padded name.
    return "Z" + f"{row.label:<22}" if z else row.label


def _summary(
    row: TrecOutput, values: NDArray[np.float64], n: int, *, qrels_rel_count: int | None
) -> float:
    if row.summary == "count":
        return float(n)
    if row.summary == "gmean":
        return math.exp(sequential_sum(values) / n) if n else math.nan
    if row.trec == "num_rel" and qrels_rel_count is not None:
        # trec_eval -c recomputes the summary from the whole qrels file, counting rel > 0.
        return float(qrels_rel_count)
    return aggregate(values, "sum" if row.summary == "sum" else "mean")


def _relstrings(ctx: EvalContext, length: int) -> list[str]:
    out = []
    for t in range(ctx.n_topics):
        codes = ctx.rel[ctx.offsets[t] : ctx.offsets[t] + min(length, int(ctx.lengths[t]))]
        chars = []
        for c in codes.tolist():
            if 0 <= c <= 9:
                chars.append(str(c))
            elif c > 9:
                chars.append(">")
            elif c == NOT_IN_POOL:
                chars.append("-")
            elif c == UNJUDGED:
                chars.append(".")
            else:  # pragma: no cover - no other codes exist
                chars.append("<")
        out.append("" if ctx.ranking.missing[t] else "".join(chars))
    return out


def _read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    label = source_name(path)
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw in enumerate(read_bytes(path).decode("utf-8", "replace").splitlines(), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise InputError(
                label, number, f"expected 4 fields (qid measure mean sd), got {len(fields)}", raw
            )
        try:
            table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise InputError(label, number, "mean and sd must be numbers", raw) from None
    return table


def _to_z(
    row: TrecOutput,
    values: NDArray[np.float64] | list[str],
    topics: list[str],
    zscores: dict[tuple[str, str], tuple[float, float]],
) -> NDArray[np.float64] | list[str]:
    if row.trec in ("runid", "relstring"):
        return values
    out = np.empty(len(topics))
    for i, topic in enumerate(topics):
        v = float(values[i])
        ms = zscores.get((topic, row.label))
        if ms is None:
            out[i] = MISSING_ZSCORE
        elif ms[1]:
            out[i] = (v - ms[0]) / ms[1]
        else:
            out[i] = 0.0 if v == ms[0] else MISSING_ZSCORE
    return out


def _run_grouped(opts: TrecEvalOptions, rows: list[TrecOutput]) -> TrecEvalOutput:
    """``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``: judgments in groups."""
    from cranfield.io.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
    from cranfield.io.trec import read_run
    from cranfield.kernels.judgment_groups import evaluate_judgment_groups
    from cranfield.kernels.prefs import evaluate_prefs

    if opts.judged_only:
        raise EvaluationError(f"trec_eval: -J is not supported with -R {opts.qrels_format}")
    is_prefs = opts.qrels_format != "qrels_jg"
    wrong = [
        r.trec
        for r in rows
        if r.family not in ("prefs" if is_prefs else "jg", "ranked")
        or (r.family == "ranked" and r.trec not in ("runid", "num_q"))
    ]
    if wrong:
        raise EvaluationError(
            f"trec_eval: measure '{wrong[0]}' cannot be computed with -R {opts.qrels_format}"
        )
    judgments = (
        read_prefs(opts.qrels)
        if opts.qrels_format == "prefs"
        else read_qrels_prefs(opts.qrels)
        if opts.qrels_format == "qrels_prefs"
        else read_qrels_jg(opts.qrels)
    )
    the_run = read_run(opts.run, float32=opts.compat == 9)
    # trec_eval's preference code breaks score ties by docno ascending; everything else descending.
    ranked = ranked_doc_ids(the_run, ascending_ties=is_prefs, depth=opts.depth)
    judged_topics = judgments.get_column("query_id").unique().sort().to_list()
    warnings: list[str] = []
    absent = [t for t in judged_topics if t not in ranked]
    missing_set = set(absent) if opts.complete else set()
    if opts.complete:
        for t in absent:
            ranked[t] = []
    elif absent:
        warnings.append(
            f"cranfield trec-eval: {len(absent)} judged topic(s) absent from the run were skipped "
            f"({', '.join(absent[:5])}{' ...' if len(absent) > 5 else ''}); use -c to score them 0."
        )
    if is_prefs:
        topics, values = evaluate_prefs(judgments, ranked)
    else:
        p_cuts = [int(r.arg) for r in rows if r.trec == "P_avgjg"] or [1]
        mults = [float(r.arg) for r in rows if r.trec == "Rprec_mult_avgjg"] or [1.0]
        topics, values = evaluate_judgment_groups(
            judgments,
            ranked,
            relevance_level=opts.relevance_level,
            cutoffs=p_cuts,
            multipliers=mults,
        )
    if not topics:
        raise EvaluationError("trec_eval: No queries with both results and relevance info")
    topic_values: list[tuple[TrecOutput, NDArray[np.float64] | list[str]]] = []
    for row in rows:
        if row.trec == "runid":
            topic_values.append((row, []))
        elif row.trec == "num_q":
            topic_values.append((row, np.ones(len(topics))))
        else:
            topic_values.append((row, values[row.label]))
    printable = np.array([not (opts.compat == 9 and t in missing_set) for t in topics], dtype=bool)
    return TrecEvalOutput(
        _emit(opts, topics, topic_values, printable, the_run.tag, num_rel_override=None), warnings
    )


__all__ = ["TrecEval", "TrecEvalOptions", "TrecEvalOutput", "output_of", "run", "select"]
