"""Click models fitted to click logs, on the plain arrays of a log (issue 20, §3).

Every model takes the arrays ``query (n,)``, ``shown (n, depth)`` (document codes, ``-1`` where
no result is shown) and ``clicked (n, depth)`` (:mod:`.click_arrays`), is fitted by its
``fit`` class method (EM or a closed form, vectorised over sessions with numpy), and gives
click probabilities, log-likelihood and perplexity on held-out sessions (:mod:`.model`), its
estimated relevance per (query, document) (``relevance()``) and simulated clicks
(:func:`simulate`).

=====================  ==============================================  ===========
model                  parameters                                      fitted by
=====================  ==============================================  ===========
:class:`GlobalCTR`     one CTR                                         closed form
:class:`RankCTR`       CTR per rank                                    closed form
:class:`DocumentCTR`   CTR per (query, document)                       closed form
:class:`PBM`           attractiveness per pair, examination per rank   EM
:class:`Cascade`       attractiveness per pair                         closed form
:class:`DCM`           attractiveness per pair, continuation per rank  closed form
:class:`UBM`           attractiveness per pair, examination per        EM
                       (rank, previous click)
:class:`DBN`           attractiveness, satisfaction per pair,          EM
                       continuation γ
:class:`SDBN`          attractiveness, satisfaction per pair (γ = 1)   closed form
=====================  ==============================================  ===========
"""

from __future__ import annotations

from cranfield.logs.click_models.cascade import DCM, Cascade
from cranfield.logs.click_models.click_arrays import ClickArrays, click_arrays
from cranfield.logs.click_models.ctr import DocumentCTR, GlobalCTR, RankCTR
from cranfield.logs.click_models.dbn import DBN, SDBN
from cranfield.logs.click_models.model import (
    PROBABILITY_FLOOR,
    ClickModel,
    ModelScore,
    simulate,
)
from cranfield.logs.click_models.pair_table import PairTable
from cranfield.logs.click_models.pbm import PBM
from cranfield.logs.click_models.ubm import UBM

__all__ = [
    "DBN",
    "DCM",
    "PBM",
    "PROBABILITY_FLOOR",
    "SDBN",
    "UBM",
    "Cascade",
    "ClickArrays",
    "ClickModel",
    "DocumentCTR",
    "GlobalCTR",
    "ModelScore",
    "PairTable",
    "RankCTR",
    "click_arrays",
    "simulate",
]
