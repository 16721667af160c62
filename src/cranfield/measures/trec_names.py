"""trec_eval's measure table: its order, its nicknames and the rows that are not measures.

trec_eval prints measures in the order of its internal table, whatever the order of ``-m``
options; cutoffs are sorted ascending. The rows that are cranfield measures are not
declared here: each is a :class:`~cranfield.measures._spec.TrecForm` on its measure's spec
(``AP`` declares ``map`` and ``map_cut``), so the maths and the name live in one place.
This module only places them in trec_eval's order, next to the rows computed elsewhere
(``runid``, ``relstring``, the preference and judgment-group measures), and checks on
import that every declared name has exactly one place.

``translate`` turns a trec_eval name into native measures for the Python API; ``expand``
gives the trec_eval CLI its output rows; ``trec_eval_label`` goes the other way, from a
measure to the name trec_eval prints for it; ``describe`` documents a row (``-h -m``).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np

from cranfield.errors import MeasureError
from cranfield.kernels.judgment_groups import JUDGMENT_GROUP_MEASURES
from cranfield.kernels.prefs_names import PREFS_MEASURES, PREFS_SUMMARY
from cranfield.measures._spec import (
    TREC_CUTOFFS,
    TREC_MULTIPLIERS,
    Measure,
    MeasureSpec,
    TrecForm,
    all_specs,
    make,
    peer_names,
)

Family = Literal["ranked", "prefs", "jg"]
Summary = Literal["mean", "sum", "gmean", "count", "none", "runid"]

RELSTRING_LENGTH = 10
"""How many documents ``relstring`` shows without a parameter."""


@dataclass(frozen=True)
class TrecMeasure:
    """One row of trec_eval's measure table.

    ``spec`` is the measure that declares ``form``; rows computed outside the measure
    registry (the run tag, the relevance string, preference and judgment-group measures)
    have none and carry their own ``doc``.
    """

    form: TrecForm
    spec: MeasureSpec | None = None
    family: Family = "ranked"
    integer: bool = False
    doc: str = ""

    @property
    def name(self) -> str:
        return self.form.name


_PREFS_DOC = (
    "A preference measure, computed with -R prefs or -R qrels_prefs and {how} over queries; "
    "its definition is in the documentation of cranfield.kernels.prefs."
)
_JG_DOC = (
    "Mean over the judgment groups of a topic (-R qrels_jg) of {what}; "
    "see cranfield.kernels.judgment_groups."
)

# trec_eval's table in its order. A string is the trec_eval name of a measure's TrecForm
# (declared on the spec); a TrecMeasure is a row that is not a cranfield measure.
_ORDER: tuple[str | TrecMeasure, ...] = (
    TrecMeasure(
        TrecForm("runid"),
        doc="The run tag (the last column of the run file), on the summary line only.",
    ),
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
    TrecMeasure(
        TrecForm("relstring"),
        doc=f"The relevance of the first N retrieved documents (default {RELSTRING_LENGTH}; "
        "relstring.20 shows 20) as one character each: the judged level (0-9, '>' above 9), "
        "'-' for a document not in the qrels, '.' for a pooled but unjudged one. Per query "
        "only.",
    ),
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    *(
        TrecMeasure(
            TrecForm(name),
            family="prefs",
            integer=PREFS_SUMMARY[name] == "sum",
            doc=_PREFS_DOC.format(how="summed" if PREFS_SUMMARY[name] == "sum" else "averaged"),
        )
        for name in PREFS_MEASURES
    ),
    TrecMeasure(
        TrecForm(JUDGMENT_GROUP_MEASURES[0]),
        family="jg",
        doc=_JG_DOC.format(what="average precision (map)"),
    ),
    TrecMeasure(
        TrecForm(JUDGMENT_GROUP_MEASURES[1], "cutoffs", TREC_CUTOFFS),
        family="jg",
        doc=_JG_DOC.format(what="precision at each cutoff k (P_avgjg_k)"),
    ),
    TrecMeasure(
        TrecForm(JUDGMENT_GROUP_MEASURES[2], "multipliers", TREC_MULTIPLIERS),
        family="jg",
        doc=_JG_DOC.format(what="precision at m·R documents, for each multiplier m"),
    ),
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
)


def _table() -> tuple[TrecMeasure, ...]:
    """trec_eval's rows in order, the measure rows taken from the specs' declarations."""
    declared: dict[str, TrecMeasure] = {}
    for spec in all_specs():
        for form in spec.trec:
            if form.name in declared:
                raise ValueError(f"trec_eval name {form.name!r} is declared twice.")
            declared[form.name] = TrecMeasure(form, spec, integer=spec.integer_valued)
    rows: list[TrecMeasure] = []
    for entry in _ORDER:
        if isinstance(entry, TrecMeasure):
            if entry.name in declared:
                raise ValueError(f"trec_eval name {entry.name!r} is declared twice.")
            rows.append(entry)
            continue
        row = declared.pop(entry, None)
        if row is None:
            raise ValueError(f"trec_eval's order names {entry!r}, which no measure declares.")
        rows.append(row)
    if declared:
        raise ValueError(
            f"trec_eval name(s) {sorted(declared)} have no place in trec_eval's order."
        )
    return tuple(rows)


TABLE: tuple[TrecMeasure, ...] = _table()
BY_NAME = {m.name: m for m in TABLE}
ORDER = {m.name: i for i, m in enumerate(TABLE)}

# Not in trec_eval's all_trec nickname although computed from standard qrels and runs.
_NOT_ALL_TREC = frozenset({"dcg", "ideal_dcg", "yaap"})
# trec_eval's 'official' measures are the rows of its table that come before relstring.
_OFFICIAL = tuple(m.name for m in TABLE[: ORDER["relstring"]])
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "all_trec": tuple(
        m.name for m in TABLE if m.family == "ranked" and m.name not in _NOT_ALL_TREC
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
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES),
    # trec_eval's 'prefs': the counts and the first three ratios
    "prefs": ("runid", "num_q", *PREFS_MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", *(m.name for m in TABLE if m.family == "jg")),
}


def _check_nicknames() -> None:
    for nickname, members in NICKNAMES.items():
        unknown = [m for m in (*members, *_NOT_ALL_TREC) if m not in BY_NAME]
        if unknown:
            raise ValueError(f"trec_eval nickname {nickname!r} names unknown rows {unknown}.")


_check_nicknames()


def trec_measure_names() -> list[str]:
    return [m.name for m in TABLE]


def not_in_v9(name: str) -> bool:
    """Whether trec_eval 9.0.x lacks the measure ``name`` (``--compat 9`` refuses it)."""
    return not BY_NAME[name].form.in_v9


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
    family: Family = "ranked"


_INTEGER = re.compile(r"\d+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# Characters typed for digits: the letters O and l (``ndcg_cut_1O``, ``P_l0``).
_DIGIT_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"})


class _Numbers(NamedTuple):
    """How the numbers of one parameter list ``raw`` of measure ``name`` are read.

    Strictly for a name given to cranfield (``-m``, ``parse_measures``): a cutoff in digits
    only, a parameter a whole decimal number, or one sentence naming the nearest valid
    spelling, ``sep`` (``.`` or ``_``) as the user wrote it. C's ``atol``/``atof`` would
    read ``ndcg_cut_1O`` (a letter O) as nDCG@1, another measure computed silently.
    ``cranfield trec-eval`` reads as trec_eval does (``strict=False``: the leading number,
    ``ndcg_cut.23.4`` is ndcg_cut_23), its output being trec_eval's byte for byte.
    """

    name: str
    raw: str
    sep: str = "."
    strict: bool = True

    def integer(self, text: str) -> int:
        if _INTEGER.fullmatch(text):
            return int(text)
        if not self.strict:
            m = re.match(r"\s*[+-]?\d+", text)
            return int(m.group(0)) if m else 0
        raise MeasureError(
            f"trec_eval measure {self.name}: {text!r} in {self.spelt} is not a whole number "
            f"(digits only){self._nearest(text, _integer_guess)}"
        )

    def decimal(self, text: str) -> float:
        if _DECIMAL.fullmatch(text):
            return float(text)
        if not self.strict:
            m = _DECIMAL.match(text.lstrip())
            return float(m.group(0)) if m else 0.0
        raise MeasureError(
            f"trec_eval measure {self.name}: {text!r} in {self.spelt} is not a number"
            f"{self._nearest(text, _decimal_guess)}"
        )

    @property
    def spelt(self) -> str:
        return f"{self.name}{self.sep}{self.raw}"

    def _nearest(self, bad: str, guess: Callable[[str], str | None]) -> str:
        """``; did you mean ndcg_cut_10?``, ``bad`` replaced by its likely meaning, or ``.``."""
        fixed = guess(bad)
        if fixed is None:
            return "."
        items = [
            fixed
            if item == bad
            else item[: -len(bad)] + fixed
            if item.endswith("=" + bad)
            else item
            for item in self.raw.split(",")
        ]
        return f"; did you mean {self.name}{self.sep}{','.join(items)}?"


def _integer_guess(text: str) -> str | None:
    fixed = text.translate(_DIGIT_LOOKALIKES)
    if _INTEGER.fullmatch(fixed):
        return str(int(fixed))
    if _DECIMAL.fullmatch(fixed) and float(fixed).is_integer() and float(fixed) >= 0:
        return str(int(float(fixed)))
    lead = re.match(r"\d+", fixed)
    return lead.group(0) if lead else None


def _decimal_guess(text: str) -> str | None:
    fixed = text.translate(_DIGIT_LOOKALIKES)
    if _DECIMAL.fullmatch(fixed):
        return fixed
    lead = _DECIMAL.match(fixed)
    return lead.group(0) if lead else None


def _f32(x: float) -> float:
    return float(np.float32(x))


def _gain_pairs(
    raw: str, name: str, float32: bool, numbers: _Numbers
) -> tuple[tuple[tuple[int, float], ...], dict[str, float]]:
    """Split ``1=3,2=9,p=0.8`` into integer-level gains and other named values."""
    gains: list[tuple[int, float]] = []
    named: dict[str, float] = {}
    for item in raw.split(","):
        if "=" not in item:
            raise MeasureError(f"trec_eval measure {name}: parameter {item!r} must be name=value.")
        key, value = item.split("=", 1)
        number = numbers.decimal(value)
        if float32:
            number = _f32(number)
        if re.fullmatch(r"[+-]?\d+", key):
            gains.append((int(key), number))
        else:
            named[key] = number
    return tuple(gains), named


def _cut_label(form: TrecForm, value: float) -> str:
    """``P_5``, ``iprec_at_recall_0.50``: trec_eval prints float parameters as ``%3.2f``."""
    return f"{form.name}_{value}" if form.args == "cutoffs" else f"{form.name}_{value:3.2f}"


def expand(
    name: str,
    raw: str | None,
    *,
    rel_level: int | None = None,
    c_floats: bool = False,
    sep: str = ".",
    strict: bool = True,
) -> list[TrecOutput]:
    """The output rows of trec_eval measure ``name`` with parameter string ``raw``.

    ``c_floats`` rounds the parameters trec_eval stores as C ``float`` (gains, rbp's p) to
    float32, for byte-identical output. Numbers in ``raw`` are read strictly (a cutoff in
    digits only) unless ``strict`` is false (as trec_eval reads them, C's ``atol``); ``sep``,
    the character the user wrote between name and parameters (``.`` or ``_``), spells the
    suggestion when one is refused.
    """
    numbers = _Numbers(name, raw or "", sep, strict)
    row = BY_NAME.get(name)
    if row is None:
        raise MeasureError(f"trec_eval has no measure {name!r}.")
    if row.spec is None:
        return _expand_other(row, raw, numbers)
    return _expand_measure(
        row, row.spec, raw, rel_level=rel_level, c_floats=c_floats, numbers=numbers
    )


def _expand_other(row: TrecMeasure, raw: str | None, numbers: _Numbers) -> list[TrecOutput]:
    """Rows computed outside the measure registry: runid, relstring, prefs and jg."""
    name, family = row.name, row.family
    if name == "runid":
        return [TrecOutput(name, name, None, False, "runid", per_topic=False, family=family)]
    if name == "relstring":
        length = numbers.integer(raw) if raw else RELSTRING_LENGTH
        label = f"{name}_{raw}" if raw else name
        return [TrecOutput(label, name, None, False, "none", arg=length, family=family)]
    if row.form.one_per_value:
        return [
            TrecOutput(_cut_label(row.form, c), name, None, False, "mean", arg=c, family=family)
            for c in _cuts(row.form, raw, numbers)
        ]
    summary: Summary = "sum" if row.integer else "mean"
    return [TrecOutput(name, name, None, row.integer, summary, family=family)]


def _expand_measure(
    row: TrecMeasure,
    spec: MeasureSpec,
    raw: str | None,
    *,
    rel_level: int | None,
    c_floats: bool,
    numbers: _Numbers,
) -> list[TrecOutput]:
    form = row.form
    takes = {p.name for p in spec.params}
    params: dict[str, Any] = dict(form.fixed)
    if rel_level is not None and "rel" in takes:
        params["rel"] = rel_level
    if form.one_per_value:
        out = []
        for c in _cuts(form, raw, numbers):
            if form.args == "multipliers":
                measure = make(spec.name, {**params, "mult": c})
            else:
                measure = make(spec.name, params, c)
            out.append(TrecOutput(_cut_label(form, c), form.name, measure, False, "mean"))
        return out
    if raw:
        params.update(_parameters(form, takes, raw, c_floats=c_floats, numbers=numbers))
    summary: Summary
    if form.summary == "count":
        summary = "count"
    elif spec.aggregate == "gmean":
        summary = "gmean"
    else:
        summary = "sum" if spec.aggregate == "sum" else "mean"
    return [
        TrecOutput(
            f"{form.name}_{raw}" if raw else form.name,
            form.name,
            make(spec.name, params),
            row.integer,
            summary,
            per_topic=summary not in ("count", "gmean"),
        )
    ]


def _parameters(
    form: TrecForm, takes: set[str], raw: str, *, c_floats: bool, numbers: _Numbers
) -> dict[str, Any]:
    """The measure parameters a trec_eval parameter list ``raw`` gives."""
    if form.args == "gains":
        gains, named = _gain_pairs(raw, form.name, form.c_float and c_floats, numbers)
        params: dict[str, Any] = {}
        if "p" in takes and "p" in named:
            params["p"] = named["p"]
        if "gains" in takes and gains:
            params["gains"] = gains
        return params
    values = [numbers.decimal(v) for v in raw.split(",")]
    if form.args == "coefficients":
        if len(values) != 4:
            raise MeasureError(
                f"trec_eval measure {form.name} takes 4 coefficients, e.g. {form.name}.1,-1,0,0."
            )
        return dict(zip(("a", "b", "c", "d"), values, strict=True))
    if form.args == "recall_list":
        return {"levels": tuple(values)}
    if form.args == "beta_squared":
        if values[0] < 0:
            raise MeasureError(
                f"trec_eval measure {form.name} needs a parameter >= 0, got {raw!r}."
            )
        return {"beta": math.sqrt(values[0])}
    return {}  # "none": trec_eval ignores the list (the label keeps it)


def _cuts(form: TrecForm, raw: str | None, numbers: _Numbers) -> list[Any]:
    if not raw:
        return list(form.defaults)
    items = raw.split(",")
    if form.args == "cutoffs":
        cuts_i = sorted(numbers.integer(x) for x in items)
        if any(c <= 0 for c in cuts_i) or len(set(cuts_i)) != len(cuts_i):
            raise MeasureError(
                f"trec_eval measure {form.name}: cutoffs must be distinct integers > 0, got {raw!r}."
            )
        return cuts_i
    cuts_f = sorted(numbers.decimal(x) for x in items)
    if len(set(cuts_f)) != len(cuts_f):
        raise MeasureError(f"trec_eval measure {form.name}: cutoffs must be distinct, got {raw!r}.")
    return cuts_f


def trec_eval_label(measure: Measure) -> str | None:
    """The name trec_eval prints for ``measure``, or ``None`` if trec_eval prints none for it.

    A measure gets a trec_eval label only if trec_eval computes exactly it by that name
    (the relevance level aside): ``AP`` is ``map``, ``AP@10`` is ``map_cut_10``, ``P@5`` is
    ``P_5``, ``Rprec(mult=0.2)`` is ``Rprec_mult_0.20``, ``SetP(relative=True)`` is
    ``set_relative_P``. ``P(rel=2)@5``, ``RR@10`` or ``SetP@5`` get none. The label parses
    back to the same measure, so two measures never share a label.

    Examples
    --------
    >>> from cranfield.measures import parse_measure
    >>> [trec_eval_label(parse_measure(t)) for t in ("AP", "nDCG@10", "RR@10")]
    ['map', 'ndcg_cut_10', None]
    """
    params = dict(measure.params)
    for form in measure.spec.trec:
        rest = dict(params)
        if any(rest.pop(key, None) != value for key, value in form.fixed):
            continue
        if form.args in ("cutoffs", "recall_levels"):
            value, matches = measure.at, not rest and measure.at is not None
        elif form.args == "multipliers":
            value, matches = rest.get("mult"), measure.at is None and set(rest) == {"mult"}
        else:
            if not rest and measure.at is None:
                return form.name
            continue
        if matches and value is not None:
            label = _cut_label(form, value)
            # %3.2f may not say the value exactly (0.125 prints as 0.12): then no label
            if float(label[len(form.name) + 1 :]) == value:
                return label
    return None


def describe(name: str, *, width: int = 88) -> str:
    """trec_eval's documentation of the row ``name`` (as ``trec_eval -h -m name`` prints it).

    The name on a line, then its description indented by four spaces: for a measure, its
    summary, formula, the cranfield measure it is, its parameters and notes.

    Examples
    --------
    >>> print(describe("map").splitlines()[0])
    map
    """
    row = BY_NAME.get(name)
    if row is None:
        raise MeasureError(f"trec_eval has no measure {name!r}.")
    paragraphs = [row.doc] if row.spec is None else _measure_doc(row, row.spec)
    body = "".join(
        textwrap.fill(p, width, initial_indent="    ", subsequent_indent="      ") + "\n"
        for p in paragraphs
    )
    return f"{name}\n{body}"


def _measure_doc(row: TrecMeasure, spec: MeasureSpec) -> list[str]:
    form = row.form
    same = {
        "cutoffs": f"{spec.name}@k",
        "recall_levels": f"{spec.name}@level",
        "multipliers": f"{spec.name}(mult=m)",
    }.get(form.args) or str(make(spec.name, dict(form.fixed)))
    defaults = ",".join(f"{v:g}" for v in form.defaults)
    takes = {p.name: p for p in spec.params}
    parameters = {
        "none": "",
        "cutoffs": f"cutoffs k, one line {form.name}_k each (default {defaults})",
        "recall_levels": f"recall levels, one line each (default {defaults})",
        "multipliers": f"multiples m of R, one line each (default {defaults})",
        "gains": " or ".join(
            [
                *(["the persistence p, e.g. {form.name}.p=0.8"] if "p" in takes else []),
                *(["level=gain pairs, e.g. {form.name}.1=3,2=9"] if "gains" in takes else []),
            ]
        ),
        "coefficients": "the utility coefficients a,b,c,d, e.g. {form.name}.1,-1,0,0",
        "recall_list": "the recall levels to average, e.g. {form.name}.0.25,0.5,0.75",
        "beta_squared": "beta squared (default 1: F1)",
    }[form.args].format(form=form)
    doc = [spec.summary, f"Formula: {spec.formula}", f"In cranfield: {same}."]
    if parameters:
        doc.append(f"Parameters ({form.name}.params): {parameters}.")
    if spec.notes:
        doc.append(f"Notes: {spec.notes}")
    return doc


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
    sep = text[len(name)] if raw is not None else "."
    names = NICKNAMES.get(name, (name,))
    out: list[Measure] = []
    for n in names:
        row = BY_NAME[n]
        if row.spec is None:  # runid, relstring, the prefs and jg measures
            if name in NICKNAMES:
                continue
            raise MeasureError(
                f"trec_eval measure {n!r} is only available through 'cranfield trec-eval'."
            )
        out.extend(
            o.measure
            for o in expand(n, raw if name not in NICKNAMES else None, sep=sep)
            if o.measure
        )
    return out


def translate_ndeval(text: str) -> list[Measure] | None:
    """Native measure for a column name of ndeval's output (``ERR-IA@20``, ``MAP-IA``,
    ``alpha-nDCG@10``, ``strec@5``), or ``None``: ndeval's defaults (α = 0.5, β = 0.5, a
    subtopic judgment >= 1 relevant) are the measures' defaults, and its ``@k`` is theirs.

    The ndeval names are declared on the measures' specs (:class:`PeerName`).
    """
    m = re.fullmatch(r"([A-Za-z-]+)(?:@(\d+))?", text)
    if not m:
        return None
    base, cut = m.groups()
    found = {peer.name: spec for spec, peer in peer_names("ndeval")}.get(base)
    if found is None:
        return None
    if cut is None and found.at == "cutoff_required":
        raise MeasureError(f"ndeval's {base} needs a cutoff, as in {base}@20.")
    if cut is not None and found.at == "none":
        raise MeasureError(f"ndeval's {base} takes no cutoff: it scores the whole ranking.")
    return [make(found.name, {}, int(cut) if cut is not None else None)]


def translate_ranx(text: str) -> list[Measure] | None:
    """Native measure for a ranx name (``ndcg@10``, ``map@100-l2``, ``rbp.95``), or ``None``.

    The ranx names are declared on the measures' specs (:class:`PeerName`).
    """
    m = re.fullmatch(r"([a-z_0-9]+?)(?:\.(\d+))?(?:@(\d+))?(?:-l(\d+))?", text)
    if not m:
        return None
    base, p_digits, cut, level = m.groups()
    found = {peer.name: (spec, peer) for spec, peer in peer_names("ranx")}.get(base)
    if found is None:
        return None
    spec, peer = found
    takes = {p.name for p in spec.params}
    params: dict[str, Any] = dict(peer.fixed)
    if level is not None:
        if "rel" not in takes:
            raise MeasureError(
                f"{spec.name} takes no relevance threshold; ranx '-l' does not apply to {base}."
            )
        params["rel"] = int(level)
    if p_digits is not None:
        if "p" not in takes:
            return None
        params["p"] = float("0." + p_digits)
    if cut is not None and spec.at == "none":
        hint = f"; write {base}.95 for p = 0.95" if "p" in takes else ""
        raise MeasureError(f"ranx {base} takes no cutoff{hint}.")
    if cut is not None and peer.at_differs:
        raise MeasureError(
            f"ranx {base}@k has no exact equivalent: {peer.at_differs}; "
            f"{base} without @ is {spec.name}."
        )
    return [make(spec.name, params, int(cut) if cut is not None else None)]
