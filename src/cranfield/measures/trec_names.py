"""trec_eval's measure table: names, parameters, nicknames, output labels and order.

trec_eval prints measures in the order of its internal table (below), whatever the order
of ``-m`` options; cutoffs are sorted ascending. Each trec_eval measure maps to native
measures, so the maths lives only in the native specs. ``translate`` turns a trec_eval name
into native measures for the Python API; ``expand`` gives the trec_eval CLI its output rows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from cranfield.errors import MeasureError
from cranfield.measures._spec import Measure, make

Kind = Literal["plain", "int_cuts", "float_cuts", "param", "gains", "special"]
Summary = Literal["mean", "sum", "gmean", "count", "none", "runid"]

INT_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class TrecMeasure:
    """One row of trec_eval's measure table."""

    name: str
    kind: Kind
    defaults: tuple[Any, ...] = ()
    native: str | None = None
    integer: bool = False
    float32_params: bool = False  # trec_eval stores these parameters as C float
    family: Literal["ranked", "prefs", "jg"] = "ranked"


_T = TrecMeasure
TABLE: tuple[TrecMeasure, ...] = (
    _T("runid", "special"),
    _T("num_q", "plain", native="NumQ", integer=True),
    _T("num_ret", "plain", native="NumRet", integer=True),
    _T("num_rel", "plain", native="NumRel", integer=True),
    _T("num_rel_ret", "plain", native="NumRelRet", integer=True),
    _T("map", "plain", native="AP"),
    _T("gm_map", "plain", native="GMAP"),
    _T("Rprec", "plain", native="Rprec"),
    _T("bpref", "plain", native="Bpref"),
    _T("recip_rank", "plain", native="RR"),
    _T("iprec_at_recall", "float_cuts", RECALL_LEVELS, native="IPrec"),
    _T("P", "int_cuts", INT_CUTS, native="P"),
    _T("relstring", "special", (10,)),
    _T("recall", "int_cuts", INT_CUTS, native="R"),
    _T("infAP", "plain", native="infAP"),
    _T("gm_bpref", "plain", native="GMBpref"),
    _T("Rprec_mult", "float_cuts", MULTS, native="Rprec"),
    _T("utility", "param", (1.0, -1.0, 0.0, 0.0), native="Utility"),
    _T("11pt_avg", "param", RECALL_LEVELS, native="IPrecAvg"),
    _T("binG", "plain", native="binG"),
    _T("G", "gains", native="G", float32_params=True),
    _T("dcg", "gains", native="DCG", float32_params=True),
    _T("ideal_dcg", "gains", native="IDCG", float32_params=True),
    _T("ndcg", "gains", native="nDCG", float32_params=True),
    _T("ndcg_rel", "gains", native="nDCG_rel", float32_params=True),
    _T("Rndcg", "gains", native="RnDCG"),
    _T("ndcg_cut", "int_cuts", INT_CUTS, native="nDCG"),
    _T("map_cut", "int_cuts", INT_CUTS, native="AP"),
    _T("relative_P", "int_cuts", INT_CUTS, native="RelP"),
    _T("success", "int_cuts", (1, 5, 10), native="Success"),
    _T("set_P", "plain", native="SetP"),
    _T("set_relative_P", "plain", native="SetP"),
    _T("set_recall", "plain", native="SetR"),
    _T("set_map", "plain", native="SetAP"),
    _T("set_F", "param", (1.0,), native="SetF"),
    _T("num_nonrel_judged_ret", "plain", native="NumNonRelJudgedRet", integer=True),
    _T("prefs_num_prefs_poss", "special", integer=True, family="prefs"),
    _T("prefs_num_prefs_ful", "special", integer=True, family="prefs"),
    _T("prefs_num_prefs_ful_ret", "special", integer=True, family="prefs"),
    _T("prefs_simp", "special", family="prefs"),
    _T("prefs_pair", "special", family="prefs"),
    _T("prefs_avgjg", "special", family="prefs"),
    _T("prefs_avgjg_Rnonrel", "special", family="prefs"),
    _T("prefs_simp_ret", "special", family="prefs"),
    _T("prefs_pair_ret", "special", family="prefs"),
    _T("prefs_avgjg_ret", "special", family="prefs"),
    _T("prefs_avgjg_Rnonrel_ret", "special", family="prefs"),
    _T("prefs_simp_imp", "special", family="prefs"),
    _T("prefs_pair_imp", "special", family="prefs"),
    _T("prefs_avgjg_imp", "special", family="prefs"),
    _T("map_avgjg", "special", family="jg"),
    _T("P_avgjg", "int_cuts", INT_CUTS, family="jg"),
    _T("Rprec_mult_avgjg", "float_cuts", MULTS, family="jg"),
    _T("yaap", "plain", native="YAAP"),
    _T("rbp", "gains", native="RBP", float32_params=True),
    _T("rbp_resid", "gains", native="RBPResid", float32_params=True),
    _T("unj", "int_cuts", (5, 10, 20), native="Unjudged"),
)
BY_NAME = {m.name: m for m in TABLE}
ORDER = {m.name: i for i, m in enumerate(TABLE)}

