"""Per-query differences between two systems ("precision histograms") as data and as text.

A precision histogram (TREC's name) shows, for every query, the difference of one measure
between two runs: which queries a change helps, which it hurts and by how much. The data
lives in :class:`QueryDifferences`; a plot is left to the plotting layer, and a text
rendering is built in.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

import numpy as np

from cranfield._validate import check_choice, check_int
from cranfield.errors import OptionError

if TYPE_CHECKING:
    import polars as pl
    from numpy.typing import ArrayLike, NDArray

__all__ = ["QueryDifferences", "query_differences"]

SortBy = Literal["difference", "topic", "none"]
SORTS: Final[tuple[str, ...]] = get_args(SortBy)
_EIGHTHS = " ▏▎▍▌▋▊▉█"


@dataclass(frozen=True, eq=False)
class QueryDifferences:
    """Per-query scores of two runs on one measure and their differences.

    Attributes
    ----------
    measure:
        Measure name.
    control, treatment:
        Run names; differences are ``treatment - control``.
    topics:
        Query ids.
    control_scores, treatment_scores:
        Per-query scores aligned with :attr:`topics`.
    """

    measure: str
    control: str
    treatment: str
    topics: list[str]
    control_scores: NDArray[np.float64]
    treatment_scores: NDArray[np.float64]

    @property
    def differences(self) -> NDArray[np.float64]:
        """``treatment - control`` per query."""
        return self.treatment_scores - self.control_scores

    @property
    def wins(self) -> int:
        """Queries the treatment improves."""
        return int((self.differences > 0).sum())

    @property
    def ties(self) -> int:
        """Queries with exactly equal scores."""
        return int((self.differences == 0).sum())

    @property
    def losses(self) -> int:
        """Queries the treatment hurts."""
        return int((self.differences < 0).sum())

    def sorted(self, by: SortBy = "difference") -> QueryDifferences:
        """A copy ordered by difference (largest gain first, ties by query id), by query id, or not.

        Examples
        --------
        >>> from cranfield.stats import query_differences
        >>> q = query_differences(["q1", "q2", "q3"], [0.2, 0.5, 0.1], [0.4, 0.5, 0.0])
        >>> q.sorted().topics
        ['q1', 'q2', 'q3']
        >>> q.sorted("topic").topics
        ['q1', 'q2', 'q3']
        """
        check_choice("by", by, SORTS)
        if by == "none":
            order = np.arange(len(self.topics))
        elif by == "topic":
            order = np.array(
                sorted(range(len(self.topics)), key=lambda i: self.topics[i].encode()),
                dtype=np.intp,
            )
        else:
            by_topic = sorted(range(len(self.topics)), key=lambda i: self.topics[i].encode())
            d = self.differences
            order = np.array(sorted(by_topic, key=lambda i: -d[i]), dtype=np.intp)
        return QueryDifferences(
            measure=self.measure,
            control=self.control,
            treatment=self.treatment,
            topics=[self.topics[i] for i in order],
            control_scores=self.control_scores[order],
            treatment_scores=self.treatment_scores[order],
        )

    def histogram(
        self, bins: int | ArrayLike = 10
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Counts of queries per bin of difference, and the bin edges.

        With an integer, the bins are equal-width and symmetric around 0, from ``-max|d|`` to
        ``+max|d|`` (``[-1, 1]`` when nothing changes), so gains and losses are comparable.

        Examples
        --------
        >>> from cranfield.stats import query_differences
        >>> q = query_differences(["a", "b", "c", "d"], [0.1, 0.5, 0.5, 0.2], [0.4, 0.5, 0.3, 0.1])
        >>> counts, edges = q.histogram(4)
        >>> counts.tolist(), edges.round(2).tolist()
        ([1, 1, 1, 1], [-0.3, -0.15, 0.0, 0.15, 0.3])
        """
        d = self.differences
        if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
            top = float(np.abs(d).max()) if d.size else 0.0
            top = top if top > 0 else 1.0
            edges = np.linspace(-top, top, check_int("bins", bins, minimum=1) + 1)
        else:
            try:
                edges = np.asarray(bins, dtype=np.float64)
            except (TypeError, ValueError):
                edges = np.empty(0)
            if edges.ndim != 1 or edges.size < 2 or not np.all(np.diff(edges) > 0):
                raise OptionError("bins", "an integer >= 1 or increasing bin edges", bins)
        counts, _ = np.histogram(d, bins=edges)
        return counts.astype(np.int64), edges

    def to_dict(self) -> dict[str, Any]:
        """Plain data: names and one record per query."""
        return {
            "measure": self.measure,
            "control": self.control,
            "treatment": self.treatment,
            "wins": self.wins,
            "ties": self.ties,
            "losses": self.losses,
            "queries": [
                {
                    "query_id": t,
                    "control": float(c),
                    "treatment": float(s),
                    "difference": float(s - c),
                }
                for t, c, s in zip(
                    self.topics, self.control_scores, self.treatment_scores, strict=True
                )
            ],
        }

    def to_polars(self) -> pl.DataFrame:
        """One row per query: ``query_id``, ``control``, ``treatment``, ``difference``."""
        import polars as pl

        return pl.DataFrame(
            {
                "query_id": self.topics,
                "control": self.control_scores,
                "treatment": self.treatment_scores,
                "difference": self.differences,
            }
        )

    def to_text(self, *, width: int = 40, sort: SortBy = "difference") -> str:
        """A bar per query, gains to the right of the axis and losses to the left.

        Parameters
        ----------
        width:
            Characters for the bars (half each side of the axis), at least 10.
        sort:
            Row order: ``"difference"`` (default), ``"topic"`` or ``"none"``.

        Examples
        --------
        >>> from cranfield.stats import query_differences
        >>> q = query_differences(["q1", "q2", "q3"], [0.2, 0.5, 0.3], [0.4, 0.5, 0.2],
        ...                       measure="AP", control_name="bm25", treatment_name="dense")
        >>> print(q.to_text(width=20))
        AP per query, dense - bm25: 1 better, 1 tied, 1 worse (mean +0.0333)
        q1  +0.2000            │██████████
        q2  +0.0000            │
        q3  -0.1000       █████│
        """
        width = check_int("width", width, minimum=10)
        rows = self.sorted(check_choice("sort", sort, SORTS))
        d = rows.differences
        half = width // 2
        top = float(np.abs(d).max()) if d.size else 0.0
        mean = float(d.mean()) if d.size else math.nan
        label_w = max((len(t) for t in rows.topics), default=0)
        lines = [
            f"{self.measure} per query, {self.treatment} - {self.control}: {self.wins} better, "
            f"{self.ties} tied, {self.losses} worse (mean {mean:+.4f})"
        ]
        for t, v in zip(rows.topics, d.tolist(), strict=True):
            eighths = 0 if top == 0 else round(abs(v) / top * half * 8)
            bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
            left = bar.rjust(half) if v < 0 else " " * half
            right = bar if v > 0 else ""
            lines.append(f"{t.ljust(label_w)}  {v:+.4f} {left}│{right}".rstrip())
        return "\n".join(lines)

    def histogram_text(self, bins: int | ArrayLike = 10, *, width: int = 40) -> str:
        """The binned histogram of differences as text, one line per bin.

        Examples
        --------
        >>> from cranfield.stats import query_differences
        >>> q = query_differences(["a", "b", "c", "d"], [0.1, 0.5, 0.5, 0.2], [0.4, 0.5, 0.3, 0.1])
        >>> print(q.histogram_text(2, width=10))
        [-0.3000, +0.0000)   2 ██████████
        [+0.0000, +0.3000]   2 ██████████
        """
        width = check_int("width", width, minimum=1)
        counts, edges = self.histogram(bins)
        top = int(counts.max()) if counts.size else 0
        cw = len(str(top))
        lines = []
        for i, c in enumerate(counts.tolist()):
            close = "]" if i == counts.size - 1 else ")"
            bar = "█" * (0 if top == 0 else round(c / top * width))
            lines.append(
                f"[{edges[i]:+.4f}, {edges[i + 1]:+.4f}{close} {c:>{cw + 2}} {bar}".rstrip()
            )
        return "\n".join(lines)


