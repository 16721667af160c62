"""The text of a simulated interleaving experiment against an offline measure
(``cranfield logs simulate``, :func:`cranfield.logs.simulation.simulate_interleaving`).

Presentation only: the numbers come from :class:`~cranfield.logs.simulation.Agreement`; shares
with three decimals, measures with four (:func:`cranfield.report.numbers.four_places`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from cranfield.report.agreement import _grid
from cranfield.report.numbers import four_places
from cranfield.report.run_diff import signed

if TYPE_CHECKING:
    from cranfield.logs.simulation import Agreement, SimulatedABTest

__all__ = ["ab_simulation_text", "agreement_text"]


def _share(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.3f}"


def agreement_text(a: Agreement, *, users: str, per_query: bool = True) -> str:
    """The offline difference, the agreement of interleaving with it by ``N`` overall and
    (``per_query``) per query, and what was simulated.

    ``users`` says who clicked (``"DBN, navigational user"``).
    """
    name_a, name_b = a.names
    e = a.experiment
    m = a.measure
    per = e.outcomes.size // max(len(a.query_ids), 1)
    diff = a.offline_difference
    sign = a.offline_sign
    side = {1: f"A ({name_a})", -1: f"B ({name_b})", 0: "neither (a tie)"}[sign]
    lines = [
        f"Simulated interleaving: A = {name_a}, B = {name_b}",
        f"{e.method} interleaving, {users}, {len(a.query_ids)} queries x {per} impressions, "
        f"seed {a.seed}",
        "",
        f"offline {m}: A {four_places(float(a.offline[:, 0].mean()))}, "
        f"B {four_places(float(a.offline[:, 1].mean()))}, A - B {signed(diff)}: {side} is better",
        f"interleaving over all impressions: Δ_AB {signed(e.preference.delta)} "
        f"(A wins {e.preference.wins}, B wins {e.preference.losses}, ties {e.preference.ties})",
    ]
    if e.left_out:
        shown = ", ".join(e.left_out[:10]) + (", ..." if len(e.left_out) > 10 else "")
        count = f"{len(e.left_out)} {'query' if len(e.left_out) == 1 else 'queries'}"
        lines.append(f"left out, ranked by one run only: {count} ({shown})")
    lines.append("")
    judged = ~np.isnan(a.per_query).all(axis=1)  # queries where A and B differ offline
    if sign:
        lines.append(
            f"Agreement with the offline sign: the share of {a.repetitions} experiments of N "
            f"impressions preferring {side} (a tie counts one half)"
        )
    else:
        lines.append(
            f"The runs tie on {m}: the share of {a.repetitions} experiments of N impressions "
            "preferring A (0.5 expected)"
        )
    header = ["N", "overall", f"per query (mean of {int(judged.sum())})"]
    rows = []
    for k, n in enumerate(a.sizes):
        values = a.per_query[judged, k]
        mean = float(values.mean()) if values.size else math.nan
        rows.append([str(n), _share(float(a.overall[k])), _share(mean)])
    lines += _grid(header, rows)
    if per_query:
        wins = e.per_query()
        lines += [
            "",
            f"Per query: {m} of A and B, the impressions A and B won, and the agreement with "
            "the query's own offline sign by N (- where A and B tie on the query)",
        ]
        head = ["query", "A", "B", "A - B", "A won", "B won", *(f"N={n}" for n in a.sizes)]
        body = []
        for i, q in enumerate(a.query_ids):
            w, lo, _ = wins[q]
            oa, ob = float(a.offline[i, 0]), float(a.offline[i, 1])
            body.append(
                [
                    q,
                    four_places(oa),
                    four_places(ob),
                    signed(oa - ob),
                    str(w),
                    str(lo),
                    *(_share(float(v)) for v in a.per_query[i]),
                ]
            )
        lines += _grid(head, body)
    return "\n".join(lines) + "\n"


def ab_simulation_text(r: SimulatedABTest, *, users: str) -> str:
    """A simulated A/B test (``cranfield logs simulate --ab``): the test, then the offline
    difference it should have found."""
    from cranfield.report.click_logs import ab_test_text

    what = (
        "1/rank of the first click (0 without)" if r.metric == "rr" else "a click (1) or none (0)"
    )
    lines = [
        f"Simulated A/B test: {r.users:,} users a bucket, {r.sessions} sessions each, on queries "
        f"both runs rank ({users}); the metric of a session: {what}; seed {r.seed}.",
        "",
        ab_test_text(r.metric, r.test, {}, 0.8).rstrip("\n"),
        "",
        f"offline {r.measure}, {r.test.treatment.name} minus {r.test.control.name}: "
        f"{r.offline:+.4f}; the A/B difference has its sign: {'yes' if r.agrees else 'no'}.",
    ]
    return "\n".join(lines) + "\n"