_PREFS = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
_OFFICIAL = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "all_trec": (
        *_OFFICIAL,
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
# Measures trec_eval 9.x does not have.
NOT_IN_V9 = frozenset({"rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"})


def trec_measure_names() -> list[str]:
    return [m.name for m in TABLE]


@dataclass(frozen=True)
class TrecOutput:
    """One printed measure of trec_eval: its label and how it is computed and summarised."""

    label: str
    trec: str
    measure: Measure | None
    integer: bool
    summary: Summary
    per_topic: bool = True
    arg: Any = None  # relstring length, or the cutoff of a jg measure


def _atol(text: str) -> int:
    m = re.match(r"\s*[+-]?\d+", text)
    return int(m.group(0)) if m else 0


def _atof(text: str) -> float:
    m = re.match(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", text)
    return float(m.group(0)) if m else 0.0


def _f32(x: float) -> float:
    return float(np.float32(x))


def _gain_pairs(
    raw: str, name: str, float32: bool
) -> tuple[tuple[tuple[int, float], ...], dict[str, float]]:
    """Split ``1=3,2=9,p=0.8`` into integer-level gains and other named values."""
    gains: list[tuple[int, float]] = []
    named: dict[str, float] = {}
    for item in raw.split(","):
        if "=" not in item:
            raise MeasureError(f"trec_eval measure {name}: parameter {item!r} must be name=value.")
        key, value = item.split("=", 1)
        number = _atof(value)
        if float32:
            number = _f32(number)
        if re.fullmatch(r"[+-]?\d+", key):
            gains.append((int(key), number))
        else:
            named[key] = number
    return tuple(gains), named


def expand(
    name: str, raw: str | None, *, rel_level: int | None = None, c_floats: bool = False
) -> list[TrecOutput]:
    """The output rows of trec_eval measure ``name`` with parameter string ``raw``.

    ``c_floats`` rounds the parameters trec_eval stores as C ``float`` (gains, rbp's p) to
    float32, for byte-identical output.
    """
    tm = BY_NAME.get(name)
    if tm is None:
        raise MeasureError(f"trec_eval has no measure {name!r}.")
    rel = {} if rel_level is None else {"rel": rel_level}
    if tm.kind == "special":
        if name == "runid":
            return [TrecOutput("runid", name, None, False, "runid", per_topic=False)]
        if name == "relstring":
            n = _atol(raw) if raw else 10
            label = f"relstring_{raw}" if raw else "relstring"
            return [TrecOutput(label, name, None, False, "none", arg=n)]
        summary: Summary = "sum" if tm.integer else "mean"
        return [TrecOutput(name, name, None, tm.integer, summary)]
    if tm.kind in ("int_cuts", "float_cuts"):
        cuts = _cuts(tm, raw)
        out = []
        for c in cuts:
            label = f"{name}_{c}" if tm.kind == "int_cuts" else f"{name}_{c:3.2f}"
            if tm.family == "jg":
                out.append(TrecOutput(label, name, None, False, "mean", arg=c))
            elif name == "Rprec_mult":
                out.append(
                    TrecOutput(label, name, make("Rprec", {**rel, "mult": c}), False, "mean")
                )
            elif tm.native in ("nDCG", "Unjudged"):
                out.append(TrecOutput(label, name, make(tm.native, {}, c), False, "mean"))
            else:
                assert tm.native is not None
                out.append(TrecOutput(label, name, make(tm.native, rel, c), False, "mean"))
        return out
    label = f"{name}_{raw}" if raw else name
    assert tm.native is not None
    if tm.kind == "plain":
        params: dict[str, Any] = {} if tm.native in ("NumQ", "NumRet") else dict(rel)
        if name == "set_relative_P":
            params["relative"] = True
        summary = "sum" if tm.integer else "mean"
        if name == "num_q":
            summary = "count"
        if tm.native in ("GMAP", "GMBpref"):
            return [
                TrecOutput(label, name, make(tm.native, params), False, "gmean", per_topic=False)
            ]
        return [
            TrecOutput(
                label, name, make(tm.native, params), tm.integer, summary, per_topic=name != "num_q"
            )
        ]
    if tm.kind == "param":
        values = [_atof(v) for v in raw.split(",")] if raw else list(tm.defaults)
        if name == "utility":
            if len(values) != 4:
                raise MeasureError(
                    "trec_eval measure utility takes 4 coefficients, e.g. utility.1,-1,0,0."
                )
            a, b, c, d = values
            measure = make("Utility", {**rel, "a": a, "b": b, "c": c, "d": d})
        elif name == "11pt_avg":
            measure = make("IPrecAvg", {**rel, "levels": tuple(values)})
        else:  # set_F: trec_eval's parameter is beta squared
            if values[0] < 0:
                raise MeasureError(f"trec_eval measure set_F needs a parameter >= 0, got {raw!r}.")
            measure = make("SetF", {**rel, "beta": math.sqrt(values[0])})
        return [TrecOutput(label, name, measure, False, "mean")]
    # gains
    gains, named = _gain_pairs(raw, name, tm.float32_params and c_floats) if raw else ((), {})
    params = {}
    if tm.native in ("RBP", "RBPResid") and "p" in named:
        params["p"] = named["p"]
    if tm.native != "RBPResid" and gains:
        params["gains"] = gains
    if tm.native == "RnDCG":
        params.update(rel)
    return [TrecOutput(label, name, make(tm.native, params), False, "mean")]


def _cuts(tm: TrecMeasure, raw: str | None) -> list[Any]:
    if not raw:
        return list(tm.defaults)
    items = raw.split(",")
    if tm.kind == "int_cuts":
        cuts_i = sorted(_atol(x) for x in items)
        if any(c <= 0 for c in cuts_i) or len(set(cuts_i)) != len(cuts_i):
            raise MeasureError(
                f"trec_eval measure {tm.name}: cutoffs must be distinct integers > 0, got {raw!r}."
            )
        return cuts_i
    cuts_f = sorted(_atof(x) for x in items)
    if len(set(cuts_f)) != len(cuts_f):
        raise MeasureError(f"trec_eval measure {tm.name}: cutoffs must be distinct, got {raw!r}.")
    return cuts_f


def split_name(text: str) -> tuple[str, str | None] | None:
    """``'P.5,10'`` -> ``('P', '5,10')``; ``'ndcg_cut_10'`` -> ``('ndcg_cut', '10')``."""
    if text in BY_NAME or text in NICKNAMES:
        return text, None
    if "." in text:
        head, rest = text.split(".", 1)
        if head in BY_NAME or head in NICKNAMES:
            return head, rest
    best = None
    for name in BY_NAME:
        if text.startswith(name + "_") and (best is None or len(name) > len(best)):
            best = name
    if best is not None:
        rest = text[len(best) + 1 :]
        if rest:
            return best, rest
    return None


def translate(text: str) -> list[Measure] | None:
    """Native measures for a trec_eval name, or ``None`` if ``text`` is not one."""
    split = split_name(text)
    if split is None:
        return None
    name, raw = split
    names = NICKNAMES.get(name, (name,))
    out: list[Measure] = []
    for n in names:
        tm = BY_NAME[n]
        if tm.kind == "special" or tm.family != "ranked":
            if name in NICKNAMES:
                continue
            raise MeasureError(
                f"trec_eval measure {n!r} is only available through 'cranfield trec-eval'."
            )
        out.extend(
            o.measure for o in expand(n, raw if name not in NICKNAMES else None) if o.measure
        )
    return out


_RANX = {
    "ndcg": "nDCG",
    "map": "AP",
    "mrr": "RR",
    "precision": "P",
    "recall": "R",
    "r_precision": "Rprec",
    "bpref": "Bpref",
    "hit_rate": "Success",
    "hits": "NumRelRet",
    "dcg": "DCG",
    "f1": "SetF",
    "rbp": "RBP",
}


def translate_ranx(text: str) -> list[Measure] | None:
    """Native measure for a ranx name (``ndcg@10``, ``map@100-l2``, ``rbp.95``), or ``None``."""
    m = re.fullmatch(r"([a-z_0-9]+?)(?:\.(\d+))?(?:@(\d+))?(?:-l(\d+))?", text)
    if not m or m.group(1) not in _RANX:
        return None
    base, p_digits, cut, level = m.groups()
    native = _RANX[base]
    params: dict[str, Any] = {}
    if level is not None:
        params["rel"] = int(level)
    if native == "RBP":
        if cut is not None:
            raise MeasureError("ranx rbp takes no cutoff; write rbp.95 for p = 0.95.")
        if p_digits:
            params["p"] = float("0." + p_digits)
        return [make("RBP", params)]
    if p_digits is not None:
        return None
    at = int(cut) if cut is not None else None
    if native == "NumRelRet":
        raise MeasureError(
            "ranx 'hits' has no exact equivalent; use P@k·k or NumRelRet with a depth."
        )
    if native == "SetF":
        if at is not None:
            raise MeasureError(
                "ranx f1@k has no equivalent here yet; use SetF with evaluate(depth=k)."
            )
        return [make("SetF", params)]
    if native == "nDCG" and "rel" in params:
        raise MeasureError("nDCG takes no relevance threshold; ranx '-l' does not apply to ndcg.")
    return [make(native, params, at)]
