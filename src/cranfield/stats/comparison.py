"""``compare(qrels, runs, measures) -> Comparison``: paired significance tests between runs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack, cast

import numpy as np

from cranfield._deprecation import renamed_parameters
from cranfield._validate import check_choice, check_int
from cranfield.errors import EvaluationError, MeasureError, OptionError
from cranfield.evaluation.aggregate import aggregate
from cranfield.evaluation.execution import Execution, ExecutionKwargs, execution_from
from cranfield.evaluation.options import OPTION_NAMES, EvalKwargs
from cranfield.stats.corrections import (
    adjust_p_values,
    correction_label,
)
from cranfield.stats.effects import (
    cohens_dz,
    risk,
    t_intervals,
    win_tie_loss,
)
from cranfield.stats.histogram import QueryDifferences
from cranfield.stats.paired import (
    pair_scale,
    sign_pairs,
    t_test_pairs,
    tukey_pairs,
    wilcoxon_pairs,
)
from cranfield.stats.plain_data import finite_or_none as _finite
from cranfield.stats.plan import (
    FAMILYWISE,
    PLAN_NAMES,
    RANDOM_TESTS,
    TEST_LABELS,
    TESTS,
    TestKwargs,
    TestName,
    TestPlan,
    check_tests,
    plan_from,
)
from cranfield.stats.resampling import (
    bootstrap_analysis,
    bootstrap_sums,
    randomization_counts,
    randomized_tukey_pvalues,
    randomized_tukey_ranges,
    resolve_seed,
    sequential_sums,
    use_exact,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    import polars as pl
    from numpy.typing import ArrayLike, NDArray

    from cranfield._types import RunNaming
    from cranfield.evaluation.evaluator import MeasureLike
    from cranfield.evaluation.options import EvalOptions
    from cranfield.evaluation.provenance import Provenance
    from cranfield.evaluation.results import ScoreTable
    from cranfield.io.load import QrelsLike, RunLike
    from cranfield.io.runset import RunSet

__all__ = [
    "TESTS",
    "Comparison",
    "PairComparison",
    "TestName",
    "TestOutcome",
    "compare",
    "compare_scores",
    "compare_table",
]

# --------------------------------------------------------------------------- result types


@dataclass(frozen=True)
class TestOutcome:
    """One test of one pair on one measure.

    Attributes
    ----------
    statistic:
        The test's statistic: t (t-test), W (Wilcoxon), number of improved queries (sign
        test), mean difference (randomization, bootstrap, randomized Tukey), q (Tukey HSD).
    p_value:
        Two-sided p-value before correction (Tukey tests: already adjusted for all pairs).
    p_adjusted:
        After the comparison's correction.
    significant:
        ``p_adjusted <= alpha``.
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    p_adjusted: float
    significant: bool

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready: a statistic that is not finite is ``None``)."""
        return {
            "statistic": _finite(self.statistic),
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "significant": self.significant,
        }


@dataclass(frozen=True)
class PairComparison:
    """Everything measured about ``treatment`` relative to ``control`` on one measure.

    Differences are always ``treatment - control`` per query; ``wins`` are queries where the
    treatment scores higher.
    """

    measure: str
    control: str
    treatment: str
    control_mean: float
    treatment_mean: float
    mean_difference: float
    intervals: dict[str, tuple[float, float]]
    cohens_dz: float
    wins: int
    ties: int
    losses: int
    improved: float
    hurt: float
    urisk: float
    trisk: float
    tests: dict[str, TestOutcome]


@dataclass(frozen=True, eq=False)
class Comparison:
    """What :func:`cranfield.compare` returns: per-query scores, tests and effects of runs.

    Attributes
    ----------
    runs:
        Run names, in the order given.
    measures:
        Canonical measure names.
    topics:
        The query ids every run was scored on, bytewise order.
    scores:
        ``{measure: (queries, runs) float64 matrix}`` aligned with :attr:`topics` and :attr:`runs`.
    means:
        ``{measure: {run: aggregate}}`` (the measure's own aggregate over :attr:`topics`).
    baseline:
        The baseline run, or ``None`` when all pairs were compared.
    pairs:
        One :class:`PairComparison` per compared pair and measure, measure-major.
    tests:
        Canonical test names; the first is the *primary* test whose significance the tables
        mark.
    correction:
        Multiple-comparison correction applied to every non-Tukey test over all pairs x
        measures of this comparison.
    alpha:
        Significance level (intervals have confidence ``1 - alpha``).
    intervals:
        Interval kinds computed for the mean difference.
    n_resamples:
        Resamples of the random procedures.
    seed:
        The integer seed that reproduces every random number here (``None`` when nothing was
        random: deterministic tests, or a randomization test small enough to enumerate).
    exact_randomization:
        Whether the randomization test enumerated all ``2**n`` sign assignments.
    risk_aversion:
        URisk's weight on losses.
    missing_policy:
        How judged queries missing from a run were treated: ``zero``, ``skip`` or ``error``
        (``scores`` for :func:`compare_scores`).
    missing_topics:
        ``{run: judged queries absent from that run}``, only for runs that miss some.
    dropped_topics:
        Judged queries left out of the comparison (``missing="skip"`` only).

    Notes
    -----
    A comparison is data: :meth:`to_dict`, :meth:`to_json`, :meth:`to_polars` and
    :meth:`to_csv` export it for programs, and :mod:`cranfield.report.comparison` renders it
    for people (a terminal table, Markdown, LaTeX).

    Examples
    --------
    >>> from cranfield.stats import compare_scores
    >>> c = compare_scores({"bm25": {"AP": [0.20, 0.30, 0.10, 0.40, 0.25, 0.35]},
    ...                     "dense": {"AP": [0.35, 0.45, 0.20, 0.60, 0.40, 0.50]}})
    >>> {run: round(mean, 4) for run, mean in c.means["AP"].items()}
    {'bm25': 0.2667, 'dense': 0.4167}
    >>> c.significant()[0].tests["t-test"].p_value < 0.001
    True
    >>> c.to_polars().select("control", "treatment", "mean_difference").rows()
    [('bm25', 'dense', 0.15)]
    """

    runs: list[str]
    measures: list[str]
    topics: list[str]
    scores: dict[str, NDArray[np.float64]]
    means: dict[str, dict[str, float]]
    baseline: str | None
    pairs: list[PairComparison]
    tests: list[str]
    correction: str
    alpha: float
    intervals: list[str]
    n_resamples: int
    seed: int | None
    exact_randomization: bool
    risk_aversion: float
    missing_policy: str
    missing_topics: dict[str, list[str]] = field(default_factory=dict)
    dropped_topics: list[str] = field(default_factory=list)
    table: ScoreTable | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:
        return (
            f"Comparison(runs={len(self.runs)}, measures={self.measures}, "
            f"queries={len(self.topics)}, pairs={len(self.pairs)}, tests={self.tests}, "
            f"correction={self.correction!r}, seed={self.seed})"
        )

    @property
    def primary_test(self) -> str:
        """The test whose significance the tables mark (the first requested)."""
        return self.tests[0]

    @property
    def n_comparisons(self) -> int:
        """Size of the correction family: compared pairs x measures."""
        return len(self.pairs)

    def _measure(self, measure: object) -> str:
        name = str(measure)
        if name in self.measures:
            return name
        from cranfield.evaluation.evaluator import resolve_measures
        from cranfield.measures import Measure

        try:
            parsed = resolve_measures(measure if isinstance(measure, Measure) else name)
        except ValueError:
            parsed = []
        if len(parsed) == 1 and str(parsed[0]) in self.measures:
            return str(parsed[0])
        raise MeasureError(f"{name} was not compared; compared: {', '.join(self.measures)}.")

    def _run(self, run: str, option: str = "run") -> int:
        return self.runs.index(check_choice(option, run, self.runs))

    def pair(self, a: str, b: str, measure: object) -> PairComparison:
        """The comparison of runs ``a`` and ``b`` on ``measure``, in whichever order it was made.

        Check :attr:`PairComparison.control` for the orientation of the differences.
        """
        m = self._measure(measure)
        self._run(a, "a")
        self._run(b, "b")
        for p in self.pairs:
            if p.measure == m and {p.control, p.treatment} == {a, b} and a != b:
                return p
        raise OptionError("b", f"a run compared with {a!r}", b)

    def significant(self, test: str | None = None) -> list[PairComparison]:
        """Pairs whose adjusted p-value of ``test`` (default: the primary test) is ``<= alpha``."""
        t = self.primary_test if test is None else check_tests(test)[0]
        check_choice("test", t, self.tests)
        return [p for p in self.pairs if p.tests[t].significant]

    def better_than(self, run: str, measure: object) -> list[str]:
        """Runs that ``run`` is significantly better than on ``measure``.

        Significance is the primary test's adjusted p-value; the direction is the sign of the
        mean difference (the quantity the tables show).
        """
        m = self._measure(measure)
        self._run(run)
        out: list[str] = []
        for p in self.pairs:
            if p.measure != m or not p.tests[self.primary_test].significant:
                continue
            if p.treatment == run and p.mean_difference > 0:
                out.append(p.control)
            elif p.control == run and p.mean_difference < 0:
                out.append(p.treatment)
        return sorted(out, key=self.runs.index)

    def differences(self, control: str, treatment: str, measure: object) -> QueryDifferences:
        """Per-query scores and differences ``treatment - control`` on one measure.

        Examples
        --------
        >>> from cranfield.stats import compare_scores
        >>> c = compare_scores({"a": {"AP": [0.2, 0.5, 0.1]}, "b": {"AP": [0.4, 0.5, 0.0]}})
        >>> c.differences("a", "b", "AP").differences.round(2).tolist()
        [0.2, 0.0, -0.1]
        """
        m = self._measure(measure)
        i, j = self._run(control, "control"), self._run(treatment, "treatment")
        X = self.scores[m]
        return QueryDifferences(
            measure=m,
            control=control,
            treatment=treatment,
            topics=list(self.topics),
            control_scores=X[:, i].copy(),
            treatment_scores=X[:, j].copy(),
        )

    def describe(self, *, command_line: bool = False) -> list[str]:
        """The method in sentences: query set, inputs, runs missing queries, tests, intervals.

        One sentence on the queries compared, then what reading the inputs did beyond their
        plain meaning (:attr:`ScoreTable.notes
        <cranfield.evaluation.results.ScoreTable.notes>`), one per run that misses judged
        queries, one per test with its correction, and, last, one on the intervals when there
        are any. These
        are the ``notes`` of :meth:`to_dict`; a table adds the legend of its marks
        (:func:`cranfield.report.comparison.notes`). ``command_line=True`` names the
        missing-query policy by its flag (``--missing zero``, not ``missing=zero``).

        Examples
        --------
        >>> from cranfield.stats import compare_scores
        >>> c = compare_scores({"a": {"AP": [0.2, 0.5, 0.1]}, "b": {"AP": [0.4, 0.5, 0.0]}})
        >>> for sentence in c.describe():
        ...     print(sentence)
        3 queries, scores as given.
        Test: paired t-test (two-sided, 2 degrees of freedom); Holm correction over
        1 comparison (1 pair × 1 measure).
        Mean differences have 95% confidence intervals: t.
        """
        n = len(self.topics)
        out: list[str] = []
        policy = (
            f"--missing {self.missing_policy}" if command_line else f"missing={self.missing_policy}"
        )
        if self.missing_policy == "zero":
            out.append(
                f"{n:,} {'query' if n == 1 else 'queries'}: every judged query, "
                f"a run missing a query scores 0 on it ({policy})."
            )
        elif self.missing_policy == "skip":
            out.append(
                f"{n:,} queries: the judged queries every run retrieved ({policy}); "
                f"{len(self.dropped_topics):,} judged queries left out."
            )
        elif self.missing_policy == "error":
            out.append(f"{n:,} queries: every judged query, retrieved by every run ({policy}).")
        else:
            out.append(f"{n:,} queries, scores as given.")
        if self.table is not None:
            out.extend(self.table.notes)
        judged = n + len(self.dropped_topics)
        for run, miss in self.missing_topics.items():
            fate = "scored 0" if self.missing_policy == "zero" else "left out of every comparison"
            out.append(
                f"† {run} has no ranking for {len(miss):,} of the {judged:,} judged queries "
                f"({fate})."
            )
        out.extend(_test_sentence(self, test) for test in self.tests)
        if self.intervals:
            kinds = {"t": "t", "percentile": "bootstrap percentile", "bca": "bootstrap BCa"}
            names = ", ".join(kinds[i] for i in self.intervals)
            boot = any(i != "t" for i in self.intervals)
            extra = f" ({self.n_resamples:,} resamples; seed {self.seed})" if boot else ""
            unadjusted = (
                f"; they are not adjusted for multiple comparisons: each covers its own pair "
                f"at {(1 - self.alpha) * 100:g}%, while the p-values are adjusted"
                if self.p_values_adjusted
                else ""
            )
            out.append(
                f"Mean differences have {(1 - self.alpha) * 100:g}% confidence intervals: "
                f"{names}{extra}{unadjusted}."
            )
        return out

    @property
    def p_values_adjusted(self) -> bool:
        """Whether some adjusted p-value differs in kind from its own pair's: a correction
        over more than one comparison, or Tukey's HSD over more than two runs. The intervals
        never are adjusted, which the notes then say beside them."""
        if self.correction != "none" and len(self.pairs) > 1:
            return True
        return len(self.runs) > 2 and any(t in FAMILYWISE for t in self.tests)

    def provenance(self) -> Provenance | None:
        """cranfield's version, the SHA-256 of the qrels and of every run file, the measures,
        the evaluation options and the tie rule (``None`` for scores compared with
        :func:`compare_scores`, which cranfield did not compute). Files are hashed when asked."""
        return None if self.table is None else self.table.provenance()

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """Plain data (JSON-ready, non-finite numbers as ``None``): method, means and every pair,
        and the :meth:`provenance` of what was compared.

        ``per_query=True`` adds the per-query scores of every run.
        """
        k = len(self.runs)
        family = {t: (k * (k - 1) // 2 if t in FAMILYWISE else len(self.pairs)) for t in self.tests}
        method: dict[str, Any] = {
            "queries": len(self.topics),
            "missing_policy": self.missing_policy,
            "tests": list(self.tests),
            "primary_test": self.primary_test,
            "correction": self.correction,
            "correction_family_size": family,
            "alpha": self.alpha,
            "confidence": 1.0 - self.alpha,
            "intervals": list(self.intervals),
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "randomization": (
                None
                if "randomization" not in self.tests
                else ("exact" if self.exact_randomization else "monte-carlo")
            ),
            "risk_aversion": self.risk_aversion,
            "notes": self.describe(),
        }
        out: dict[str, Any] = {
            "method": method,
            "runs": list(self.runs),
            "baseline": self.baseline,
            "measures": list(self.measures),
            "means": {m: {r: _finite(v) for r, v in self.means[m].items()} for m in self.measures},
            "missing_topics": {r: list(t) for r, t in self.missing_topics.items()},
            "dropped_topics": list(self.dropped_topics),
            "comparisons": [_pair_dict(p) for p in self.pairs],
        }
        if per_query:
            out["per_query"] = {
                "topics": list(self.topics),
                "scores": {
                    m: {
                        r: [float(v) for v in self.scores[m][:, j]] for j, r in enumerate(self.runs)
                    }
                    for m in self.measures
                },
            }
        source = self.provenance()
        if source is not None:
            out["provenance"] = source.to_dict()
        return out

    def to_json(self, *, per_query: bool = False, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (deterministic: same inputs and seed, same bytes)."""
        check_int("indent", indent, minimum=0, none=True)
        return json.dumps(self.to_dict(per_query=per_query), indent=indent, allow_nan=False) + "\n"

    def to_polars(self) -> pl.DataFrame:
        """One row per compared pair and measure with every number.

        Columns: measure, control, treatment, the two means and their difference, the
        intervals (``ci_<kind>_low``, ``ci_<kind>_high``), the effects (``cohens_dz``, wins,
        ties, losses, improved, hurt, ``urisk``, ``trisk``) and per test
        ``<test>_statistic``, ``_p``, ``_p_adjusted``, ``_significant``.
        """
        import polars as pl

        records = [_pair_record(self, p) for p in self.pairs]
        return pl.DataFrame(records, infer_schema_length=None)

    def to_csv(self) -> str:
        """:meth:`to_polars` as CSV text."""
        return self.to_polars().write_csv()

    def _repr_html_(self) -> str:
        """A notebook's view: the means (one row per run) and :meth:`to_polars`'s pairs with
        their differences, intervals and p-values, as polars shows tables (escaped, nothing
        active). The table with significance marks and its LaTeX are
        :func:`cranfield.report.comparison.to_text` and ``to_latex``."""
        import polars as pl

        means = pl.DataFrame(
            {"run": self.runs, **{m: [self.means[m][r] for r in self.runs] for m in self.measures}}
        )
        return means._repr_html_() + self.to_polars()._repr_html_()


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _test_sentence(c: Comparison, test: str) -> str:
    """How ``test`` was run and corrected, in one sentence."""
    n = len(c.topics)
    B = c.n_resamples
    label = TEST_LABELS[test]
    if test == "t-test":
        how = f"{label} (two-sided, {n - 1} degrees of freedom)"
    elif test == "wilcoxon":
        how = f"{label} (two-sided; queries with equal scores dropped, as scipy)"
    elif test == "sign":
        how = f"{label} (two-sided exact binomial; queries with equal scores dropped)"
    elif test == "randomization":
        if c.exact_randomization:
            how = f"{label} (two-sided; exact, all {2**n:,} sign assignments)"
        else:
            how = (
                f"{label} (two-sided; {B:,} random sign assignments, p = (1 + count) / "
                f"{B + 1:,}; seed {c.seed})"
            )
    elif test == "bootstrap":
        how = f"{label} (two-sided shift method; {B:,} resamples of the queries; seed {c.seed})"
    elif test == "tukey-hsd":
        how = f"{label} (two-way ANOVA of {len(c.runs)} runs blocked by query)"
    else:
        how = f"{label} ({B:,} permutations of the runs within each query; seed {c.seed})"
    k = len(c.runs)
    if test in FAMILYWISE:
        corr = f"adjusted for all {k * (k - 1) // 2:,} pairs of runs within each measure"
    else:
        npairs = len(c.pairs) // max(1, len(c.measures))
        family = (
            f"{_count(len(c.pairs), 'comparison')} ({_count(npairs, 'pair')} × "
            f"{_count(len(c.measures), 'measure')})"
        )
        corr = (
            f"no correction for the {family}"
            if c.correction == "none"
            else f"{correction_label(c.correction)} over {family}"
        )
    return f"Test: {how}; {corr}."


def _pair_dict(p: PairComparison) -> dict[str, Any]:
    """One pair for :meth:`Comparison.to_dict` (nested: intervals and tests as objects)."""
    return {
        "measure": p.measure,
        "control": p.control,
        "treatment": p.treatment,
        "control_mean": _finite(p.control_mean),
        "treatment_mean": _finite(p.treatment_mean),
        "mean_difference": _finite(p.mean_difference),
        "intervals": {kind: [_finite(lo), _finite(hi)] for kind, (lo, hi) in p.intervals.items()},
        "cohens_dz": _finite(p.cohens_dz),
        "wins": p.wins,
        "ties": p.ties,
        "losses": p.losses,
        "improved": p.improved,
        "hurt": p.hurt,
        "urisk": _finite(p.urisk),
        "trisk": _finite(p.trisk),
        "tests": {t: o.to_dict() for t, o in p.tests.items()},
    }


_TEST_COLUMNS: Final = {
    "t-test": "t_test",
    "wilcoxon": "wilcoxon",
    "sign": "sign",
    "randomization": "randomization",
    "bootstrap": "bootstrap",
    "tukey-hsd": "tukey_hsd",
    "randomized-tukey-hsd": "randomized_tukey_hsd",
}


def _pair_record(c: Comparison, p: PairComparison) -> dict[str, Any]:
    """One flat row of :meth:`Comparison.to_polars`."""
    rec: dict[str, Any] = {
        "measure": p.measure,
        "control": p.control,
        "treatment": p.treatment,
        "control_mean": p.control_mean,
        "treatment_mean": p.treatment_mean,
        "mean_difference": p.mean_difference,
    }
    for kind in c.intervals:
        lo, hi = p.intervals[kind]
        rec[f"ci_{kind}_low"] = lo
        rec[f"ci_{kind}_high"] = hi
    rec.update(
        cohens_dz=p.cohens_dz,
        wins=p.wins,
        ties=p.ties,
        losses=p.losses,
        improved=p.improved,
        hurt=p.hurt,
        urisk=p.urisk,
        trisk=p.trisk,
    )
    for test in c.tests:
        o = p.tests[test]
        col = _TEST_COLUMNS[test]
        rec[f"{col}_statistic"] = o.statistic
        rec[f"{col}_p"] = o.p_value
        rec[f"{col}_p_adjusted"] = o.p_adjusted
        rec[f"{col}_significant"] = o.significant
    return rec


# --------------------------------------------------------------------------- the engine


def _pairs(k: int, baseline: int | None) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``(control, treatment)`` run indices: baseline vs each other run, or every ``i < j``."""
    if baseline is None:
        c, t = np.triu_indices(k, 1)
        return c.astype(np.intp), t.astype(np.intp)
    others = np.array([j for j in range(k) if j != baseline], dtype=np.intp)
    return np.full(others.size, baseline, dtype=np.intp), others


@dataclass(frozen=True)
class _Scores:
    """What a comparison tests: per measure, a (queries x runs) matrix of aligned scores."""

    runs: list[str]
    measures: list[str]
    topics: list[str]
    cubes: list[NDArray[np.float64]]
    means: dict[str, dict[str, float]]
    missing_policy: str
    missing_topics: dict[str, list[str]] = field(default_factory=dict)
    dropped_topics: list[str] = field(default_factory=list)
    table: ScoreTable | None = None  # what cranfield evaluated, for the provenance


@dataclass(frozen=True)
class _Columns:
    """The scores side by side, measure-major, and the (treatment, control) column pairs."""

    X: NDArray[np.float64]  # (queries, measures x runs)
    ia: NDArray[np.intp]  # treatment column of each compared pair and measure
    ib: NDArray[np.intp]  # control column
    ctrl: NDArray[np.intp]  # control run of each pair
    treat: NDArray[np.intp]  # treatment run of each pair


def _baseline_index(runs: list[str], baseline: str | int | None) -> int | None:
    k = len(runs)
    if baseline is None:
        return None
    if isinstance(baseline, str):
        return runs.index(check_choice("baseline", baseline, runs))
    return check_int("baseline", baseline, minimum=0, maximum=k - 1)


def _columns(scores: _Scores, base: int | None) -> _Columns:
    k, M = len(scores.runs), len(scores.measures)
    ctrl, treat = _pairs(k, base)
    n_pairs = ctrl.size
    X = np.ascontiguousarray(np.concatenate(scores.cubes, axis=1))  # (n, M * k), measure-major
    offs = np.repeat(np.arange(M, dtype=np.intp) * k, n_pairs)
    ia = offs + np.tile(treat, M)  # treatment columns
    ib = offs + np.tile(ctrl, M)  # control columns
    return _Columns(X, ia, ib, ctrl, treat)


@dataclass(frozen=True)
class _Tested:
    """Raw ``(statistic, p)`` of each test, bootstrap intervals, the seed and exactness."""

    raw: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]]
    boot_cis: dict[str, NDArray[np.float64]]
    seed: int | None
    exact: bool


def _run_tests(scores: _Scores, cols: _Columns, plan: TestPlan) -> _Tested:
    """Every test of ``plan`` on every compared pair and measure, in one pass each."""
    tests, intervals, n_resamples = list(plan.tests), list(plan.intervals), plan.n_resamples
    X, ia, ib, cubes = cols.X, cols.ia, cols.ib, scores.cubes
    n = len(scores.topics)
    exact = "randomization" in tests and use_exact(n, n_resamples, None)
    random_tests = RANDOM_TESTS.intersection(tests) - ({"randomization"} if exact else set())
    needs_seed = bool(random_tests) or any(i != "t" for i in intervals)
    seed = resolve_seed(plan.seed) if needs_seed else None
    stream_seed = 0 if seed is None else seed  # only read when needs_seed
    raw: dict[str, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
    boot_cis: dict[str, NDArray[np.float64]] = {}
    if "bootstrap" in tests or any(i != "t" for i in intervals):
        sums = bootstrap_sums(X, n_resamples=n_resamples, seed=stream_seed)
        boot_p, boot_cis = bootstrap_analysis(
            X, sums, ia, ib, alpha=plan.alpha, intervals=tuple(i for i in intervals if i != "t")
        )
        if "bootstrap" in tests:
            sums_in_order = sequential_sums(X)
            raw["bootstrap"] = ((sums_in_order[ia] - sums_in_order[ib]) / n, boot_p)
        del sums
    for test in tests:
        if test == "t-test":
            raw[test] = t_test_pairs(X, ia, ib)
        elif test == "wilcoxon":
            raw[test] = wilcoxon_pairs(X, ia, ib)
        elif test == "sign":
            raw[test] = sign_pairs(X, ia, ib)
        elif test == "randomization":
            raw[test] = randomization_counts(
                X, ia, ib, n_resamples=n_resamples, seed=stream_seed, exact=exact
            )
        elif test == "tukey-hsd":
            parts = [tukey_pairs(c, cols.treat, cols.ctrl) for c in cubes]
            raw[test] = (
                np.concatenate([q for q, _ in parts]),
                np.concatenate([p for _, p in parts]),
            )
        elif test == "randomized-tukey-hsd":
            ranges = randomized_tukey_ranges(cubes, n_resamples=n_resamples, seed=stream_seed)
            parts = [
                randomized_tukey_pvalues(c, ranges[m], cols.treat, cols.ctrl)
                for m, c in enumerate(cubes)
            ]
            raw[test] = (
                np.concatenate([s for s, _ in parts]),
                np.concatenate([p for _, p in parts]),
            )
    return _Tested(raw, boot_cis, seed, exact)


def _pair_results(
    scores: _Scores, cols: _Columns, plan: TestPlan, tested: _Tested
) -> list[PairComparison]:
    """One :class:`PairComparison` per compared pair and measure, measure-major."""
    X, ia, ib = cols.X, cols.ia, cols.ib
    n = len(scores.topics)
    n_pairs = cols.ctrl.size
    d = X[:, ia] - X[:, ib]
    sums_in_order = sequential_sums(X)
    total = sums_in_order[ia] - sums_in_order[ib]
    adjusted = {
        t: (p if t in FAMILYWISE else adjust_p_values(p, plan.correction))
        for t, (_, p) in tested.raw.items()
    }
    t_ci = t_intervals(d, plan.alpha) if "t" in plan.intervals else None
    scale = pair_scale(X, ia, ib)
    dz = cohens_dz(d, scale)
    wins, ties, losses = win_tie_loss(d)
    urisk, trisk = risk(d, plan.risk_aversion, scale)
    pairs: list[PairComparison] = []
    for col in range(ia.size):
        measure = scores.measures[col // n_pairs]
        c_run = scores.runs[int(cols.ctrl[col % n_pairs])]
        t_run = scores.runs[int(cols.treat[col % n_pairs])]
        ivs: dict[str, tuple[float, float]] = {}
        for kind in plan.intervals:
            arr = tested.boot_cis[kind] if t_ci is None or kind != "t" else t_ci
            ivs[kind] = (float(arr[col, 0]), float(arr[col, 1]))
        outcomes = {
            t: TestOutcome(
                statistic=float(tested.raw[t][0][col]),
                p_value=float(tested.raw[t][1][col]),
                p_adjusted=float(adjusted[t][col]),
                significant=bool(adjusted[t][col] <= plan.alpha),
            )
            for t in plan.tests
        }
        pairs.append(
            PairComparison(
                measure=measure,
                control=c_run,
                treatment=t_run,
                control_mean=scores.means[measure][c_run],
                treatment_mean=scores.means[measure][t_run],
                mean_difference=float(total[col] / n),
                intervals=ivs,
                cohens_dz=float(dz[col]),
                wins=int(wins[col]),
                ties=int(ties[col]),
                losses=int(losses[col]),
                improved=int(wins[col]) / n,
                hurt=int(losses[col]) / n,
                urisk=float(urisk[col]),
                trisk=float(trisk[col]),
                tests=outcomes,
            )
        )
    return pairs


def _analyse(scores: _Scores, *, baseline: str | int | None, plan: TestPlan) -> Comparison:
    """Test every compared pair of ``scores`` as ``plan`` says: the engine of :func:`compare`
    and :func:`compare_scores`."""
    n = len(scores.topics)  # two runs or more: compare and compare_scores have checked
    if n < 2:
        raise EvaluationError(
            f"a paired comparison needs at least 2 queries common to all runs, got {n}."
        )
    base = _baseline_index(scores.runs, baseline)
    cols = _columns(scores, base)
    tested = _run_tests(scores, cols, plan)
    return Comparison(
        runs=list(scores.runs),
        measures=list(scores.measures),
        topics=list(scores.topics),
        scores=dict(zip(scores.measures, scores.cubes, strict=True)),
        means=scores.means,
        baseline=None if base is None else scores.runs[base],
        pairs=_pair_results(scores, cols, plan, tested),
        tests=list(plan.tests),
        correction=plan.correction,
        alpha=plan.alpha,
        intervals=list(plan.intervals),
        n_resamples=plan.n_resamples,
        seed=tested.seed,
        exact_randomization=tested.exact,
        risk_aversion=plan.risk_aversion,
        missing_policy=scores.missing_policy,
        missing_topics=scores.missing_topics,
        dropped_topics=scores.dropped_topics,
        table=scores.table,
    )


# --------------------------------------------------------------------------- public API


@renamed_parameters(rng="seed")
def compare(  # noqa: PLR0913 -- entry point: runs, naming, plan, options, inputs
    qrels: QrelsLike,
    runs: RunSet | Sequence[RunLike] | Mapping[str, RunLike],
    measures: MeasureLike | Iterable[MeasureLike] = ("AP", "nDCG@10"),
    *,
    baseline: str | int | None = None,
    names: RunNaming | Sequence[str] = "file",
    plan: TestPlan | None = None,
    options: EvalOptions | None = None,
    known: QrelsLike | None = None,
    intents: Any = None,
    execution: Execution | None = None,
    **kwargs: Unpack[CompareExecutionKwargs],
) -> Comparison:
    """Evaluate several runs on the same queries and test their differences pairwise.

    Parameters
    ----------
    qrels:
        Judgments (anything :func:`cranfield.evaluate` accepts).
    runs:
        Two or more runs: paths, ``Run`` objects, DataFrames or dicts, as a list, or a
        ``{name: run}`` mapping that names them.
    measures:
        Measure names or ``Measure`` objects (default ``AP`` and ``nDCG@10``).
    baseline:
        Name, path or index of the run every other run is compared with; ``None``
        (default) compares every pair.
    names:
        How to name runs given as a list: ``"file"`` (default: the run-naming rule of
        :mod:`cranfield.io.run_names`, file names without folders and suffixes), ``"tag"``
        (run tags), or a list of names.
    plan, **kwargs:
        The test options (:class:`~cranfield.stats.plan.TestPlan`), whole or as keywords:
        ``tests`` (default ``"t-test"``; also ``"wilcoxon"``, ``"sign"``,
        ``"randomization"``, ``"bootstrap"``, ``"tukey-hsd"``, ``"randomized-tukey-hsd"``),
        ``correction`` (``"holm"``), ``alpha`` (0.05), ``seed``, ``n_resamples`` (10,000),
        ``intervals`` (``"t"``), ``risk_aversion`` (1).
    options, known, intents, **kwargs:
        Every evaluation option and extra input of :func:`cranfield.evaluate`
        (:class:`~cranfield.evaluation.options.EvalOptions`). Every run is scored on the
        same queries: with ``missing="zero"`` (default) all judged queries, a run's missing
        query scoring 0; with ``"skip"`` the judged queries that every run retrieved;
        ``"error"`` refuses runs that miss judged queries.
    execution, **kwargs:
        Where and how the runs are scored (:class:`~cranfield.evaluation.execution.
        Execution`, whole or as keywords): ``jobs`` worker processes (0: every core) or the
        Dask cluster ``scheduler``; ``store``, a folder where each run file's results are
        kept and read back instead of computed again (:mod:`cranfield.evaluation.store`);
        ``progress``, a bar of the runs scored on standard error (``None``: when it is a
        terminal); ``stream``. The numbers are the same whatever they say.

    Returns
    -------
    Comparison
        Per-query scores, means, and for each pair and measure the tests, effects and
        intervals, with data exports (``to_dict``, ``to_json``, ``to_polars``, ``to_csv``);
        :mod:`cranfield.report.comparison` renders it as text, Markdown or LaTeX.

    Raises
    ------
    cranfield.errors.OptionError
        An unknown test, correction, interval, baseline or run name, or a bad number (a
        ``ValueError`` too).
    cranfield.errors.MeasureError
        An unknown measure.
    cranfield.errors.EvaluationError
        Fewer than 2 common queries; :class:`~cranfield.errors.MissingTopicError` when
        ``missing="error"`` and a run misses a judged query.

    Notes
    -----
    Runs are aligned by query id, never by position. Differences are
    ``treatment - control``: with a baseline it is the control; otherwise, for runs
    ``i < j`` in the order given, ``i`` is the control. How each test treats ties and zero
    differences is documented on the test's own function in :mod:`cranfield.stats`.

    Examples
    --------
    >>> from cranfield.stats import compare
    >>> qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1, "d4": 0}, "q3": {"d5": 1},
    ...          "q4": {"d6": 1, "d7": 1}, "q5": {"d8": 1}, "q6": {"d9": 1}}
    >>> bm25 = {"q1": {"d1": 3.0, "x": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "d3": 1.0},
    ...         "q3": {"x": 2.0, "d5": 1.0}, "q4": {"d6": 2.0, "d7": 1.0},
    ...         "q5": {"x": 1.0}, "q6": {"d9": 1.0}}
    >>> dense = {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d3": 2.0, "d4": 1.0},
    ...          "q3": {"d5": 2.0, "x": 1.0}, "q4": {"x": 2.0, "d6": 1.5, "d7": 1.0},
    ...          "q5": {"d8": 1.0}}
    >>> c = compare(qrels, {"bm25": bm25, "dense": dense}, ["AP", "P@1"],
    ...             tests=["randomization", "t-test"], seed=42)
    >>> p = c.pair("bm25", "dense", "AP")
    >>> round(p.mean_difference, 4), (p.wins, p.ties, p.losses)
    (0.125, (4, 0, 2))
    >>> p.tests["randomization"].p_value, p.tests["randomization"].p_adjusted
    (0.65625, 1.0)
    >>> c.missing_topics
    {'dense': ['q6']}
    >>> print(c.describe()[2])  # doctest: +NORMALIZE_WHITESPACE
    Test: paired randomization test (two-sided; exact, all 64 sign assignments);
    Holm correction over 2 comparisons (1 pair × 2 measures).
    """
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.io.runset import several_runs

    rest: dict[str, Any] = dict(kwargs)
    run_on = execution_from(execution, rest, caller="compare")
    test_plan, eval_kwargs = split_options(plan, rest)
    evaluator = Evaluator(qrels, measures, options, known=known, intents=intents, **eval_kwargs)
    wanted = evaluator.measures
    if not wanted:
        raise OptionError("measures", "at least one measure", measures)
    run_set = several_runs(runs, names)
    if isinstance(baseline, (str, Path)):
        baseline = run_set.names[run_set.find(baseline)]
    table = evaluator.many(run_set, execution=run_on)
    return compare_table(table, baseline=baseline, plan=test_plan)


def compare_table(
    table: ScoreTable, *, baseline: str | int | None = None, plan: TestPlan | None = None
) -> Comparison:
    """The :class:`Comparison` of the runs of a :class:`ScoreTable` scored already (what
    :func:`compare` does once it has scored the runs): their inputs named as the table's
    evaluator read them."""
    test_plan = plan if plan is not None else TestPlan()
    wanted = list(table.measures)
    topics = table.topics
    run_names = table.names
    cubes = [table.matrix(m) for m in wanted]
    means = {
        str(m): {nm: aggregate(cube[:, j], m.spec.aggregate) for j, nm in enumerate(run_names)}
        for m, cube in zip(wanted, cubes, strict=True)
    }
    missing_topics = {r.run_name: list(r.missing_topics) for r in table if r.missing_topics}
    dropped = table.dropped_topics
    scores = _Scores(
        run_names,
        [str(m) for m in wanted],
        topics,
        cubes,
        means,
        table.options.missing,
        missing_topics,
        dropped,
        table,
    )
    return _analyse(scores, baseline=baseline, plan=test_plan)


@renamed_parameters(rng="seed")
def compare_scores(
    scores: Mapping[str, Mapping[str, ArrayLike]],
    *,
    topics: Sequence[str] | None = None,
    baseline: str | int | None = None,
    plan: TestPlan | None = None,
    **kwargs: Unpack[TestKwargs],
) -> Comparison:
    """:func:`compare` on per-query scores computed elsewhere.

    Parameters
    ----------
    scores:
        ``{run: {measure: per-query values}}``; every run must give every measure, each a
        vector of the same length in the same query order.
    topics:
        Query ids of the positions (default ``"1"``, ``"2"``, ...).
    baseline, plan, **kwargs:
        As in :func:`compare` (the test options). Means are arithmetic means.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> from cranfield.stats import compare_scores
    >>> c = compare_scores({"bm25": {"AP": [0.2, 0.3, 0.1, 0.4]},
    ...                     "dense": {"AP": [0.3, 0.5, 0.1, 0.6]}}, tests="t-test")
    >>> round(c.pair("bm25", "dense", "AP").tests["t-test"].p_value, 4)
    0.0796
    """
    test_plan = plan_from(plan, kwargs)
    run_names = [str(r) for r in scores]
    if len(run_names) < 2:
        raise ValueError(f"scores must hold at least 2 runs, got {len(run_names)}.")
    measures = [str(m) for m in scores[run_names[0]]]
    if not measures:
        raise ValueError(f"scores[{run_names[0]!r}] must hold at least one measure, got none.")
    cubes: list[NDArray[np.float64]] = []
    n: int | None = None
    for m in measures:
        cols = []
        for r in run_names:
            per_run = scores[r]
            if m not in per_run or set(map(str, per_run)) != set(measures):
                raise ValueError(
                    f"every run must give the same measures; {r!r} gives "
                    f"{sorted(map(str, per_run))}, expected {sorted(measures)}."
                )
            v = np.asarray(per_run[m], dtype=np.float64)
            if v.ndim != 1:
                raise ValueError(f"scores[{r!r}][{m!r}] must be a 1-d vector, got shape {v.shape}.")
            if n is None:
                n = v.size
            if v.size != n:
                raise ValueError(
                    f"scores[{r!r}][{m!r}] has {v.size} values, expected {n} like the others."
                )
            if not np.isfinite(v).all():
                raise ValueError(f"scores[{r!r}][{m!r}] must be finite, got NaN or infinity.")
            cols.append(v)
        cubes.append(np.ascontiguousarray(np.column_stack(cols)))
    n = 0 if n is None else n
    if topics is None:
        topic_ids = [str(i + 1) for i in range(n)]
    else:
        topic_ids = [str(t) for t in topics]
        if len(topic_ids) != n or len(set(topic_ids)) != n:
            raise OptionError("topics", f"{n} distinct query ids, one per score", list(topics))
    means = {
        m: {r: aggregate(c[:, j], "mean") for j, r in enumerate(run_names)}
        for m, c in zip(measures, cubes, strict=True)
    }
    scores_ = _Scores(run_names, measures, topic_ids, cubes, means, "scores")
    return _analyse(scores_, baseline=baseline, plan=test_plan)


class CompareKwargs(EvalKwargs, TestKwargs, total=False):
    """The keyword options of a comparison: the evaluation options
    (:class:`~cranfield.evaluation.options.EvalOptions`) and the test options
    (:class:`~cranfield.stats.plan.TestPlan`)."""


class CompareExecutionKwargs(CompareKwargs, ExecutionKwargs, total=False):
    """The keyword options of :func:`compare` (and ``html_report``): the evaluation, test
    and execution options (:class:`~cranfield.evaluation.execution.Execution`)."""


def split_options(
    plan: TestPlan | None, kwargs: Mapping[str, Any], *, caller: str = "compare"
) -> tuple[TestPlan, EvalKwargs]:
    """The test plan and the evaluation keywords in the ``**kwargs`` of :func:`compare` (and
    of the functions built on it, such as ``html_report``)."""
    tests = {k: v for k, v in kwargs.items() if k in PLAN_NAMES}
    rest = {k: v for k, v in kwargs.items() if k not in PLAN_NAMES}
    for key, value in rest.items():
        if key not in OPTION_NAMES:
            raise OptionError(
                key,
                "an option of " + caller,
                value,
                note="Accepted: " + ", ".join((*PLAN_NAMES, *OPTION_NAMES)) + ".",
            )
    return plan_from(plan, tests), cast("EvalKwargs", rest)
