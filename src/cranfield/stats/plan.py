"""The test options, declared once: :class:`TestPlan`.

Which tests a comparison runs, how their p-values are corrected, at what level, with which
seed, how many resamples, which intervals and URisk's weight. ``compare``, ``compare_scores``,
``html_report`` and the lab take them through one :class:`TestPlan`, whole (``plan=``) or as
keywords (``tests="randomization"``), validated here once; :data:`TestKwargs` is the same
list as a ``TypedDict`` for typed ``**kwargs`` (a test keeps the two equal).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypedDict, cast, get_args

from cranfield._validate import check_choices, check_float, check_int
from cranfield.errors import OptionError
from cranfield.stats.corrections import Correction, check_correction
from cranfield.stats.effects import INTERVALS, Interval
from cranfield.stats.resampling import RngLike, check_rng

__all__ = [
    "FAMILYWISE",
    "PLAN_NAMES",
    "TESTS",
    "TEST_LABELS",
    "TestKwargs",
    "TestName",
    "TestPlan",
    "check_tests",
    "plan_from",
]

TestName = Literal[
    "t-test", "wilcoxon", "sign", "randomization", "bootstrap", "tukey-hsd", "randomized-tukey-hsd"
]
TESTS: Final[tuple[str, ...]] = get_args(TestName)

_TEST_ALIASES: Final[dict[str, str]] = {
    "t": "t-test",
    "ttest": "t-test",
    "student": "t-test",
    "paired-t": "t-test",
    "signed-rank": "wilcoxon",
    "fisher": "randomization",
    "permutation": "randomization",
    "tukey": "tukey-hsd",
    "hsd": "tukey-hsd",
    "randomized-tukey": "randomized-tukey-hsd",
    "randomised-tukey-hsd": "randomized-tukey-hsd",
    "randomised-tukey": "randomized-tukey-hsd",
}
TEST_LABELS: Final[dict[str, str]] = {
    "t-test": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey-hsd": "Tukey HSD",
    "randomized-tukey-hsd": "randomized Tukey HSD",
}
FAMILYWISE: Final = frozenset({"tukey-hsd", "randomized-tukey-hsd"})
RANDOM_TESTS: Final = frozenset({"randomization", "bootstrap", "randomized-tukey-hsd"})


def check_tests(tests: str | Iterable[str]) -> list[str]:
    """Canonical test names, in order, without repeats (aliases such as ``"t"``,
    ``"fisher"``, ``"tukey"`` accepted); an unknown one is an :class:`OptionError`."""
    items = [tests] if isinstance(tests, str) else list(tests)
    if not items:
        raise OptionError("tests", "at least one of " + ", ".join(map(repr, TESTS)), items)
    out: list[str] = []
    for item in items:
        key = item.lower().replace("_", "-") if isinstance(item, str) else item
        name = _TEST_ALIASES.get(key, key) if isinstance(key, str) else None
        if name not in TESTS:
            raise OptionError("tests", "among " + ", ".join(map(repr, TESTS)), item)
        if name not in out:
            out.append(name)
    return out


@dataclass(frozen=True)
class TestPlan:
    """How runs are compared: the options every comparison shares.

    Parameters
    ----------
    tests:
        One or more of ``"t-test"`` (default), ``"wilcoxon"``, ``"sign"``, ``"randomization"``,
        ``"bootstrap"``, ``"tukey-hsd"``, ``"randomized-tukey-hsd"`` (aliases: ``"t"``,
        ``"student"``, ``"fisher"``, ``"permutation"``, ``"tukey"``). The first is the
        primary test the tables mark.
    correction:
        ``"holm"`` (default), ``"bonferroni"``, ``"bh"`` or ``"none"``; applied separately to
        each test over all compared pairs x measures. Tukey tests are already adjusted over
        all pairs of runs and are not corrected again.
    alpha:
        Significance level; intervals have confidence ``1 - alpha``.
    seed:
        Integer or ``numpy.random.Generator`` for the random procedures (randomization,
        bootstrap, randomized Tukey, bootstrap intervals). ``None`` draws a fresh seed; the
        seed used is always stored in :attr:`Comparison.seed`.
    n_resamples:
        Resamples of each random procedure (default 10,000).
    intervals:
        Intervals of the mean difference: ``"t"`` (default), ``"percentile"``, ``"bca"``.
    risk_aversion:
        URisk's weight on losses (default 1).

    Examples
    --------
    >>> TestPlan(tests=["fisher", "t"]).tests
    ('randomization', 't-test')
    >>> TestPlan(alpha=1.5)
    Traceback (most recent call last):
    ...
    cranfield.errors.OptionError: The 'alpha' option must be a number > 0 and < 1, got 1.5.
    """

    __test__ = False  # a plan of tests, not a test for pytest to collect

    tests: tuple[TestName, ...] | TestName | Sequence[TestName] = ("t-test",)
    correction: Correction = "holm"
    alpha: float = 0.05
    seed: RngLike = None
    n_resamples: int = 10_000
    intervals: tuple[Interval, ...] | Interval | Sequence[Interval] = ("t",)
    risk_aversion: float = 1.0

    def __post_init__(self) -> None:
        canonical = {
            "tests": tuple(check_tests(self.tests)),
            "correction": check_correction(self.correction),
            "alpha": check_float("alpha", self.alpha, minimum=0, maximum=1, above=True, below=True),
            "n_resamples": check_int("n_resamples", self.n_resamples, minimum=1),
            "intervals": _intervals(self.intervals),
            "risk_aversion": check_float("risk_aversion", self.risk_aversion, minimum=0),
        }
        check_rng(self.seed)
        for name, value in canonical.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain data (a Generator seed is shown by its type)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["tests"], out["intervals"] = list(self.tests), list(self.intervals)
        if not (out["seed"] is None or isinstance(out["seed"], int)):
            out["seed"] = type(out["seed"]).__name__
        return out


def _intervals(intervals: object) -> tuple[Interval, ...]:
    """The intervals asked for, in order, without repeats; none is allowed."""
    if not isinstance(intervals, str) and not list(cast("Iterable[object]", intervals)):
        return ()
    return tuple(check_choices("intervals", cast("Any", intervals), INTERVALS))


class TestKwargs(TypedDict, total=False):
    """The fields of :class:`TestPlan` as keyword arguments; documented on :class:`TestPlan`."""

    tests: tuple[TestName, ...] | TestName | Sequence[TestName]
    correction: Correction
    alpha: float
    seed: RngLike
    n_resamples: int
    intervals: tuple[Interval, ...] | Interval | Sequence[Interval]
    risk_aversion: float


TestKwargs.__test__ = False  # type: ignore[attr-defined]

PLAN_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in dataclasses.fields(TestPlan))


def plan_from(plan: TestPlan | None, kwargs: Mapping[str, Any]) -> TestPlan:
    """``plan`` with ``kwargs`` applied: the one way a comparison's test options are built."""
    base = TestPlan() if plan is None else plan
    if not isinstance(base, TestPlan):
        raise OptionError("plan", "a TestPlan or None", plan)
    return dataclasses.replace(base, **kwargs) if kwargs else base
