"""The fusion methods and normalisations, each declared once: what it computes, its
parameters and their ranges, what a document missing from a run counts as, and its paper.

:data:`METHODS` and :data:`NORMALIZATIONS` drive :func:`cranfield.fusion.fuse`, the
tuning grids, ``cranfield fuse --help`` and the docs. The names are ranx's, so that a ranx
user finds the same method under the same name; the arithmetic is ranx's too (checked
against ranx 0.3 on real runs, ``tests/parity/test_fusion_ranx.py``), written from the
papers and ranx's definitions as numpy and polars over all queries at once.

Every method shares two rules:

* **Ties.** A run's *ranking* (what the rank-based methods read) is its scores descending,
  ties by doc id descending: trec_eval's rule (:mod:`cranfield.data.ranking`), or, with
  ``ranks="input"``, the order of its lines (pyserini's RRF reads the rank column, which
  numbers the lines of a well-formed file in that order). The *fused* run is ranked the same
  way: fused score descending, ties by doc id descending. ranx breaks ties with numba's
  unstable quicksort, so on tied scores its order is not defined.
* **Queries.** The fused run has every query of any input run; a query that a run does not
  have counts as an empty list of that run. Runs that share no query at all are refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = [
    "METHODS",
    "NORMALIZATIONS",
    "MethodSpec",
    "NormalizationSpec",
    "ParamSpec",
]


@dataclass(frozen=True)
class ParamSpec:
    """One numeric parameter of a method: its name, default, range and tuning grid.

    ``low``/``high`` bound the value; ``open_low``/``open_high`` make a bound strict. The
    grid is what :func:`cranfield.fusion.tune` tries, ranx's grid where ranx has one.
    """

    name: str
    default: float
    low: float | None
    high: float | None
    grid: tuple[float, ...]
    integer: bool = False
    open_low: bool = False
    open_high: bool = False
    meaning: str = ""


@dataclass(frozen=True)
class MethodSpec:
    """A fusion method.

    Attributes
    ----------
    name:
        ranx's name (``cranfield fuse --method``).
    kind:
        ``"score"``: fuses the (normalised) scores; ``"rank"``: fuses positions in each run's
        ranking, which normalisation does not change (except ``min-max-inverted``, which
        reverses it).
    weighted:
        Takes one weight per run.
    trained:
        Learns from the relevance of each run's positions on training queries
        (:func:`cranfield.fusion.train`), fitted on training queries only.
    params:
        Its numeric parameters.
    formula:
        The fused score of a document ``d`` (``s_r``: its normalised score in run ``r``;
        ``i_r``: its 0-based position in run ``r``'s ranking; ``n``: the number of runs that
        retrieved it; the sums run over those runs unless said).
    missing:
        What a document missing from a run counts as.
    citation:
        The paper.
    """

    name: str
    kind: Literal["score", "rank"]
    formula: str
    missing: str
    citation: str
    weighted: bool = False
    params: tuple[ParamSpec, ...] = ()
    trained: bool = False
    """Learns from training qrels (:func:`cranfield.fusion.train`) before it fuses."""
    ties: str = ""
    """Its own tie rule, where the shared one (module docs) is not the whole story."""

    @property
    def reads_ranks(self) -> bool:
        """Reads each run's ranking (a rank method, or a trained one: their estimates are by
        position), so ``min-max-inverted`` reverses what it reads and ``borda`` is refused."""
        return self.kind == "rank" or self.trained

    def param(self, name: str) -> ParamSpec:
        """The parameter called ``name``."""
        return next(p for p in self.params if p.name == name)


_FOX: Final = (
    "Fox, E. A. & Shaw, J. A. (1993). Combination of multiple searches. TREC-2, NIST SP "
    "500-215, 243-252."
)
_LEE: Final = "Lee, J. H. (1997). Analyses of multiple evidence combination. SIGIR 1997, 267-276."
_WU_CRESTANI: Final = (
    "Wu, S. & Crestani, F. (2002). Data fusion with estimated weights. CIKM 2002, 648-651."
)
_MOURAO: Final = (
    "Mourão, A., Martins, F. & Magalhães, J. (2015). Multimodal medical information retrieval "
    "with unsupervised rank fusion. Computerized Medical Imaging and Graphics 39, 35-45."
)
_ZERO: Final = "0 (it adds nothing to the sum)"
_ABSENT: Final = "absent (only the runs that retrieved it count)"
_RANX_WEIGHTS: Final = "one weight per run (tuned on an exact simplex grid)"

# ranx's grids: optimize_fusion.py (k 10..100 by 10, gamma and phi 0.01..1 and 0.01..0.99,
# sigma 0.001..1). The tuning grids are these.
_K = ParamSpec("k", 60, 0, None, tuple(range(10, 101, 10)), integer=True, meaning="the rank offset")
_GAMMA = ParamSpec(
    "gamma", 1.0, 0.0, None, (0.01, 0.1, 0.25, 0.5, 0.75, 1.0), meaning="the exponent of n"
)
_SIGMA = ParamSpec(
    "sigma",
    0.01,
    0.0,
    None,
    (0.001, 0.01, 0.1, 0.25, 0.5, 1.0),
    open_low=True,
    meaning="added to n inside the logarithm",
)
_PHI = ParamSpec(
    "phi",
    0.8,
    0.0,
    1.0,
    (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99),
    open_low=True,
    open_high=True,
    meaning="the user's persistence",
)

_MONTAGUE: Final = (
    "Montague, M. & Aslam, J. A. (2002). Condorcet fusion for improved retrieval. CIKM 2002, "
    "538-548."
)
_LILLIS_2010: Final = (
    "Lillis, D., Zhang, L., Toolan, F., Collier, R. W., Leonard, D. & Dunnion, J. (2010). "
    "Estimating probabilities for effective data fusion. SIGIR 2010, 347-354."
)
_CONDORCET_TIES: Final = (
    "the documents enter a stable merge sort (Python's) in doc id descending order; where the "
    "votes tie or cycle that entry order decides (ranx enters them in Python set order, which "
    "changes with PYTHONHASHSEED); the fused scores c - i never tie"
)
_CONDORCET_MISSING: Final = (
    "ranked below every document the run retrieved; a run that retrieved neither of two "
    "documents votes against the one compared first (ranx's vote)"
)
_NOT_RETRIEVED: Final = "0 (that run adds nothing)"
# the trained methods' parameters; ranx tunes n_segments and w over 1..100, our grid is coarser
_SEGMENTS = ParamSpec(
    "n_segments",
    25,
    1,
    None,
    (1, 2, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100),
    integer=True,
    meaning="the number of segments each list is cut into",
)
_WINDOW = ParamSpec(
    "w",
    5,
    0,
    None,
    (0, 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 100),
    integer=True,
    meaning="the half-width of the sliding window",
)

METHODS: Final[dict[str, MethodSpec]] = {
    m.name: m
    for m in (
        MethodSpec("sum", "score", "sum of s_r", _ZERO, _FOX),
        MethodSpec("mnz", "score", "n * sum of s_r", _ZERO, _FOX),
        MethodSpec("anz", "score", "(sum of s_r) / n", _ABSENT, _FOX),
        MethodSpec("gmnz", "score", "n^gamma * sum of s_r", _ZERO, _LEE, params=(_GAMMA,)),
        MethodSpec("max", "score", "max of s_r", _ABSENT, _FOX),
        MethodSpec("min", "score", "min of s_r", _ABSENT, _FOX),
        MethodSpec("med", "score", "median of s_r", _ABSENT, _FOX),
        MethodSpec(
            "wsum",
            "score",
            "sum of w_r * s_r",
            _ZERO,
            "Bartell, B. T., Cottrell, G. W. & Belew, R. K. (1994). Automatic combination of "
            "multiple ranked retrieval systems. SIGIR 1994, 173-181.",
            weighted=True,
        ),
        MethodSpec(
            "wmnz",
            "score",
            "(sum of s_r) * (sum of w_r over the runs that retrieved d)",
            _ZERO,
            _WU_CRESTANI,
            weighted=True,
        ),
        MethodSpec(
            "mixed",
            "score",
            "sqrt(n) * sum of w_r * s_r",
            _ZERO,
            _WU_CRESTANI,
            weighted=True,
        ),
        MethodSpec(
            "rrf",
            "rank",
            "sum of 1 / (k + i_r + 1)",
            _ZERO,
            "Cormack, G. V., Clarke, C. L. A. & Büttcher, S. (2009). Reciprocal rank fusion "
            "outperforms Condorcet and individual rank learning methods. SIGIR 2009, 758-759.",
            params=(_K,),
        ),
        MethodSpec("isr", "rank", "n * sum of 1 / (i_r + 1)^2", _ZERO, _MOURAO),
        MethodSpec("log_isr", "rank", "ln(n) * sum of 1 / (i_r + 1)^2", _ZERO, _MOURAO),
        MethodSpec(
            "logn_isr",
            "rank",
            "ln(n + sigma) * sum of 1 / (i_r + 1)^2",
            _ZERO,
            _MOURAO,
            params=(_SIGMA,),
        ),
        MethodSpec(
            "rbc",
            "rank",
            "sum of (1 - phi) * phi^i_r",
            _ZERO,
            "Bailey, P., Moffat, A., Scholer, F. & Thomas, P. (2017). Retrieval consistency in "
            "the presence of query variations. SIGIR 2017, 395-404.",
            params=(_PHI,),
        ),
        MethodSpec(
            "bordafuse",
            "rank",
            "sum over all runs of (c - i_r), c the number of distinct documents of the query",
            "(c - m_r + 1) / 2 points, m_r the length of run r's list: the mean of the "
            "points left over",
            "Aslam, J. A. & Montague, M. (2001). Models for metasearch. SIGIR 2001, 275-284.",
        ),
        MethodSpec(
            "w_bordafuse",
            "rank",
            "sum over all runs of w_r * (c - i_r)",
            "(c - m_r + 1) / 2 points, as bordafuse",
            "Aslam, J. A. & Montague, M. (2001). Models for metasearch. SIGIR 2001, 275-284.",
            weighted=True,
        ),
        MethodSpec(
            "condorcet",
            "rank",
            "c - i, i the position in the order sorted by pairwise majority (x before y when "
            "the runs ranking x above y are at least half of them), c the number of documents",
            _CONDORCET_MISSING,
            _MONTAGUE,
            ties=_CONDORCET_TIES,
        ),
        MethodSpec(
            "w_condorcet",
            "rank",
            "c - i, as condorcet with each run's vote weighted by w_r (x before y when the "
            "weight of the runs ranking x above y is at least the weight of the others)",
            _CONDORCET_MISSING,
            _MONTAGUE,
            weighted=True,
            ties=_CONDORCET_TIES,
        ),
        MethodSpec(
            "bayesfuse",
            "rank",
            "sum over all runs of log(p / (1 - p)), p run r's mean precision on the training "
            "queries in the block of positions of i_r (cut at 5, 10, 15, 20, 30, 100, 200, "
            "500, 1000; a p of 0 or 1 is moved 0.001 inside)",
            "log(0.001 / 0.999), as is a position from 1000 on",
            "Aslam, J. A. & Montague, M. (2001). Models for metasearch. SIGIR 2001, 275-284.",
            trained=True,
        ),
        MethodSpec(
            "posfuse",
            "rank",
            "sum of P_r(i_r), P_r(i) the share of training queries with a relevant document at "
            "position i of run r among those whose list reaches i (0 past the longest list)",
            _NOT_RETRIEVED,
            _LILLIS_2010,
            trained=True,
        ),
        MethodSpec(
            "probfuse",
            "rank",
            "sum of P_r(k) / (k + 1), k the segment of i_r when the list is cut into "
            "n_segments segments of ceil(m / n_segments) positions, P_r(k) the share of "
            "relevant documents in segment k averaged over the training queries",
            _NOT_RETRIEVED,
            "Lillis, D., Toolan, F., Collier, R. W. & Dunnion, J. (2006). ProbFuse: a "
            "probabilistic approach to data fusion. SIGIR 2006, 139-146.",
            params=(_SEGMENTS,),
            trained=True,
        ),
        MethodSpec(
            "segfuse",
            "score",
            "sum of P_r(k) * (s_r + 1), k the segment of i_r (boundaries 5, 15, 35, 75, ..., "
            "10 * 2^(k-1) - 5 up to 5115; 0 past it), P_r(k) the share of relevant documents "
            "in segment k averaged over the training queries",
            _NOT_RETRIEVED,
            "Shokouhi, M. (2007). Segmentation of search engine results for effective "
            "data-fusion. ECIR 2007, LNCS 4425, 185-197.",
            trained=True,
        ),
        MethodSpec(
            "slidefuse",
            "rank",
            "sum of the mean of P_r over the positions i_r - w .. i_r + w clipped to the "
            "list (P_r as posfuse)",
            _NOT_RETRIEVED,
            "Lillis, D., Toolan, F., Collier, R. W. & Dunnion, J. (2008). Extending "
            "probabilistic data fusion using sliding windows. ECIR 2008, LNCS 4956, 358-369.",
            params=(_WINDOW,),
            trained=True,
        ),
        MethodSpec(
            "mapfuse",
            "rank",
            "sum of MAP_r / (i_r + 1), MAP_r run r's mean average precision on the training "
            "queries",
            _NOT_RETRIEVED,
            _LILLIS_2010,
            trained=True,
        ),
    )
}
"""Every fusion method, by name."""
CONDORCET: Final = ("condorcet", "w_condorcet")
"""The methods that sort each query's documents by pairwise votes
(:mod:`cranfield.fusion.condorcet`) rather than sum over them."""


@dataclass(frozen=True)
class NormalizationSpec:
    """A per-query normalisation of one run's scores (``s``: a score of the query's list,
    ``m``: the list's length, ``i``: the 0-based position in its ranking)."""

    name: str
    formula: str
    note: str = ""


