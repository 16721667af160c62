"""The text of ``cranfield pool``'s results: a judging simulation, the next documents to judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cranfield.judging.simulation import Simulation

__all__ = ["proposals_text", "simulation_text"]


def _budgets(simulation: Simulation) -> list[int]:
    wanted = {10, 20, 50, 100, 200, 500, 1000, 2000, simulation.budget}
    return sorted(b for b in wanted if b <= simulation.budget)


def simulation_text(simulation: Simulation) -> str:
    """Relevant found at a few budgets per strategy, then τ and τ_AP at the checkpoints."""
    budgets = _budgets(simulation)
    width = max(11, *(len(s) for s in simulation.strategies))
    lines = [
        f"judging simulated: {len(simulation.topics)} topics, pool depth "
        f"{simulation.pool_depth}, {simulation.relevant} relevant in the qrels "
        f"({simulation.pooled_relevant} in the pool); unjudged documents answered 0",
        "",
        "relevant found after N judgments per topic",
        f"{'strategy':<{width}}" + "".join(f" {b:>7}" for b in budgets),
    ]
    for name in simulation.strategies:
        found = simulation.found[name]
        lines.append(f"{name:<{width}}" + "".join(f" {int(found[b - 1]):>7}" for b in budgets))
    if simulation.checkpoints:
        lines += [
            "",
            f"the runs' {simulation.measure} ranking vs the full qrels: τ-b / τ_AP after N "
            "judgments per topic",
            f"{'strategy':<{width}}" + "".join(f" {c:>13}" for c in simulation.checkpoints),
        ]
        for name in simulation.strategies:
            cells = "".join(
                f" {t:>6.3f}/{a:<6.3f}"
                for t, a in zip(simulation.tau[name], simulation.tau_ap[name], strict=True)
            )
            lines.append(f"{name:<{width}}{cells}")
    return "\n".join(lines) + "\n"


def proposals_text(strategy: str, proposals: Mapping[str, Sequence[str]]) -> str:
    """``query_id doc_id`` lines, the documents ``strategy`` proposes next, in order."""
    lines = [f"# next to judge by {strategy}: query_id doc_id"]
    for qid, docs in proposals.items():
        lines.extend(f"{qid} {doc}" for doc in docs)
    return "\n".join(lines) + "\n"
