"""Plain-text tables of a :class:`~cranfield.stats.power_study.PowerStudy`: the
:class:`~cranfield.stats.discriminative_power.DiscriminativePower` and the
:class:`~cranfield.stats.topic_set_size.TopicSetSize` of each measure (``cranfield power``).

Presentation only: the numbers come from the result objects, four decimals as
:func:`cranfield.report.numbers.four_places` prints them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cranfield.report.agreement import _grid
from cranfield.report.numbers import four_places

if TYPE_CHECKING:
    from cranfield.stats.discriminative_power import SwapRates
    from cranfield.stats.power_study import PowerStudy

__all__ = ["power_text"]


def _topics(n: int | None) -> str:
    return "-" if n is None else str(n)


def _swap_lines(measure: str, s: SwapRates) -> list[str]:
    header = ["queries", *(f"{e:.2f}" for e in s.edges[:-1]), f"{s.edges[-1]:.2f}+"]
    rows = [
        [str(c), *("-" if r is None else four_places(r) for r in rates)]
        for c, rates in zip(s.sizes, s.rates, strict=True)
    ]
    return [
        "",
        f"Swap rate of {measure} ({s.trials} random splits; rows: queries per half; "
        "columns: |d| on the first half):",
        *_grid(header, rows),
    ]


def power_text(study: PowerStudy) -> str:
    """Discriminative power and topics needed per measure, then each measure's swap rates.

    A measure without a topic-set-size design (a study put together by hand) shows ``-``
    for its variance and topics.

    Examples
    --------
    >>> from cranfield.stats import PowerStudy, power_of_scores, topic_set_size
    >>> s = [[0.5, 0.4, 0.1], [0.7, 0.5, 0.2], [0.2, 0.3, 0.1], [0.9, 0.6, 0.3]]
    >>> p = power_of_scores({"AP": s}, runs=["a", "b", "c"], n_resamples=100, trials=0, seed=3)
    >>> study = PowerStudy(p, {"AP": topic_set_size(0.02, systems=3)})
    >>> print(power_text(study), end="")
    measure  bootstrap  Tukey HSD  variance  t-test  ANOVA  interval
    AP          0.6667     0.3333    0.0200     128    156       248
    <BLANKLINE>
    Share of the 3 pairs of 3 runs significant at alpha 0.05 over 4 queries (100 resamples, seed 3).
    Topics needed to detect a difference of 0.05 at alpha 0.05 with power 0.8 (ANOVA of 3 systems;
    interval width 0.05), from each measure's residual variance.
    """
    power, designs = study.discriminative_power, study.topic_set_size
    rows = []
    for name, m in power.measures.items():
        d = designs.get(name)
        rows.append(
            [
                name,
                four_places(m.bootstrap),
                four_places(m.tukey),
                "-" if d is None else four_places(d.variance),
                *(
                    ("-", "-", "-")
                    if d is None
                    else (_topics(d.topics[k]) for k in ("paired_t", "anova", "interval"))
                ),
            ]
        )
    header = ["measure", "bootstrap", "Tukey HSD", "variance", "t-test", "ANOVA", "interval"]
    lines = [*_grid(header, rows), ""]
    lines.append(
        f"Share of the {power.pairs} pairs of {len(power.runs)} runs significant at alpha "
        f"{power.alpha:g} over {power.queries} queries ({power.n_resamples} resamples, "
        f"seed {power.seed})."
    )
    first = next(iter(designs.values()), None)
    if first is not None:
        lines.append(
            f"Topics needed to detect a difference of {first.min_d:g} at alpha {first.alpha:g} "
            f"with power {1 - first.beta:g} (ANOVA of {first.systems} systems;"
        )
        lines.append(f"interval width {first.delta:g}), from each measure's residual variance.")
    for name, m in power.measures.items():
        if m.swaps is not None:
            lines += _swap_lines(name, m.swaps)
    return "\n".join(lines) + "\n"
