"""Renamed public names keep their old spelling for a while (issue 29): each old spelling
still works, gives the result of the new one and warns with a DeprecationWarning naming it.

:data:`ALIASES` is the list of every deprecated alias, one test each; a test finds the
aliases in the public modules so that none is added without a test here and a line in
CHANGELOG.md's "Deprecated".
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cranfield
from cranfield._deprecation import DeprecatedAlias, renamed_parameters
from cranfield.curves import gain_curves
from cranfield.lab import cross_validate, cross_validate_scores, kfold
from cranfield.report.html import html_report
from cranfield.stats import (
    bootstrap_test,
    compare,
    compare_scores,
    confidence_interval,
    randomization_test,
    randomized_tukey_hsd,
    resolve_seed,
)
from tests.conftest import REPO

QRELS = {f"q{i}": {"d1": 1, "d2": i % 3, "d3": 0, "d4": 1} for i in range(6)}
RUN_A = {f"q{i}": {"d1": 0.9, "d2": 0.5 + i / 10, "d3": 0.3, "d4": 0.1} for i in range(6)}
RUN_B = {f"q{i}": {"d4": 0.9, "d3": 0.8, "d2": 0.2, "d1": 0.1 * i} for i in range(6)}
X = np.array([0.2, 0.5, 0.7, 0.1, 0.9, 0.4])
Y = np.array([0.3, 0.4, 0.9, 0.2, 0.6, 0.8])
SCORES = {
    "a": {f"q{i}": float(X[i]) for i in range(6)},
    "b": {f"q{i}": float(Y[i]) for i in range(6)},
}

VECTORS = {"a": {"AP": X}, "b": {"AP": Y}}

# (where, old, new): every deprecated alias of a renamed public name, and the commit that renamed it
ALIASES = [
    # 8dacbea: one word for randomness, seed
    ("cranfield.stats.compare", "rng", "seed"),
    ("cranfield.stats.compare_scores", "rng", "seed"),
    ("cranfield.report.html.html_report", "rng", "seed"),
    ("cranfield.stats.confidence_interval", "rng", "seed"),
    ("cranfield.stats.bootstrap_test", "rng", "seed"),
    ("cranfield.stats.randomization_test", "rng", "seed"),
    ("cranfield.stats.randomized_tukey_hsd", "rng", "seed"),
    ("cranfield.stats.resolve_seed", "rng", "seed"),
    # e08e068: one word for a query, per_query
    ("cranfield.Results", "per_topic", "per_query"),
    # 27547a3: k only for a cutoff; n_folds for folds, max_rank for a curve's last rank
    ("cranfield.lab.kfold", "k", "n_folds"),
    ("cranfield.lab.cross_validate", "k", "n_folds"),
    ("cranfield.lab.cross_validate_scores", "k", "n_folds"),
    ("cranfield.lab.CrossValidation", "k", "n_folds"),
    ("cranfield.curves.gain_curves", "k", "max_rank"),
    ("cranfield.plot.gain_curve", "k", "max_rank"),
    ("cranfield.report.html.html_report", "gain_depth", "max_rank"),
]

# (old, new): every deprecated form or moved name that is not a renamed parameter or
# attribute, as its warning and CHANGELOG.md's "Deprecated" spell it
MOVED = [
    ("evaluate(qrels, [run, ...], measures)", "evaluate_many(qrels, runs, measures)"),
    *(
        (f"{package}.{old}", f"cranfield.{new}, or cranfield.io.trec.{old} for TREC text only")
        for package in ("cranfield", "cranfield.io")
        for old, new in (
            ("read_qrels", "load_qrels"),
            ("read_run", "load_run"),
            ("write_qrels", "save_qrels"),
            ("write_run", "save_run"),
        )
    ),
    (
        "cranfield.io.formats.read_qrels",
        "cranfield.io.formats.read_qrels_file (or cranfield.load_qrels)",
    ),
    ("cranfield.io.formats.read_run", "cranfield.io.formats.read_run_file (or cranfield.load_run)"),
    ("TrecEval.evaluator", "TrecEval.judgments and TrecEval.options"),
]


def _warns(old: str, new: str) -> pytest.WarningsRecorder:
    return pytest.warns(
        DeprecationWarning, match=rf"{re.escape(old)} is deprecated .*; use {re.escape(new)}\.$"
    )


def _same(old: Any, new: Any) -> None:
    if hasattr(new, "to_dict"):
        assert old.to_dict() == new.to_dict()
    else:
        assert old == new


# --------------------------------------------------------------------------- rng -> seed


@pytest.mark.parametrize(
    ("function", "args"),
    [
        (bootstrap_test, (X, Y)),
        (randomization_test, (X, Y)),
        (randomized_tukey_hsd, (np.stack([X, Y, X[::-1]]),)),
    ],
)
def test_rng_of_the_resampling_tests_is_seed(function: Callable[..., Any], args: Any) -> None:
    name = function.__name__
    with _warns(f"{name}(rng=...)", f"{name}(seed=...)"):
        old = function(*args, n_resamples=500, rng=7)
    new = function(*args, n_resamples=500, seed=7)
    assert np.array_equal(np.asarray(old.p_value), np.asarray(new.p_value))


def test_rng_of_confidence_interval_and_resolve_seed_is_seed() -> None:
    with _warns("confidence_interval(rng=...)", "confidence_interval(seed=...)"):
        old = confidence_interval(X, Y, method="bca", n_resamples=500, rng=3)
    assert old == confidence_interval(X, Y, method="bca", n_resamples=500, seed=3)
    with _warns("resolve_seed(rng=...)", "resolve_seed(seed=...)"):
        assert resolve_seed(rng=11) == 11


def test_rng_of_compare_and_compare_scores_is_seed() -> None:
    runs = {"a": RUN_A, "b": RUN_B}
    with _warns("compare(rng=...)", "compare(seed=...)"):
        old = compare(QRELS, runs, "AP", tests="bootstrap", n_resamples=500, rng=42)
    assert old.seed == 42
    _same(old, compare(QRELS, runs, "AP", tests="bootstrap", n_resamples=500, seed=42))
    with _warns("compare_scores(rng=...)", "compare_scores(seed=...)"):
        old = compare_scores(VECTORS, tests="randomization", n_resamples=500, rng=5)
    _same(old, compare_scores(VECTORS, tests="randomization", n_resamples=500, seed=5))


def test_rng_and_gain_depth_of_html_report_are_seed_and_max_rank() -> None:
    runs = {"a": RUN_A, "b": RUN_B}
    with _warns("html_report(gain_depth=...)", "html_report(max_rank=...)"):
        old = html_report(QRELS, runs, "AP", gain_depth=4)
    assert "k = 1…4" in old
    assert old == html_report(QRELS, runs, "AP", max_rank=4)
    with _warns("html_report(rng=...)", "html_report(seed=...)"):
        html_report(QRELS, runs, "AP", tests="bootstrap", n_resamples=200, rng=1, curves=False)


# --------------------------------------------------------------------------- per_topic


def test_results_per_topic_is_per_query() -> None:
    results = cranfield.evaluate(QRELS, RUN_A, ["AP"])
    with _warns("Results.per_topic", "Results.per_query"):
        per_topic = results.per_topic("AP")
    assert per_topic == results.per_query("AP")


# --------------------------------------------------------------------------- k -> n_folds


def test_k_of_the_folds_is_n_folds() -> None:
    topics = [f"q{i}" for i in range(6)]
    with _warns("kfold(k=...)", "kfold(n_folds=...)"):
        assert kfold(topics, k=3, seed=0) == kfold(topics, 3, seed=0)
    with _warns("cross_validate_scores(k=...)", "cross_validate_scores(n_folds=...)"):
        old = cross_validate_scores(SCORES, k=2, seed=1)
    _same(old, cross_validate_scores(SCORES, n_folds=2, seed=1))
    with _warns("CrossValidation.k", "CrossValidation.n_folds"):
        assert old.k == old.n_folds == 2
    with _warns("cross_validate(k=...)", "cross_validate(n_folds=...)"):
        old = cross_validate(QRELS, {"a": RUN_A, "b": RUN_B}, "AP", k=3)
    _same(old, cross_validate(QRELS, {"a": RUN_A, "b": RUN_B}, "AP", n_folds=3))


# --------------------------------------------------------------------------- k -> max_rank


def test_k_of_the_gain_curves_is_max_rank() -> None:
    with _warns("gain_curves(k=...)", "gain_curves(max_rank=...)"):
        old = gain_curves(QRELS, RUN_A, k=3)
    assert old.equals(gain_curves(QRELS, RUN_A, max_rank=3))
    assert old["rank"].max() == 3

    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from cranfield.plot import gain_curve

    with _warns("gain_curve(k=...)", "gain_curve(max_rank=...)"):
        figure = gain_curve(QRELS, {"a": RUN_A}, k=3)
    assert figure.axes[0].get_xlim() == (0.5, 3.5)
    plt.close(figure)


# --------------------------------------------------------------------------- moved forms


def test_evaluate_with_a_list_of_runs_is_evaluate_many() -> None:
    old_form, new_form = MOVED[0]
    with _warns(old_form, new_form):
        old = cranfield.evaluate(QRELS, [RUN_A, RUN_B], "AP")
    new = cranfield.evaluate_many(QRELS, [RUN_A, RUN_B], "AP")
    assert isinstance(old, cranfield.ScoreTable)
    assert old.means() == new.means()
    assert old.to_polars().equals(new.to_polars())
    with _warns(old_form, new_form), pytest.raises(cranfield.OptionError, match="run_name"):
        cranfield.evaluate(QRELS, [RUN_A], "AP", run_name="a")


def test_trec_eval_s_evaluator_is_its_judgments_and_options(tmp_path: Path) -> None:
    from cranfield.compat.trec_eval import TrecEval, TrecEvalOptions

    cranfield.save_qrels(QRELS, tmp_path / "qrels.txt")
    cranfield.save_run(cranfield.load_run(RUN_A, name="a"), tmp_path / "a.run")
    bound = TrecEval(TrecEvalOptions(str(tmp_path / "qrels.txt"), "", measures=["map"]))
    bound.prepare()
    with _warns(*MOVED[-1]):
        old = bound.evaluator
    assert old is not None
    assert old.judgments is bound.judgments  # the qrels read once
    assert old.options == bound.options
    run = str(tmp_path / "a.run")
    assert old.ranking(run).ranking.topics == sorted(QRELS)  # as TrecEval ranks it
    assert bound.output(run).text.startswith("map")
    grouped = TrecEval(
        TrecEvalOptions(str(tmp_path / "qrels.txt"), "", measures=["map"], qrels_format="prefs")
    )
    with _warns(*MOVED[-1]):
        assert grouped.evaluator is None


MOVED_NAMES = [(old, new) for old, new in MOVED if old.startswith("cranfield.")]


def _value_of(old: str) -> object:
    """What the moved name ``old`` still gives: cranfield.io.trec's function, or the renamed
    reader of cranfield.io.formats."""
    module, _, name = old.rpartition(".")
    if module == "cranfield.io.formats":
        return getattr(importlib.import_module(module), f"{name}_file")
    return getattr(importlib.import_module("cranfield.io.trec"), name)


@pytest.mark.parametrize(("old", "new"), MOVED_NAMES)
def test_a_moved_name_still_gives_its_value(old: str, new: str) -> None:
    module, _, name = old.rpartition(".")
    package = importlib.import_module(module)
    with _warns(old, new):
        value = getattr(package, name)
    assert value is _value_of(old)
    assert name not in dir(package)
    assert name not in getattr(package, "__all__", ())


def test_the_old_readers_and_writers_give_what_the_new_ones_do(tmp_path: Path) -> None:
    with _warns("cranfield.write_run", dict(MOVED)["cranfield.write_run"]):
        write_run = cranfield.write_run
    with _warns("cranfield.read_run", dict(MOVED)["cranfield.read_run"]):
        read_run = cranfield.read_run
    run = cranfield.load_run(RUN_A, name="a")
    write_run(run, tmp_path / "old.run")
    cranfield.save_run(run, tmp_path / "new.run")
    assert (tmp_path / "old.run").read_bytes() == (tmp_path / "new.run").read_bytes()
    assert read_run(tmp_path / "old.run").frame.equals(
        cranfield.load_run(tmp_path / "new.run").frame
    )
    with _warns("cranfield.read_qrels", dict(MOVED)["cranfield.read_qrels"]):
        from cranfield import read_qrels  # type: ignore[attr-defined]
    cranfield.save_qrels(QRELS, tmp_path / "qrels.txt")
    assert read_qrels(tmp_path / "qrels.txt").frame.equals(
        cranfield.load_qrels(tmp_path / "qrels.txt").frame
    )
    with _warns("cranfield.io.formats.read_run", dict(MOVED)["cranfield.io.formats.read_run"]):
        from cranfield.io.formats import read_run as read_any  # type: ignore[attr-defined]
    assert read_any(tmp_path / "new.run").frame.equals(read_run(tmp_path / "new.run").frame)


def test_every_moved_name_in_the_source_is_tested_here() -> None:
    declared = set()
    for path in (REPO / "src" / "cranfield").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "MovedName" not in text:  # no call can name it: not worth parsing
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("MovedName"):
                module, old, new = (ast.literal_eval(a) for a in node.args[:3])
                declared.add((f"{module}.{old}", new))
    declared.discard(("pkg.old_join", "os.path.join"))  # _deprecation.py's own example
    assert declared == set(MOVED_NAMES)


# --------------------------------------------------------------------------- the mechanics


def test_both_spellings_at_once_is_a_type_error() -> None:
    with pytest.raises(
        TypeError, match=r"^kfold\(\) got both 'n_folds' and 'k', its deprecated spelling; "
    ):
        kfold(["q1", "q2"], n_folds=2, k=2, seed=0)  # type: ignore[call-arg]


def test_the_signatures_show_the_new_spelling_only() -> None:
    for where, old, new in ALIASES:
        obj = _resolve(where)
        if isinstance(obj, type):
            assert isinstance(inspect.getattr_static(obj, old), DeprecatedAlias), where
            continue
        params = inspect.signature(obj).parameters
        assert new in params or "kwargs" in params, where
        assert old not in params, where


def test_a_renamed_parameter_keeps_the_function_s_name_and_doc() -> None:
    @renamed_parameters(old="new")
    def function(new: int) -> int:
        """The doc."""
        return new

    assert (function.__name__, function.__doc__) == ("function", "The doc.")
    qualname = function.__qualname__
    with _warns(f"{qualname}(old=...)", f"{qualname}(new=...)"):
        assert function(old=2) == 2  # type: ignore[call-arg]


def test_an_alias_must_be_assigned_to_its_old_name() -> None:
    # Python 3.11 wraps an error of __set_name__ in a RuntimeError; 3.12 raises it as it is
    with pytest.raises((TypeError, RuntimeError)):

        class Wrong:
            other = DeprecatedAlias("old", "new")


def _resolve(where: str) -> Any:
    module, _, name = where.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _found() -> set[tuple[str, str, str]]:
    """Every alias in the public modules: decorated functions and DeprecatedAlias attributes."""
    found = set()
    for module in (
        "cranfield",
        "cranfield.stats",
        "cranfield.lab",
        "cranfield.curves",
        "cranfield.plot",
        "cranfield.report.html",
    ):
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", None) or [
            n for n in vars(mod) if not n.startswith("_")
        ]:
            obj = getattr(mod, name)
            for old, new in getattr(obj, "__deprecated_parameters__", {}).items():
                found.add((f"{module}.{name}", old, new))
            if isinstance(obj, type):
                for attr, value in vars(obj).items():
                    if isinstance(value, DeprecatedAlias):
                        found.add((f"{module}.{name}", attr, value.new))
    return found


def _declared_in_the_source() -> int:
    """How many aliases ``src/cranfield`` declares: the keywords of every
    ``@renamed_parameters(...)`` and every ``DeprecatedAlias(...)``, wherever they are."""
    count = 0
    for path in (REPO / "src" / "cranfield").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name == "_deprecation.py" or not (
            "renamed_parameters" in text or "DeprecatedAlias" in text
        ):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "renamed_parameters":
                    count += len(node.keywords)
                elif node.func.id == "DeprecatedAlias":
                    count += 1
    return count


def test_every_alias_is_tested_here_and_listed_in_the_changelog() -> None:
    by_object = {(id(_resolve(w)), o, n) for w, o, n in ALIASES}
    found = {(id(_resolve(w)), o, n) for w, o, n in _found()}
    assert found == by_object
    assert _declared_in_the_source() == len(ALIASES)  # none outside the modules scanned
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    deprecated = changelog.split("### Deprecated", 1)[1].split("\n##", 1)[0]
    for where, old, new in ALIASES:
        name = where.rpartition(".")[2]
        assert re.search(rf"`{name}\b[^`]*`[^\n]*`{old}`[^\n]*`{new}`", deprecated), (
            f"CHANGELOG.md's Deprecated lacks {name}: {old} -> {new}"
        )


def test_every_moved_form_is_listed_in_the_changelog() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    deprecated = changelog.split("### Deprecated", 1)[1].split("\n##", 1)[0]
    entries = deprecated.replace("\n  ", " ").splitlines()
    for old, new in MOVED:
        old_name, new_name = old.partition("(")[0], re.split(r"[ ,(]", new)[0]
        assert any(
            f"`{old_name}`" in line and f"`{new_name}`" in line.partition(": now")[2]
            for line in entries
        ), f"CHANGELOG.md's Deprecated lacks {old} -> {new}"
