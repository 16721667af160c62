"""Statistics for comparing runs: paired tests, resampling, corrections, effects, compare().

The front door is :func:`compare` (evaluate runs, then test every pair or every run against a
baseline) and its result :class:`Comparison`. The building blocks work on two aligned
per-query score vectors and are usable on their own:

========================  =====================================================
paired tests              :func:`paired_t_test`, :func:`wilcoxon_test`, :func:`sign_test`
resampling tests          :func:`randomization_test`, :func:`bootstrap_test`
all pairs at once         :func:`tukey_hsd`, :func:`randomized_tukey_hsd`
corrections               :func:`adjust_p_values` (Bonferroni, Holm, Benjamini–Hochberg)
effects and intervals     :func:`effect_sizes`, :func:`confidence_interval`
per-query differences     :func:`query_differences`, ``Comparison.differences``
========================  =====================================================

Every random procedure takes ``seed`` (an integer or a ``numpy.random.Generator``) and
gives bit-identical results for the same seed whatever the number of threads.
"""

from cranfield.stats.comparison import (
    TESTS,
    Comparison,
    PairComparison,
    TestName,
    TestOutcome,
    compare,
    compare_scores,
)
from cranfield.stats.corrections import CORRECTIONS, Correction, adjust_p_values
from cranfield.stats.effects import INTERVALS, Effects, Interval, confidence_interval, effect_sizes
from cranfield.stats.histogram import QueryDifferences, query_differences
from cranfield.stats.paired import (
    MatrixTestResult,
    TestResult,
    paired_t_test,
    sign_test,
    studentized_range_sf,
    tukey_hsd,
    wilcoxon_test,
)
from cranfield.stats.resampling import (
    RngLike,
    bootstrap_test,
    randomization_test,
    randomized_tukey_hsd,
    resolve_seed,
)

__all__ = [
    "CORRECTIONS",
    "INTERVALS",
    "TESTS",
    "Comparison",
    "Correction",
    "Effects",
    "Interval",
    "MatrixTestResult",
    "PairComparison",
    "QueryDifferences",
    "RngLike",
    "TestName",
    "TestOutcome",
    "TestResult",
    "adjust_p_values",
    "bootstrap_test",
    "compare",
    "compare_scores",
    "confidence_interval",
    "effect_sizes",
    "paired_t_test",
    "query_differences",
    "randomization_test",
    "randomized_tukey_hsd",
    "resolve_seed",
    "sign_test",
    "studentized_range_sf",
    "tukey_hsd",
    "wilcoxon_test",
]
