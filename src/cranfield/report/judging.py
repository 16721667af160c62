"""The text of ``cranfield pool`` and ``cranfield estimate``: a judging simulation, the next
documents to judge, and the estimates from a sample in the layout of NIST's scripts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.judging.estimators import InferredEstimates, StatisticalEstimates
    from cranfield.judging.simulation import Simulation
    from cranfield.report.svg_charts import LineChart

__all__ = [
    "perl_text",
    "proposals_text",
    "sample_eval_text",
    "simulation_charts",
    "simulation_text",
    "statap_text",
]


def _budgets(simulation: Simulation) -> list[int]:
    wanted = {10, 20, 50, 100, 200, 500, 1000, 2000, simulation.budget}
    if simulation.total:
        wanted |= {5000, 10_000, 20_000, 50_000, 100_000}
    return sorted(b for b in wanted if b <= simulation.budget)


def simulation_text(simulation: Simulation) -> str:
    """Relevant found at a few budgets per strategy, then τ and τ_AP at the checkpoints."""
    budgets = _budgets(simulation)
    width = max(11, *(len(s) for s in simulation.strategies))
    lines = [
        f"judging simulated: {len(simulation.topics)} topics, pool depth "
        f"{simulation.pool_depth}, {simulation.relevant} relevant in the qrels "
        f"({simulation.pooled_relevant} in the pool); unjudged documents answered 0",
        *(
            [
                f"a budget of {simulation.budget} judgments in all, split evenly: one per topic "
                "per round, the last round to the topics first in string order, what a small "
                "pool cannot use to the others"
            ]
            if simulation.total
            else []
        ),
        "",
        f"relevant found after N {simulation.unit}",
        f"{'strategy':<{width}}" + "".join(f" {b:>7}" for b in budgets),
    ]
    for name in simulation.strategies:
        found = simulation.found[name]
        lines.append(f"{name:<{width}}" + "".join(f" {int(found[b - 1]):>7}" for b in budgets))
    if simulation.checkpoints:
        lines += [
            "",
            f"the runs' {simulation.measure} ranking vs the full qrels: τ-b / τ_AP after N "
            f"{simulation.unit}",
            f"{'strategy':<{width}}" + "".join(f" {c:>13}" for c in simulation.checkpoints),
        ]
        for name in simulation.strategies:
            cells = "".join(
                f" {t:>6.3f}/{a:<6.3f}"
                for t, a in zip(simulation.tau[name], simulation.tau_ap[name], strict=True)
            )
            lines.append(f"{name:<{width}}{cells}".rstrip())
    return "\n".join(lines) + "\n"


def proposals_text(
    strategy: str,
    proposals: Mapping[str, Sequence[str]],
    *,
    budget_total: int | None = None,
    shares: Mapping[str, int] | None = None,
) -> str:
    """``query_id doc_id`` lines, the documents ``strategy`` proposes next, in order (after a
    comment with each topic's share of ``budget_total``, when given)."""
    lines = [f"# next to judge by {strategy}: query_id doc_id"]
    if budget_total is not None and shares is not None:
        split = " ".join(f"{q}:{n}" for q, n in sorted(shares.items()))
        lines.append(f"# a budget of {budget_total} judgments in all, per topic: {split}")
    for qid, docs in proposals.items():
        lines.extend(f"{qid} {doc}" for doc in docs)
    return "\n".join(lines) + "\n"


def perl_text(value: float | int | None) -> str:
    """A number as Perl prints it in a string (``%.15g``; ``None``, an undefined value,
    prints nothing).

    >>> perl_text(0.125), perl_text(1.0), perl_text(None), perl_text(7)
    ('0.125', '1', '', '7')
    """
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.15g}"


def sample_eval_text(estimates: InferredEstimates, *, per_query: bool = False) -> str:
    """``sample_eval.pl``'s output (``-q``: each topic's block first)."""
    from cranfield.judging.estimators import CUTOFFS

    lines: list[str] = []
    if per_query:
        for q in estimates.topics:
            v = estimates.per_topic[q]
            lines.append(f"infAP\t\t{q}\t\t{v['infAP']:6.4f}")
            lines.append(f"infNDCG\t\t{q}\t\t{v['infNDCG']:6.4f}")
            lines.extend(f"iP{c}\t\t{q}\t\t{v[f'iP{c}']:6.4f}" for c in CUTOFFS)
            lines.append(f"inum_rel_ret\t{q}\t{v['inum_rel_ret']:14.4f}")
            lines.append(f"inum_rel\t{q}\t{v['inum_rel']:14.4f}")
            lines.append(f"num_ret\t\t{q}\t{int(v['num_ret']):9d}")
    s = estimates.summary
    lines.append(f"infAP\t\tall\t\t{s['infAP']:6.4f}")
    lines.append(f"infNDCG\t\tall\t\t{s['infNDCG']:6.4f}")
    for i in range(11):
        key = f"iprec@rec{i / 10:4.2f}"
        lines.append(f"{key}\tall\t\t{s[key]:6.4f}")
    lines.extend(f"iP{c}\t\tall\t\t{s[f'iP{c}']:6.4f}" for c in CUTOFFS)
    lines.append(f"inum_rel_ret\tall\t{s['inum_rel_ret']:14.4f}")
    lines.append(f"inum_rel\tall\t{s['inum_rel']:14.4f}")
    lines.append(f"num_ret\t\tall\t{int(s['num_ret']):9d}")
    return "\n".join(lines) + "\n"


