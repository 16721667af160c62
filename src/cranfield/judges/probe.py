"""Can a judge be gamed? The keyword-stuffing probe.

For each query, passages that do nothing but repeat the query (1, 5 and 20 times, joined by
spaces) are judged like any other pair (same template, same cache). They answer nothing, so a
careful judge grades them 0 or 1; a judge that grades them relevant (``>= level``) rewards
keyword stuffing, and a system tuned against it could win by gaming it (Clarke & Dietz 2024;
Alaofi et al. 2024 showed such attacks on model judges).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from cranfield.judges.asking import Asked, judge_pairs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cranfield.judges.endpoint import AnswerCache, ChatJudge
    from cranfield.judges.prompts import PromptTemplate

__all__ = ["REPEATS", "Probe", "stuffing_probe"]

REPEATS: Final = (1, 5, 20)


@dataclass(frozen=True, eq=False)
class Probe:
    """What :func:`stuffing_probe` returns.

    Attributes
    ----------
    asked:
        Every stuffed pair asked (doc ids ``stuffed-xN``).
    level:
        The grade from which a stuffed passage counts as judged relevant.
    rows:
        Per repetition count: ``(repeats, queries graded, mean grade, share >= level)``.
    gamed:
        Queries where some stuffed passage was graded ``>= level``.
    queries:
        Queries probed.
    """

    asked: Asked
    level: int
    rows: tuple[tuple[int, int, float, float], ...]
    gamed: int
    queries: int

    @property
    def verdict(self) -> str:
        """One sentence with the numbers."""
        if self.gamed == 0:
            return (
                f"Not gamed: no passage that only repeats the query was graded {self.level} or "
                f"more, for any of {self.queries} queries."
            )
        return (
            f"Gamed: a passage that only repeats the query was graded {self.level} or more for "
            f"{self.gamed} of {self.queries} queries; do not trust this judge with systems that "
            "could stuff keywords."
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {
            "level": self.level,
            "queries": self.queries,
            "gamed": self.gamed,
            "rows": [
                {"repeats": r, "graded": n, "mean_grade": m, "share_relevant": s}
                for r, n, m, s in self.rows
            ],
            "malformed": self.asked.malformed,
            "failed": self.asked.failed,
            "verdict": self.verdict,
        }


def stuffing_probe(
    queries: Mapping[str, str],
    *,
    judge: ChatJudge,
    template: PromptTemplate,
    cache: AnswerCache | None,
    level: int = 2,
    scale: tuple[int, int] = (0, 3),
    concurrency: int = 4,
) -> Probe:
    """Ask ``judge`` about passages that only repeat each query (module documentation)."""
    # the ids stay readable (stuffed-xN), the texts differ by query: one call per query
    asked_all = []
    for q in queries:
        per_query = {f"stuffed-x{r}": " ".join([queries[q]] * r) for r in REPEATS}
        asked_all.append(
            judge_pairs(
                [(q, d) for d in per_query],
                queries=queries,
                passages=per_query,
                judge=judge,
                template=template,
                cache=cache,
                scale=scale,
                concurrency=concurrency,
            )
        )
    everything = tuple(p for a in asked_all for p in a.pairs)
    asked = Asked(
        pairs=everything,
        template=template.identity,
        model=judge.model,
        requests=sum(a.requests for a in asked_all),
        seconds=sum(a.seconds for a in asked_all),
    )
    rows = []
    for r in REPEATS:
        grades = [
            p.grade for p in everything if p.doc_id == f"stuffed-x{r}" and p.grade is not None
        ]
        mean = sum(grades) / len(grades) if grades else float("nan")
        share = sum(g >= level for g in grades) / len(grades) if grades else float("nan")
        rows.append((r, len(grades), mean, share))
    gamed = len({p.query_id for p in everything if p.grade is not None and p.grade >= level})
    return Probe(asked=asked, level=level, rows=tuple(rows), gamed=gamed, queries=len(queries))
