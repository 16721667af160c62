"""Every option of the public API refuses a bad value the same way.

In the style of scikit-learn's ``tests/test_public_functions.py``: :data:`ROWS` lists, for
each option a public callable checks, a bad value and a call with minimal valid arguments;
each must raise :class:`~cranfield.errors.OptionError` (a ``ValueError`` and a
``TypeError`` too) whose message starts ``The '<option>' option must be``.

A walk over the ``__all__`` of the public modules reads every signature and fails when a
public function, class or method has an ``int``, ``float`` or ``Literal`` option without a
row (or a waiver saying why it is not an option). Annotations are strings
(``from __future__ import annotations``); they are evaluated in their module, the names it
imports under ``TYPE_CHECKING`` included, so an annotation that cannot be read fails the walk
instead of hiding an option. ``**kwargs: Unpack[EvalKwargs]`` (or ``TestKwargs``) counts as
the options of :class:`EvalOptions` (or :class:`TestPlan`): the callable needs one row that
shows it hands them to that object, and the object a row for each of its own options.
``**kwargs: Any`` cannot be read; such a callable forwards to one that is walked.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import sys
import tempfile
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import cranfield
from cranfield import curves, plot, stats
from cranfield import lab as lab_api
from cranfield.errors import OptionError
from cranfield.evaluation.options import EvalKwargs, EvalOptions
from cranfield.io.load import load_qrels, load_run
from cranfield.io.trec import read_qrels
from cranfield.report.html import html_report
from cranfield.stats.plan import TestKwargs, TestPlan
from tests.conftest import REPO

MODULES = ("cranfield", "cranfield.stats", "cranfield.curves", "cranfield.plot", "cranfield.lab")
OPTION_OBJECTS: dict[Any, type] = {EvalKwargs: EvalOptions, TestKwargs: TestPlan}

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1, "d4": 1}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "x": 1.0}}
RUN2 = {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}
SCORES = {"a": {"AP": [0.1, 0.4, 0.3]}, "b": {"AP": [0.2, 0.5, 0.2]}}
X, Y = [0.1, 0.4, 0.3, 0.8], [0.2, 0.5, 0.2, 0.6]


@functools.cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="cranfield-options-"))


def _run_file() -> str:
    path = _folder() / "run.txt"
    path.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n")
    return str(path)


def _qrels_file() -> str:
    path = _folder() / "qrels.txt"
    path.write_text("q1 0 d1 1\n")
    return str(path)


def _differences() -> stats.QueryDifferences:
    return stats.query_differences(["a", "b"], [0.1, 0.4], [0.3, 0.2])


def _collection() -> lab_api.Collection:
    docs = [lab_api.Document("d1", "wing lift")]
    return lab_api.Collection.from_documents("toy", docs, [lab_api.Topic("q1", "wing")], QRELS)


def _experiment(**options: Any) -> lab_api.Experiment:
    system = lab_api.CallableSystem("c", lambda query, k: [])
    return lab_api.Experiment(_collection(), [system], ["AP"], **options)


def _pool() -> lab_api.Pool:
    return lab_api.pool({"a": RUN}, depth=1)


@dataclass(frozen=True)
class Row:
    """``call(bad)`` passes ``bad`` as ``option`` of ``target``; the rest is minimal and valid."""

    target: Any
    option: str
    bad: object
    call: Callable[[object], object]

    @property
    def id(self) -> str:
        return f"{self.target.__qualname__}-{self.option}-{self.bad!r}"


ROWS: list[Row] = [
    # ------------------------------------------------------------ the options objects
    Row(EvalOptions, "missing", "drop", lambda v: EvalOptions(missing=v)),
    Row(EvalOptions, "relevance_level", 1.5, lambda v: EvalOptions(relevance_level=v)),
    Row(EvalOptions, "judged_only", 1, lambda v: EvalOptions(judged_only=v)),
    Row(EvalOptions, "depth", -1, lambda v: EvalOptions(depth=v)),
    Row(EvalOptions, "float32", "yes", lambda v: EvalOptions(float32=v)),
    Row(EvalOptions, "compat", 8, lambda v: EvalOptions(compat=v)),
    Row(EvalOptions, "num_docs", -5, lambda v: EvalOptions(num_docs=v)),
    Row(EvalOptions, "aggregate", "harmonic", lambda v: EvalOptions(aggregate=v)),
    Row(EvalOptions, "epsilon", 0.0, lambda v: EvalOptions(epsilon=v)),
    Row(EvalOptions, "duplicates", "mean", lambda v: EvalOptions(duplicates=v)),
    Row(EvalOptions, "ignore_self", "yes", lambda v: EvalOptions(ignore_self=v)),
    Row(EvalOptions, "qrels_format", "xlsx", lambda v: EvalOptions(qrels_format=v)),
    Row(EvalOptions, "run_format", "xlsx", lambda v: EvalOptions(run_format=v)),
    Row(read_qrels, "duplicates", "mean", lambda v: read_qrels(_qrels_file(), duplicates=v)),
    Row(load_qrels, "duplicates", "mean", lambda v: load_qrels(_qrels_file(), duplicates=v)),
    Row(load_qrels, "format", "xlsx", lambda v: load_qrels(_qrels_file(), format=v)),
    Row(load_run, "format", "xlsx", lambda v: load_run(_run_file(), format=v)),
    Row(TestPlan, "tests", "z-test", lambda v: TestPlan(tests=v)),
    Row(TestPlan, "correction", "sidak", lambda v: TestPlan(correction=v)),
    Row(TestPlan, "alpha", 1.5, lambda v: TestPlan(alpha=v)),
    Row(TestPlan, "seed", -3, lambda v: TestPlan(seed=v)),
    Row(TestPlan, "n_resamples", 0, lambda v: TestPlan(n_resamples=v)),
    Row(TestPlan, "intervals", "wald", lambda v: TestPlan(intervals=v)),
    Row(TestPlan, "risk_aversion", -1, lambda v: TestPlan(risk_aversion=v)),
    # ------------------------------------------------------------ cranfield
    Row(cranfield.evaluate, "depth", -1, lambda v: cranfield.evaluate(QRELS, RUN, "AP", depth=v)),
    Row(
        cranfield.evaluate_stream,
        "block_bytes",
        0,
        lambda v: cranfield.evaluate_stream(QRELS, _run_file(), "AP", block_bytes=v),
    ),
    Row(
        cranfield.evaluate_stream,
        "missing",
        "drop",
        lambda v: cranfield.evaluate_stream(QRELS, _run_file(), "AP", missing=v),
    ),
    Row(
        cranfield.compare,
        "baseline",
        5,
        lambda v: cranfield.compare(QRELS, {"a": RUN, "b": RUN2}, "AP", baseline=v),
    ),
    Row(
        cranfield.compare,
        "baseline",
        "zz",
        lambda v: cranfield.compare(QRELS, {"a": RUN, "b": RUN2}, "AP", baseline=v),
    ),
    Row(
        cranfield.compare,
        "names",
        "tags",
        lambda v: cranfield.compare(QRELS, [RUN, RUN2], "AP", names=v),
    ),
    Row(
        cranfield.compare,
        "depth",
        -1,
        lambda v: cranfield.compare(QRELS, {"a": RUN, "b": RUN2}, "AP", depth=v),
    ),
    Row(
        cranfield.compare,
        "alpha",
        2,
        lambda v: cranfield.compare(QRELS, {"a": RUN, "b": RUN2}, "AP", alpha=v),
    ),
    Row(
        cranfield.Results.aggregate,
        "how",
        "harmonic",
        lambda v: cranfield.evaluate(QRELS, RUN, "AP").aggregate("AP", v),
    ),
    Row(
        cranfield.Results.aggregate,
        "epsilon",
        0.0,
        lambda v: cranfield.evaluate(QRELS, RUN, "AP").aggregate("AP", "gmean", epsilon=v),
    ),
    Row(cranfield.Evaluator, "depth", -1, lambda v: cranfield.Evaluator(QRELS, "AP", depth=v)),
    Row(
        cranfield.Evaluator.each,
        "block_bytes",
        0,
        lambda v: list(cranfield.Evaluator(QRELS, "AP").each([RUN], block_bytes=v)),
    ),
    Row(
        cranfield.Evaluator.each,
        "names",
        "tags",
        lambda v: list(cranfield.Evaluator(QRELS, "AP").each([RUN], names=v)),
    ),
    Row(
        cranfield.Evaluator.each,
        "jobs",
        -1,
        lambda v: list(cranfield.Evaluator(QRELS, "AP").each([RUN], jobs=v)),
    ),
    Row(
        cranfield.Evaluator.many,
        "jobs",
        -2,
        lambda v: cranfield.Evaluator(QRELS, "AP").many([RUN], jobs=v),
    ),
    Row(
        cranfield.Evaluator.many,
        "scheduler",
        "",
        lambda v: cranfield.Evaluator(QRELS, "AP").many([RUN], scheduler=v),
    ),
    Row(
        cranfield.Evaluator.evaluate_dataset,
        "jobs",
        -1,
        lambda v: cranfield.Evaluator(QRELS, "AP").evaluate_dataset("lake/*.parquet", jobs=v),
    ),
    Row(cranfield.compare, "jobs", -1, lambda v: cranfield.compare(QRELS, [RUN, RUN2], jobs=v)),
    Row(
        html_report,
        "jobs",
        1.5,
        lambda v: html_report(QRELS, [RUN, RUN2], jobs=v),
    ),
    Row(
        cranfield.Evaluator.many,
        "block_bytes",
        0,
        lambda v: cranfield.Evaluator(QRELS, "AP").many([RUN], block_bytes=v),
    ),
    Row(
        cranfield.Evaluator.many,
        "names",
        "tags",
        lambda v: cranfield.Evaluator(QRELS, "AP").many([RUN], names=v),
    ),
    Row(
        cranfield.Evaluator.stream,
        "block_bytes",
        0,
        lambda v: cranfield.Evaluator(QRELS, "AP").stream(_run_file(), block_bytes=v),
    ),
    Row(cranfield.RunSet.of, "names", "tags", lambda v: cranfield.RunSet.of([RUN], v)),
    Row(
        cranfield.evaluate_many,
        "depth",
        -1,
        lambda v: cranfield.evaluate_many(QRELS, [RUN], "AP", depth=v),
    ),
    Row(
        cranfield.evaluate_many,
        "names",
        "tags",
        lambda v: cranfield.evaluate_many(QRELS, [RUN], "AP", names=v),
    ),
    Row(
        cranfield.evaluate_many,
        "jobs",
        -1,
        lambda v: cranfield.evaluate_many(QRELS, [RUN], "AP", jobs=v),
    ),
    Row(
        cranfield.save_qrels,
        "format",
        "xlsx",
        lambda v: cranfield.save_qrels(QRELS, _folder() / "saved.qrels", format=v),
    ),
    Row(
        cranfield.save_run,
        "format",
        "xlsx",
        lambda v: cranfield.save_run(RUN, _folder() / "saved.run", format=v),
    ),
    # ------------------------------------------------------------ cranfield.stats
    Row(
        stats.Comparison.to_json,
        "indent",
        -1,
        lambda v: stats.compare_scores(SCORES).to_json(indent=v),
    ),
    Row(
        stats.Comparison.significant,
        "test",
        "sign",
        lambda v: stats.compare_scores(SCORES).significant(v),
    ),
    Row(
        stats.Comparison.differences,
        "control",
        "zz",
        lambda v: stats.compare_scores(SCORES).differences(v, "b", "AP"),
    ),
    Row(stats.QueryDifferences.sorted, "by", "size", lambda v: _differences().sorted(v)),
    Row(stats.QueryDifferences.to_text, "width", 4, lambda v: _differences().to_text(width=v)),
    Row(stats.QueryDifferences.to_text, "sort", "size", lambda v: _differences().to_text(sort=v)),
    Row(stats.QueryDifferences.histogram, "bins", 0, lambda v: _differences().histogram(v)),
    Row(
        stats.QueryDifferences.histogram, "bins", [0.5, 0.1], lambda v: _differences().histogram(v)
    ),
    Row(
        stats.QueryDifferences.histogram_text, "bins", 0, lambda v: _differences().histogram_text(v)
    ),
    Row(
        stats.QueryDifferences.histogram_text,
        "width",
        0,
        lambda v: _differences().histogram_text(width=v),
    ),
    Row(stats.adjust_p_values, "method", "sidak", lambda v: stats.adjust_p_values([0.1], v)),
    Row(
        stats.bootstrap_test, "n_resamples", 0, lambda v: stats.bootstrap_test(X, Y, n_resamples=v)
    ),
    Row(stats.bootstrap_test, "seed", -1, lambda v: stats.bootstrap_test(X, Y, seed=v)),
    Row(stats.compare_scores, "baseline", 2, lambda v: stats.compare_scores(SCORES, baseline=v)),
    Row(
        stats.compare_scores,
        "topics",
        ["q", "q", "q"],
        lambda v: stats.compare_scores(SCORES, topics=v),
    ),
    Row(stats.compare_scores, "tests", "z", lambda v: stats.compare_scores(SCORES, tests=v)),
    Row(
        stats.confidence_interval,
        "method",
        "wald",
        lambda v: stats.confidence_interval(X, Y, method=v),
    ),
    Row(
        stats.confidence_interval,
        "confidence",
        1.0,
        lambda v: stats.confidence_interval(X, Y, confidence=v),
    ),
    Row(
        stats.confidence_interval,
        "n_resamples",
        0,
        lambda v: stats.confidence_interval(X, Y, n_resamples=v),
    ),
    Row(stats.confidence_interval, "seed", "x", lambda v: stats.confidence_interval(X, Y, seed=v)),
    Row(stats.effect_sizes, "alpha", 0, lambda v: stats.effect_sizes(X, Y, alpha=v)),
    Row(
        stats.effect_sizes,
        "risk_aversion",
        -0.5,
        lambda v: stats.effect_sizes(X, Y, risk_aversion=v),
    ),
    Row(
        stats.randomization_test,
        "n_resamples",
        0,
        lambda v: stats.randomization_test(X, Y, n_resamples=v),
    ),
    Row(stats.randomization_test, "seed", 1.5, lambda v: stats.randomization_test(X, Y, seed=v)),
    Row(
        stats.randomization_test,
        "exact",
        True,
        lambda v: stats.randomization_test([0.1] * 30, [0.2] * 30, exact=v),
    ),
    Row(
        stats.randomized_tukey_hsd,
        "n_resamples",
        0,
        lambda v: stats.randomized_tukey_hsd([X, Y, X], n_resamples=v),
    ),
    Row(
        stats.randomized_tukey_hsd,
        "seed",
        -2,
        lambda v: stats.randomized_tukey_hsd([X, Y, X], seed=v),
    ),
    Row(stats.resolve_seed, "seed", True, stats.resolve_seed),
    Row(stats.studentized_range_sf, "k", 1, lambda v: stats.studentized_range_sf(1.0, v, 10.0)),
    Row(stats.studentized_range_sf, "df", 0, lambda v: stats.studentized_range_sf(1.0, 3, v)),
    Row(
        stats.wilcoxon_test,
        "zero_method",
        "drop",
        lambda v: stats.wilcoxon_test(X, Y, zero_method=v),
    ),
    # ------------------------------------------------------------ cranfield.curves
    Row(curves.gain_curves, "max_rank", 0, lambda v: curves.gain_curves(QRELS, RUN, max_rank=v)),
    Row(curves.gain_curves, "base", 1, lambda v: curves.gain_curves(QRELS, RUN, base=v)),
    Row(curves.gain_curves, "depth", -1, lambda v: curves.gain_curves(QRELS, RUN, depth=v)),
    Row(
        curves.interpolated_pr,
        "rule",
        "nearest",
        lambda v: curves.interpolated_pr(QRELS, RUN, rule=v),
    ),
    Row(
        curves.interpolated_pr,
        "levels",
        (0.5, 1.5),
        lambda v: curves.interpolated_pr(QRELS, RUN, levels=v),
    ),
    Row(
        curves.interpolated_pr, "compat", 8, lambda v: curves.interpolated_pr(QRELS, RUN, compat=v)
    ),
    Row(
        curves.mean_interpolated_pr,
        "rule",
        "nearest",
        lambda v: curves.mean_interpolated_pr(QRELS, RUN, rule=v),
    ),
    Row(
        curves.mean_gain_curves,
        "normalise",
        "max",
        lambda v: curves.mean_gain_curves(QRELS, RUN, normalise=v),
    ),
    Row(
        curves.mean_gain_curves,
        "max_rank",
        0,
        lambda v: curves.mean_gain_curves(QRELS, RUN, max_rank=v),
    ),
    Row(curves.pr_points, "depth", -1, lambda v: curves.pr_points(QRELS, RUN, depth=v)),
    Row(
        curves.summary_table,
        "missing",
        "drop",
        lambda v: curves.summary_table(QRELS, RUN, missing=v),
    ),
    # ------------------------------------------------------------ cranfield.plot
    Row(
        plot.difference_bars, "sort", "size", lambda v: plot.difference_bars(_differences(), sort=v)
    ),
    Row(
        plot.difference_bars,
        "max_labels",
        -1,
        lambda v: plot.difference_bars(_differences(), max_labels=v),
    ),
    Row(plot.gain_curve, "max_rank", 0, lambda v: plot.gain_curve(QRELS, [RUN], max_rank=v)),
    Row(plot.gain_curve, "kind", "err", lambda v: plot.gain_curve(QRELS, [RUN], kind=v)),
    Row(plot.gain_curve, "normalise", "max", lambda v: plot.gain_curve(QRELS, [RUN], normalise=v)),
    Row(plot.gain_curve, "names", "tags", lambda v: plot.gain_curve(QRELS, [RUN], names=v)),
    Row(plot.gain_curve, "depth", -1, lambda v: plot.gain_curve(QRELS, [RUN], depth=v)),
    Row(plot.pr_curve, "rule", "nearest", lambda v: plot.pr_curve(QRELS, [RUN], rule=v)),
    Row(plot.pr_curve, "levels", [2.0], lambda v: plot.pr_curve(QRELS, [RUN], levels=v)),
    Row(plot.pr_curve, "names", "tags", lambda v: plot.pr_curve(QRELS, [RUN], names=v)),
    Row(plot.pr_curve, "compat", 8, lambda v: plot.pr_curve(QRELS, [RUN], compat=v)),
    Row(
        plot.query_pr_curve,
        "names",
        "tags",
        lambda v: plot.query_pr_curve(QRELS, [RUN], "q1", names=v),
    ),
    Row(
        plot.query_pr_curve,
        "relevance_level",
        "1",
        lambda v: plot.query_pr_curve(QRELS, [RUN], "q1", relevance_level=v),
    ),
    Row(
        plot.score_distribution,
        "kind",
        "violin",
        lambda v: plot.score_distribution(stats.compare_scores(SCORES), kind=v),
    ),
    # ------------------------------------------------------------ report (not walked)
    Row(html_report, "max_rank", 0, lambda v: html_report(QRELS, [RUN, RUN2], max_rank=v)),
    Row(html_report, "diff", ["zz", 0], lambda v: html_report(QRELS, [RUN, RUN2], diff=v)),
    Row(html_report, "page_size", 0, lambda v: html_report(QRELS, [RUN, RUN2], page_size=v)),
    Row(html_report, "rule", "x", lambda v: html_report(QRELS, [RUN, RUN2], rule=v)),
    Row(html_report, "levels", [-1], lambda v: html_report(QRELS, [RUN, RUN2], levels=v)),
    # ------------------------------------------------------------ cranfield.lab
    Row(lab_api.BM25S, "k1", -1, lambda v: lab_api.BM25S(k1=v)),
    Row(lab_api.BM25S, "b", 2, lambda v: lab_api.BM25S(b=v)),
    Row(lab_api.BM25S, "stemmer", "klingon", lambda v: lab_api.BM25S(stemmer=v)),
    Row(lab_api.BM25S, "method", "bm99", lambda v: lab_api.BM25S(method=v)),
    Row(lab_api.BM25S, "name", "two words", lab_api.BM25S),
    Row(lab_api.BM25S.search, "k", 0, lambda v: lab_api.BM25S().search("wing", v)),
    Row(lab_api.CallableSystem, "search", "not callable", lambda v: lab_api.CallableSystem("c", v)),
    Row(
        lab_api.CallableSystem.search,
        "k",
        0,
        lambda v: lab_api.CallableSystem("c", lambda q, k: []).search("q", v),
    ),
    Row(
        lab_api.HTTPSystem,
        "timeout",
        0,
        lambda v: lab_api.HTTPSystem("h", "http://localhost/?q={query}", timeout=v),
    ),
    Row(lab_api.HTTPSystem, "url", "ftp://x/{query}", lambda v: lab_api.HTTPSystem("h", v)),
    Row(
        lab_api.HTTPSystem,
        "max_response_bytes",
        0,
        lambda v: lab_api.HTTPSystem("h", "http://localhost/?q={query}", max_response_bytes=v),
    ),
    Row(
        lab_api.HTTPSystem,
        "redirects",
        "always",
        lambda v: lab_api.HTTPSystem("h", "http://localhost/?q={query}", redirects=v),
    ),
    Row(
        lab_api.HTTPSystem,
        "headers",
        {"X-Api-Key": 1},
        lambda v: lab_api.HTTPSystem("h", "http://localhost/?q={query}", headers=v),
    ),
    Row(
        lab_api.HTTPSystem.search,
        "k",
        0,
        lambda v: lab_api.HTTPSystem("h", "http://localhost/?q={query}").search("q", v),
    ),
    Row(lab_api.SQLiteFTS5, "tokenizer", "it's", lambda v: lab_api.SQLiteFTS5(tokenizer=v)),
    Row(lab_api.SQLiteFTS5.search, "k", 0, lambda v: lab_api.SQLiteFTS5().search("wing", v)),
    Row(lab_api.Tantivy, "heap_size", 10, lambda v: lab_api.Tantivy(heap_size=v)),
    Row(lab_api.Tantivy, "threads", 0, lambda v: lab_api.Tantivy(threads=v)),
    Row(lab_api.Tantivy.search, "k", 0, lambda v: lab_api.Tantivy().search("wing", v)),
    Row(lab_api.Collection.queries, "field", "body", lambda v: _collection().queries(v)),
    Row(lab_api.Topic.query, "field", "body", lambda v: lab_api.Topic("q", "t").query(v)),
    Row(lab_api.Experiment, "k", 0, lambda v: _experiment(k=v)),
    Row(lab_api.Experiment, "query_field", "body", lambda v: _experiment(query_field=v)),
    Row(lab_api.Experiment, "alpha", 1, lambda v: _experiment(alpha=v)),
    Row(lab_api.Experiment, "seed", -1, lambda v: _experiment(seed=v)),
    Row(lab_api.Experiment, "warmup", -1, lambda v: _experiment(warmup=v)),
    Row(lab_api.Experiment, "repetitions", 0, lambda v: _experiment(repetitions=v)),
    Row(lab_api.Experiment, "concurrency", [0], lambda v: _experiment(concurrency=v)),
    Row(lab_api.Experiment, "throughput_passes", 0, lambda v: _experiment(throughput_passes=v)),
    Row(
        lab_api.Experiment, "throughput_seconds", -1.0, lambda v: _experiment(throughput_seconds=v)
    ),
    Row(lab_api.Experiment, "baseline", "zz", lambda v: _experiment(baseline=v)),
    Row(lab_api.Experiment, "tests", "z-test", lambda v: _experiment(tests=v)),
    Row(lab_api.Experiment, "jobs", -1, lambda v: _experiment(jobs=v)),
    Row(lab_api.Pool.to_qrels, "relevance", 0.5, lambda v: _pool().to_qrels(v)),
    Row(lab_api.Pool.export, "seed", -1, lambda v: _pool().export(_folder() / "pool.txt", seed=v)),
    Row(lab_api.Pool.shuffled, "seed", -1, lambda v: _pool().shuffled(v)),
    Row(
        stats.judge_agreement.agree,
        "relevance_level",
        0,
        lambda v: stats.judge_agreement.agree([QRELS, QRELS], relevance_level=v),
    ),
    Row(
        stats.judge_agreement.cohen_kappa,
        "distance",
        "euclid",
        lambda v: stats.judge_agreement.cohen_kappa([0, 1], [1, 0], distance=v),
    ),
    Row(
        stats.effects.georisk,
        "risk_aversion",
        -1.0,
        lambda v: stats.effects.georisk([[0.5, 0.25], [0.75, 0.5]], risk_aversion=v),
    ),
    Row(
        lab_api.Pool.export,
        "format",
        "csv",
        lambda v: _pool().export(_folder() / "pool.txt", seed=0, format=v),
    ),
    Row(lab_api.Pool.unique_documents, "run", "zz", lambda v: _pool().unique_documents(v)),
    Row(
        lab_api.ThroughputStats.at,
        "level",
        3,
        lambda v: lab_api.ThroughputStats((1,), (1,), (1.0,), 1).at(v),
    ),
    Row(
        lab_api.cross_validate,
        "n_folds",
        1,
        lambda v: lab_api.cross_validate(QRELS, {"a": RUN}, n_folds=v),
    ),
    Row(
        lab_api.cross_validate,
        "seed",
        -1,
        lambda v: lab_api.cross_validate(QRELS, {"a": RUN}, seed=v),
    ),
    Row(
        lab_api.cross_validate,
        "depth",
        -1,
        lambda v: lab_api.cross_validate(QRELS, {"a": RUN}, depth=v),
    ),
    Row(
        lab_api.cross_validate_scores,
        "n_folds",
        3,
        lambda v: lab_api.cross_validate_scores({"a": {"q1": 1.0, "q2": 0.5}}, n_folds=v),
    ),
    Row(
        lab_api.cross_validate_scores,
        "seed",
        "s",
        lambda v: lab_api.cross_validate_scores({"a": {"q1": 1.0, "q2": 0.5}}, n_folds=2, seed=v),
    ),
    Row(
        lab_api.cross_validate_scores,
        "folds",
        [["q1"]],
        lambda v: lab_api.cross_validate_scores({"a": {"q1": 1.0, "q2": 0.5}}, folds=v),
    ),
    Row(
        lab_api.select,
        "train_topics",
        ["q9"],
        lambda v: lab_api.select({"a": {"q1": 1.0}}, train_topics=v),
    ),
    Row(lab_api.judged_at_k, "k", 0, lambda v: lab_api.judged_at_k(QRELS, [RUN], k=v)),
    Row(lab_api.judged_at_k, "jobs", -1, lambda v: lab_api.judged_at_k(QRELS, [RUN], jobs=v)),
    Row(lab_api.pool, "jobs", -1, lambda v: lab_api.pool([RUN], jobs=v)),
    Row(lab_api.leave_one_out, "jobs", -1, lambda v: lab_api.leave_one_out(QRELS, [RUN], jobs=v)),
    Row(
        lab_api.cross_validate,
        "jobs",
        -1,
        lambda v: lab_api.cross_validate(QRELS, {"a": RUN, "b": RUN2}, jobs=v),
    ),
    Row(
        lab_api.judged_at_k,
        "missing",
        "drop",
        lambda v: lab_api.judged_at_k(QRELS, [RUN], missing=v),
    ),
    Row(lab_api.kfold, "n_folds", 1, lambda v: lab_api.kfold(["a", "b"], v, seed=0)),
    Row(lab_api.kfold, "seed", -1, lambda v: lab_api.kfold(["a", "b"], 2, seed=v)),
    Row(lab_api.leave_one_out, "depth", 0, lambda v: lab_api.leave_one_out(QRELS, [RUN], depth=v)),
    Row(
        lab_api.measure_indexing,
        "collection_bytes",
        -1,
        lambda v: lab_api.measure_indexing(
            lab_api.SQLiteFTS5(),
            [],
            _folder() / "index",
            collection_bytes=v,
        ),
    ),
    Row(
        lab_api.measure_indexing,
        "total",
        -1,
        lambda v: lab_api.measure_indexing(lab_api.SQLiteFTS5(), [], _folder() / "index", total=v),
    ),
    Row(
        lab_api.measure_latency,
        "k",
        0,
        lambda v: lab_api.measure_latency(lab_api.CallableSystem("c", lambda q, k: []), ["a"], k=v),
    ),
    Row(
        lab_api.measure_latency,
        "warmup",
        -1,
        lambda v: lab_api.measure_latency(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            warmup=v,
        ),
    ),
    Row(
        lab_api.measure_latency,
        "repetitions",
        0,
        lambda v: lab_api.measure_latency(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            repetitions=v,
        ),
    ),
    Row(
        lab_api.measure_throughput,
        "k",
        0,
        lambda v: lab_api.measure_throughput(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            k=v,
        ),
    ),
    Row(
        lab_api.measure_throughput,
        "passes",
        0,
        lambda v: lab_api.measure_throughput(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            passes=v,
        ),
    ),
    Row(
        lab_api.measure_throughput,
        "min_seconds",
        -1,
        lambda v: lab_api.measure_throughput(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            min_seconds=v,
        ),
    ),
    Row(
        lab_api.measure_throughput,
        "concurrency",
        [],
        lambda v: lab_api.measure_throughput(
            lab_api.CallableSystem("c", lambda q, k: []),
            ["a"],
            concurrency=v,
        ),
    ),
    Row(
        lab_api.merge_judgments,
        "on_conflict",
        "newest",
        lambda v: lab_api.merge_judgments(QRELS, QRELS, on_conflict=v),
    ),
    Row(lab_api.pool, "depth", 0, lambda v: lab_api.pool([RUN], depth=v)),
    *(
        Row(
            lab_api.pool_study,
            option,
            bad,
            lambda v, o=option: lab_api.pool_study(
                [RUN, RUN2], **{"qrels": QRELS, "export": _folder() / "pool.txt", o: v}
            ),
        )
        for option, bad in (
            ("pool_depth", 0),
            ("names", "tags"),
            ("judged_k", 0),
            ("seed", -1),
            ("format", "csv"),
            ("jobs", -1),
            ("missing", "drop"),
        )
    ),
    Row(
        lab_api.PoolStudy.to_json,
        "indent",
        -1,
        lambda v: lab_api.pool_study([RUN], 1).to_json(indent=v),
    ),
]

# Public int/float/Literal parameters that are not options a caller chooses, and why.
# ------------------------------------------------------------ rank correlation, agreement


def _correlation() -> stats.RankCorrelation:
    return stats.correlate_scores([X, Y], [Y, X], systems=list("abcd"), n_resamples=0)


def _agreement() -> stats.JudgeAgreement:
    return stats.agree([QRELS, {"q1": {"d1": 0, "d2": 0}}])


ROWS += [
    Row(stats.rbo, "p", 1.5, lambda v: stats.rbo("ab", "ba", p=v)),
    Row(stats.rbo, "p", 0, lambda v: stats.rbo("ab", "ba", p=v)),
    *(
        Row(
            stats.correlate_scores,
            option,
            bad,
            lambda v, o=option: stats.correlate_scores(
                [X, Y], [Y, X], systems=list("abcd"), **{o: v}
            ),
        )
        for option, bad in (("p", 1.0), ("n_resamples", -1), ("alpha", 0.0), ("seed", -3))
    ),
    Row(stats.RankCorrelation.to_json, "indent", -1, lambda v: _correlation().to_json(indent=v)),
    *(
        Row(
            stats.correlate,
            option,
            bad,
            lambda v, o=option: stats.correlate(QRELS, [RUN, RUN2], "AP", "P@1", **{o: v}),
        )
        for option, bad in (
            ("names", "tags"),
            ("p", 1.0),
            ("n_resamples", -1),
            ("alpha", 0.0),
            ("seed", -3),
            ("jobs", -1),
            ("depth", -1),
        )
    ),
    Row(
        plot.ranking_scatter,
        "max_labels",
        -1,
        lambda v: plot.ranking_scatter(_correlation(), max_labels=v),
    ),
    Row(stats.JudgeAgreement.to_json, "indent", -1, lambda v: _agreement().to_json(indent=v)),
    Row(
        stats.cohen_kappa,
        "weights",
        "cubic",
        lambda v: stats.cohen_kappa([0, 1], [1, 1], weights=v),
    ),
    Row(
        stats.krippendorff_alpha,
        "level",
        "interval",
        lambda v: stats.krippendorff_alpha([[0, 1], [1, 1]], level=v),
    ),
]

# ------------------------------------------------------------ discriminative power, topic sets

SCORE_MATRIX = [X, Y, [0.3, 0.1, 0.5, 0.2]]


def _power() -> stats.DiscriminativePower:
    return stats.power_of_scores({"AP": SCORE_MATRIX}, runs=list("abcd"), n_resamples=5, trials=1)


@functools.cache
def _score_table() -> cranfield.ScoreTable:
    return cranfield.Evaluator(QRELS, "AP").many([RUN, RUN2])


def _topic_sets() -> stats.TopicSetSize:
    return stats.topic_set_size(0.02)


def _power_study() -> stats.PowerStudy:
    return stats.power(QRELS, [RUN, RUN2], "AP", n_resamples=5, trials=0)


ROWS += [
    *(
        Row(
            stats.power_of_scores,
            option,
            bad,
            lambda v, o=option: stats.power_of_scores(
                {"AP": SCORE_MATRIX}, runs=list("abcd"), **{o: v}
            ),
        )
        for option, bad in (("alpha", 1.0), ("n_resamples", 0), ("trials", -1), ("seed", -3))
    ),
    *(
        Row(
            stats.swap_rates,
            option,
            bad,
            lambda v, o=option: stats.swap_rates(SCORE_MATRIX, **{o: v}),
        )
        for option, bad in (("trials", 0), ("bin_width", 0.0), ("bins", 0), ("seed", -1))
    ),
    *(
        Row(
            stats.topic_set_size,
            option,
            bad,
            lambda v, o=option: stats.topic_set_size(0.02, **{o: v}),
        )
        for option, bad in (
            ("min_d", 0.0),
            ("alpha", 0.0),
            ("beta", 1.0),
            ("systems", 1),
            ("delta", -1.0),
        )
    ),
    Row(stats.topic_set_size, "variance", 0.0, lambda v: stats.topic_set_size(variance=v)),
    *(
        Row(
            stats.discriminative_power,
            option,
            bad,
            lambda v, o=option: stats.discriminative_power(_score_table(), **{o: v}),
        )
        for option, bad in (("alpha", 1.0), ("n_resamples", 0), ("trials", -1), ("seed", -3))
    ),
    Row(stats.DiscriminativePower.to_json, "indent", -1, lambda v: _power().to_json(indent=v)),
    Row(plot.asl_curves, "test", "anova", lambda v: plot.asl_curves(_power(), test=v)),
    *(
        Row(
            plot.topic_set_curves,
            option,
            bad,
            lambda v, o=option: plot.topic_set_curves({"AP": 0.02}, **{o: v}),
        )
        for option, bad in (
            ("design", "z_test"),
            ("differences", []),
            ("alpha", 0.0),
            ("beta", 1.0),
            ("systems", 1),
        )
    ),
    Row(stats.TopicSetSize.to_json, "indent", -1, lambda v: _topic_sets().to_json(indent=v)),
    *(
        Row(
            stats.power,
            option,
            bad,
            lambda v, o=option: stats.power(
                QRELS, [RUN, RUN2], "AP", **{"n_resamples": 5, "trials": 0, o: v}
            ),
        )
        for option, bad in (
            ("names", "tags"),
            ("alpha", 1.0),
            ("n_resamples", 0),
            ("trials", -1),
            ("seed", -3),
            ("min_d", 0.0),
            ("beta", 1.0),
            ("delta", 0.0),
            ("jobs", -1),
            ("depth", -1),
        )
    ),
    Row(stats.PowerStudy.to_json, "indent", -1, lambda v: _power_study().to_json(indent=v)),
]

# ------------------------------------------------------------ reproducibility


def _reproduction() -> stats.Reproducibility:
    return stats.reproducibility(_score_table(), _score_table())


# ------------------------------------------------------------ run diff


def _run_diff() -> stats.RunDiff:
    return stats.diff_runs(QRELS, RUN, RUN2, "AP", names=["a", "b"])


ROWS += [
    *(
        Row(
            stats.reproducibility,
            option,
            bad,
            lambda v, o=option: stats.reproducibility(_score_table(), _score_table(), **{o: v}),
        )
        for option, bad in (("replicated", 1), ("cutoffs", [0]), ("p", 1.0), ("rbo_depth", 0))
    ),
    Row(stats.Reproducibility.to_json, "indent", -1, lambda v: _reproduction().to_json(indent=v)),
    *(
        Row(
            stats.reproduce,
            option,
            bad,
            lambda v, o=option: stats.reproduce(QRELS, [RUN], [RUN2], "AP", **{o: v}),
        )
        for option, bad in (
            ("names", "tags"),
            ("cutoffs", [0]),
            ("p", 1.0),
            ("rbo_depth", 0),
            ("jobs", -1),
            ("depth", -1),
        )
    ),
    *(
        Row(
            stats.diff_runs,
            option,
            bad,
            lambda v, o=option: stats.diff_runs(QRELS, RUN, RUN2, "AP", **{o: v}),
        )
        for option, bad in (
            ("top", 0),
            ("k", 0),
            ("p", 1.0),
            ("names", "tags"),
            ("depth", -1),
            ("alpha", 2),
        )
    ),
    Row(stats.RunDiff.to_json, "indent", -1, lambda v: _run_diff().to_json(indent=v)),
]

RECORDS = "a record of results, built by cranfield, not by a caller"
WAIVED: dict[str, str] = {
    "cranfield.stats.comparison.Comparison": RECORDS,
    "cranfield.stats.rank_correlation.RankCorrelation": RECORDS,
    "cranfield.stats.rank_correlation.Coefficient": RECORDS,
    "cranfield.stats.rank_correlation.RBO": RECORDS,
    "cranfield.stats.rank_correlation.ScoreAgreement": RECORDS,
    "cranfield.stats.discriminative_power.DiscriminativePower": RECORDS,
    "cranfield.stats.discriminative_power.MeasurePower": RECORDS,
    "cranfield.stats.discriminative_power.SwapRates": RECORDS,
    "cranfield.stats.topic_set_size.TopicSetSize": RECORDS,
    "cranfield.stats.reproducibility.Reproducibility": RECORDS,
    "cranfield.stats.reproducibility.ReproducedRun": RECORDS,
    "cranfield.stats.judge_agreement.JudgeAgreement": RECORDS,
    "cranfield.stats.judge_agreement.JudgePair": RECORDS,
    "cranfield.stats.judge_agreement.QueryAgreement": RECORDS,
    "cranfield.stats.run_diff.RunDiff": RECORDS,
    "cranfield.stats.run_diff.QueryDiff": RECORDS,
    "cranfield.stats.run_diff.MovedDocument": RECORDS,
    "cranfield.stats.comparison.PairComparison": RECORDS,
    "cranfield.stats.comparison.TestOutcome": RECORDS,
    "cranfield.stats.paired.TestResult": RECORDS,
    "cranfield.stats.paired.MatrixTestResult": RECORDS,
    "cranfield.stats.effects.Effects": RECORDS,
    "cranfield.evaluation.results.Results": RECORDS,
    "cranfield.lab.folds.CrossValidation": RECORDS,
    "cranfield.lab.folds.FoldOutcome": RECORDS,
    "cranfield.lab.folds.Selection": RECORDS,
    "cranfield.lab.result.ExperimentResult": RECORDS,
    "cranfield.lab.result.SystemResult": RECORDS,
    "cranfield.lab.efficiency.IndexStats": RECORDS,
    "cranfield.lab.efficiency.LatencyStats": RECORDS,
    "cranfield.lab.efficiency.ThroughputStats": RECORDS,
    "cranfield.lab.efficiency.Machine": RECORDS,
    "cranfield.lab.pooling.Pool": RECORDS,
    "cranfield.lab.pooling.LeaveOneOut": RECORDS,
    "cranfield.lab.pooling.PoolStudy": RECORDS,
    "cranfield.lab.collections.Collection": "built by the collection readers; size_bytes is "
    "what they measured",
    "cranfield.measures._spec.Measure": "a measure's cutoff: a MeasureError with its own "
    "sentence ('The cutoff of P must be ...')",
    "cranfield.measures._spec.MeasureSpec": "a measure's declaration, made by cranfield",
    "cranfield.lab.systems.System.search": "a Protocol: each engine's search has its rows",
    "cranfield.io.runset.RunSet.find": "a lookup that serves an option and names it "
    "(compare's baseline: 'The 'baseline' option must be a run's name or path ...')",
    "cranfield.io.runset.RunSet.load": "a position in the set, as a list index",
}


# --------------------------------------------------------------------------- the walk


@functools.cache
def _namespace(module_name: str) -> dict[str, Any]:
    """The names an annotation of ``module_name`` may use, those imported only for type
    checking included."""
    module = sys.modules[module_name]
    names: dict[str, Any] = {**vars(builtins), **vars(module)}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    source = importlib.import_module(stmt.module)
                    for alias in stmt.names:
                        names[alias.asname or alias.name] = getattr(source, alias.name)
                elif isinstance(stmt, ast.Import):
                    for alias in stmt.names:
                        top = alias.name.split(".")[0]
                        names[alias.asname or top] = importlib.import_module(top)
    return names


def _kinds(annotation: object) -> set[str]:
    """Which of int, float and Literal an annotation admits."""
    origin = typing.get_origin(annotation)
    if annotation is int:
        return {"int"}
    if annotation is float:
        return {"float"}
    if origin is typing.Literal:
        return {"Literal"}
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_kinds(a) for a in typing.get_args(annotation)))
    return set()


def _key(target: Any) -> str:
    return f"{target.__module__}.{target.__qualname__}"


def _public() -> Iterator[Any]:
    """Every public function, class (not exceptions) and public method, once."""
    seen: set[str] = set()
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            found: list[Any] = []
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                found.append(obj)
                for attr, member in vars(obj).items():
                    function = getattr(member, "__func__", member)  # static and class methods
                    if not attr.startswith("_") and inspect.isfunction(function):
                        found.append(function)
            elif inspect.isfunction(obj):
                found.append(obj)
            for target in found:
                if _key(target) not in seen:
                    seen.add(_key(target))
                    yield target


def _options(target: Any) -> Iterator[tuple[str, set[str] | type]]:
    """``(name, kinds)`` of each int/float/Literal parameter, and ``(name, TypedDict)`` for
    ``**kwargs: Unpack[...]``."""
    names = _namespace(target.__module__)
    for p in inspect.signature(target).parameters.values():
        if p.name == "self" or p.annotation is inspect.Parameter.empty:
            continue
        annotation = eval(p.annotation, names) if isinstance(p.annotation, str) else p.annotation
        if p.kind is p.VAR_KEYWORD:
            if typing.get_origin(annotation) is typing.Unpack:
                yield p.name, typing.get_args(annotation)[0]
            continue
        kinds = _kinds(annotation)
        if kinds:
            yield p.name, kinds


def _owners(kwargs: type) -> list[type]:
    """The options objects whose fields a ``TypedDict`` of keywords holds."""
    keys = set(kwargs.__required_keys__) | set(kwargs.__optional_keys__)
    return [
        owner for typed, owner in OPTION_OBJECTS.items() if set(typed.__optional_keys__) <= keys
    ]


def _covered() -> set[tuple[str, str]]:
    return {(_key(row.target), row.option) for row in ROWS}


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_a_bad_option_is_refused_in_one_sentence(row: Row) -> None:
    try:
        with pytest.raises(OptionError) as exc:
            row.call(row.bad)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    message = str(exc.value)
    assert message.startswith(f"The '{row.option}' option must be "), message
    assert exc.value.option == row.option
    assert "\n" not in message
    assert message.endswith(".")
    assert isinstance(exc.value, ValueError)
    assert isinstance(exc.value, TypeError)  # old `except ValueError/TypeError` still work
    assert exc.value.for_command_line().startswith(f"The --{row.option.replace('_', '-')} option")


def test_every_row_names_a_parameter_of_its_callable() -> None:
    """A row for a name the callable does not take would pass on the error for an unknown
    keyword; only ``**kwargs: Any`` (handed on to a walked callable) may hide one."""
    for row in ROWS:
        params = inspect.signature(row.target).parameters
        keywords = {
            key
            for _, kinds in _options(row.target)
            if isinstance(kinds, type)
            for key in kinds.__optional_keys__
        }
        untyped = any(
            p.kind is p.VAR_KEYWORD and "Unpack" not in str(p.annotation) for p in params.values()
        )
        assert row.option in params or row.option in keywords or untyped, row.id


def test_every_int_float_or_literal_option_of_the_public_api_has_a_row() -> None:
    covered = _covered()
    missing: list[str] = []
    for target in _public():
        key = _key(target)
        if key in WAIVED:
            continue
        for name, kinds in _options(target):
            if isinstance(kinds, set):
                if (key, name) not in covered:
                    missing.append(f"{key}({name}: {'/'.join(sorted(kinds))})")
                continue
            for owner in _owners(kinds):  # **kwargs: Unpack[...]: handed to the options object
                fields = set(owner.__dataclass_fields__)
                if not any((key, option) in covered for option in fields):
                    missing.append(f"{key}(**{name}: the options of {owner.__name__})")
    assert not missing, "options without a row in ROWS (or a reason in WAIVED):\n" + "\n".join(
        missing
    )


def test_the_options_objects_have_a_row_for_every_option() -> None:
    covered = _covered()
    for owner in OPTION_OBJECTS.values():
        fields = owner.__dataclass_fields__
        assert {name for name in fields if (_key(owner), name) not in covered} == set()


def test_the_walk_reads_every_annotation() -> None:
    """An annotation that cannot be evaluated would hide an option: the walk must read all."""
    count = 0
    for target in _public():
        count += sum(1 for _ in _options(target))
    assert count > 100  # the walk sees the surface, not an empty list


def test_no_assert_statement_in_library_code() -> None:
    """``assert`` vanishes under ``python -O``: library code raises real errors instead."""
    found = [
        f"{path.relative_to(REPO)}:{node.lineno}"
        for path in sorted((REPO / "src" / "cranfield").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert found == []