def statap_text(estimates: StatisticalEstimates, *, per_query: bool = False) -> str:
    """``statAP_MQ_eval_v3.pl``'s output on standard output (``-q``: each topic's block)."""
    out: list[str] = []
    for t in estimates.topics if per_query else ():
        out.append(f"\n\ttopic={t.topic}  ")
        if t.kind == "UMASS":
            out.append("UMASS\n")
            continue
        out.append(f"{t.kind} \n")
        if t.ap is None:
            ap = rp = "NA--no relevant docs"
            pc = "0"
        else:
            ap, rp, pc = f"{t.ap:3f}", f"{t.rp:3f}", f"{t.pc:3f}"
        relevant = "" if t.sampled_relevant is None else t.sampled_relevant  # never set: blank
        out.append(f"\tRelevant={t.relevant:3f}  sampled={t.sampled} sampled_relev={relevant}\n")
        out.append(
            f"\tsampled_in_list={t.sampled_in_list}  "
            f"sampled_relev_in_list={t.sampled_relevant_in_list}\n"
        )
        out.append(f"\tAP={ap}  R-prec={rp}  Prec_at_30={pc}  nDCG={perl_text(t.ndcg)}\n")
        out.append(f"\tvarAP={perl_text(t.var_ap)}\n")
    s = estimates.summary
    out.append(f"\n valid_topics={estimates.valid_topics}")
    out.append(
        f"\n statMAP_on_valid_topics={perl_text(s['statMAP'])}    "
        f"VAR_MAP={perl_text(s['var_map'])} "
    )
    out.append(f"\n statMRP_on_valid_topics={perl_text(s['statMRP'])}")
    out.append(f"\n statMPC_30 _on_valid_topics={perl_text(s['statMPC@30'])} ")
    out.append(f"\n statMNDCG_on_valid_topics={perl_text(s['statMNDCG'])} \n\n")
    return "".join(out)


def simulation_charts(simulation: Simulation) -> list[LineChart]:
    """The charts of a judging simulation: relevant documents found per judgment spent and,
    at the checkpoints, τ-b and τ_AP of the runs' ranking against the full qrels' (a
    checkpoint where τ is undefined, every run tied, has no point)."""
    from cranfield.report.svg_charts import LineChart, LineSeries, int_ticks, series_style

    budget = simulation.budget
    top = max([1, *(int(f[-1]) for f in simulation.found.values())])
    charts = [
        LineChart(
            key="judging-found",
            title="Relevant documents found",
            caption=f"summed over {len(simulation.topics)} topics; "
            f"{simulation.pooled_relevant} relevant documents in the pool",
            x_label=simulation.unit,
            y_label="relevant found",
            x_range=(0.0, float(budget)),
            x_ticks=int_ticks(0, budget),
            series=[
                LineSeries(
                    name,
                    [0.0, *range(1, budget + 1)],
                    [0.0, *simulation.found[name].tolist()],
                    *series_style(i),
                    markers=False,
                )
                for i, name in enumerate(simulation.strategies)
            ],
            y_range=(0.0, float(top)),
        )
    ]
    if not simulation.checkpoints:
        return charts
    for key, label, values in (
        ("judging-tau", "τ-b", simulation.tau),
        ("judging-tau-ap", "τ_AP", simulation.tau_ap),
    ):
        series = []
        for i, name in enumerate(simulation.strategies):
            points = [
                (float(c), float(v))
                for c, v in zip(simulation.checkpoints, values[name], strict=True)
                if math.isfinite(v)
            ]
            series.append(
                LineSeries(name, [x for x, _ in points], [y for _, y in points], *series_style(i))
            )
        charts.append(
            LineChart(
                key=key,
                title=f"{label} of the runs' {simulation.measure} ranking vs the full qrels",
                caption=f"after N {simulation.unit}",
                x_label=simulation.unit,
                y_label=label,
                x_range=(0.0, float(budget)),
                x_ticks=int_ticks(0, budget),
                series=series,
                y_range=(-1.0, 1.0),
            )
        )
    return charts
