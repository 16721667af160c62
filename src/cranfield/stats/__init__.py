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
system-ranking agreement  :func:`correlate` (one call from the qrels and the runs),
                          :func:`correlate_measures`, :func:`correlate_tables`,
                          :func:`correlate_scores` (τ-b, τ_AP, ρ, r, RBO, swaps)
rank similarity           :func:`tau_ap`, :func:`rbo`
per-query score agreement :func:`score_agreement` (τ-b and r of two score vectors)
judge agreement           :func:`agree`, :func:`cohen_kappa`, :func:`fleiss_kappa`,
                          :func:`krippendorff_alpha`
power, topics needed      :func:`power` (one call: :func:`discriminative_power`,
                          :func:`swap_rates`, :func:`topic_set_size` of
                          :func:`residual_variance`), :class:`PowerStudy`
reproducibility           :func:`reproduce` (one call from the qrels and the runs),
                          :func:`reproducibility` (Breuer et al. 2020): :func:`ktu`,
                          RBO, :func:`rmse`, :func:`nrmse`, :func:`effect_ratio`,
                          :func:`delta_ri`, :func:`student_t_p_value`
two runs, query by query  :func:`diff_runs` (deltas, tests, wins and losses, ranks of
                          the relevant documents, RBO, unjudged documents entering)
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
from cranfield.stats.discriminative_power import (
    DiscriminativePower,
    MeasurePower,
    SwapRates,
    discriminative_power,
    power_of_scores,
    swap_rates,
)
from cranfield.stats.effects import (
    INTERVALS,
    Effects,
    Interval,
    confidence_interval,
    effect_sizes,
    georisk,
)
from cranfield.stats.histogram import QueryDifferences, query_differences
from cranfield.stats.judge_agreement import (
    JudgeAgreement,
    JudgePair,
    QueryAgreement,
    agree,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
)
from cranfield.stats.paired import (
    MatrixTestResult,
    TestResult,
    paired_t_test,
    sign_test,
    studentized_range_sf,
    tukey_hsd,
    wilcoxon_test,
)
from cranfield.stats.power_study import PowerStudy, power
from cranfield.stats.rank_correlation import (
    RBO,
    Coefficient,
    RankCorrelation,
    ScoreAgreement,
    correlate,
    correlate_measures,
    correlate_scores,
    correlate_tables,
    rbo,
    score_agreement,
    swapped_pairs,
    tau_ap,
)
from cranfield.stats.reproducibility import (
    ReproducedRun,
    Reproducibility,
    delta_ri,
    effect_ratio,
    ktu,
    nrmse,
    reproduce,
    reproducibility,
    rmse,
    student_t_p_value,
)
from cranfield.stats.resampling import (
    RngLike,
    bootstrap_test,
    randomization_test,
    randomized_tukey_hsd,
    resolve_seed,
)
from cranfield.stats.run_diff import MovedDocument, QueryDiff, RunDiff, diff_runs
from cranfield.stats.topic_set_size import TopicSetSize, residual_variance, topic_set_size

__all__ = [
    "CORRECTIONS",
    "INTERVALS",
    "RBO",
    "TESTS",
    "Coefficient",
    "Comparison",
    "Correction",
    "DiscriminativePower",
    "Effects",
    "Interval",
    "JudgeAgreement",
    "JudgePair",
    "MatrixTestResult",
    "MeasurePower",
    "MovedDocument",
    "PairComparison",
    "PowerStudy",
    "QueryAgreement",
    "QueryDiff",
    "QueryDifferences",
    "RankCorrelation",
    "ReproducedRun",
    "Reproducibility",
    "RngLike",
    "RunDiff",
    "ScoreAgreement",
    "SwapRates",
    "TestName",
    "TestOutcome",
    "TestResult",
    "TopicSetSize",
    "adjust_p_values",
    "agree",
    "bootstrap_test",
    "cohen_kappa",
    "compare",
    "compare_scores",
    "confidence_interval",
    "correlate",
    "correlate_measures",
    "correlate_scores",
    "correlate_tables",
    "delta_ri",
    "diff_runs",
    "discriminative_power",
    "effect_ratio",
    "effect_sizes",
    "fleiss_kappa",
    "georisk",
    "krippendorff_alpha",
    "ktu",
    "nrmse",
    "paired_t_test",
    "power",
    "power_of_scores",
    "query_differences",
    "randomization_test",
    "randomized_tukey_hsd",
    "rbo",
    "reproduce",
    "reproducibility",
    "residual_variance",
    "resolve_seed",
    "rmse",
    "score_agreement",
    "sign_test",
    "student_t_p_value",
    "studentized_range_sf",
    "swap_rates",
    "swapped_pairs",
    "tau_ap",
    "topic_set_size",
    "tukey_hsd",
    "wilcoxon_test",
]