NORMALIZATIONS: Final[dict[str, NormalizationSpec]] = {
    n.name: n
    for n in (
        NormalizationSpec("none", "s", "the scores as given"),
        NormalizationSpec(
            "min-max",
            "(s - min) / max(max - min, 1e-9)",
            "a query whose scores are all equal gets 0 for every document",
        ),
        NormalizationSpec(
            "min-max-inverted",
            "(max - s) / max(max - min, 1e-9)",
            "for scores where lower is better (distances); the run's ranking is then score "
            "ascending, ties by doc id descending",
        ),
        NormalizationSpec("max", "s / max(max, 1e-9)"),
        NormalizationSpec("sum", "(s - min) / max(sum(s) - m * min, 1e-9)"),
        NormalizationSpec(
            "zmuv",
            "(s - mean) / max(std, 1e-9), std the population standard deviation",
            "zero mean, unit variance",
        ),
        NormalizationSpec("rank", "1 - i / m"),
        NormalizationSpec(
            "borda",
            "1 - i / c, c the number of distinct documents of the query over all runs",
            "every run gets every document of the query: one it did not retrieve scores "
            "0.5 - (m - 1) / (2c), so for the methods that count runs (mnz, anz, ...) every "
            "run retrieved every document",
        ),
    )
}
"""Every normalisation, by name."""