def query_differences(
    topics: ArrayLike,
    control: ArrayLike,
    treatment: ArrayLike,
    *,
    measure: str = "score",
    control_name: str = "control",
    treatment_name: str = "treatment",
) -> QueryDifferences:
    """Build :class:`QueryDifferences` from aligned vectors (see also ``Comparison.differences``).

    Parameters
    ----------
    topics:
        Query ids.
    control, treatment:
        Per-query scores of the two runs, aligned with ``topics``.
    measure:
        Name of the measure, for labels.
    control_name, treatment_name:
        Run names for labels.

    Examples
    --------
    >>> from cranfield.stats import query_differences
    >>> q = query_differences(["q1", "q2"], [0.2, 0.5], [0.4, 0.5])
    >>> q.differences.round(2).tolist(), q.wins, q.ties
    ([0.2, 0.0], 1, 1)
    """
    ids = [str(t) for t in np.asarray(topics, dtype=object).ravel()]
    c = np.asarray(control, dtype=np.float64)
    t = np.asarray(treatment, dtype=np.float64)
    if c.ndim != 1 or t.ndim != 1 or not (c.size == t.size == len(ids)):
        raise ValueError(
            f"topics, control and treatment must be aligned vectors, got {len(ids)}, "
            f"{c.size} and {t.size} values."
        )
    return QueryDifferences(
        measure=measure,
        control=control_name,
        treatment=treatment_name,
        topics=ids,
        control_scores=c.copy(),
        treatment_scores=t.copy(),
    )
