"""Measure names: a small grammar (never ``eval``) plus translators for other tools' names.

Native (ir_measures) syntax, canonical::

    measure := NAME [ "(" [ kwarg ("," kwarg)* ] ")" ] [ "@" NUMBER ]
    kwarg   := IDENT "=" value
    value   := NUMBER | STRING | True | False | "{" [NUMBER ":" NUMBER ("," ...)*] "}"
             | "(" NUMBER ("," NUMBER)* [","] ")"

Also accepted and translated: trec_eval names (``map``, ``P.5,10``, ``P_10``, ``ndcg_cut.10``,
``recip_rank``, nicknames such as ``official``) and ranx names (``ndcg@10``, ``map@100``,
``mrr``, ``precision@5``, ``recall@100``, ``hit_rate@10``, ``dcg_burges@10``, ``rbp.95``,
``-l2`` suffix) and ir_measures' parameter spellings (``nDCG(dcg='exp-log2')@10``), all
declared on the measures' specs; a native name is matched ignoring case where only one
measure answers to it (``p@10``, ``r-precision``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from cranfield.errors import MeasureError
from cranfield.measures._spec import (
    Measure,
    known_names,
    lookup,
    lookup_folded,
    make,
    peer_names,
)

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
    r"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)|(?P<op>[(),=@{}:]))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise MeasureError(f"Cannot parse measure {text!r}: unexpected {text[pos:]!r}.")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        tok = self.peek()
        if (
            tok is None
            or (value is not None and tok[1] != value)
            or (kind is not None and tok[0] != kind)
        ):
            want = value or kind
            got = "the end" if tok is None else repr(tok[1])
            raise MeasureError(
                f"Cannot parse measure {self.text!r}: expected {want!r}, found {got}."
            )
        self.i += 1
        return tok[1]

    def number(self) -> int | float:
        raw = self.take(kind="num")
        return float(raw) if any(c in raw for c in ".eE") else int(raw)

    def value(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise MeasureError(f"Cannot parse measure {self.text!r}: missing a value.")
        kind, raw = tok
        if kind == "num":
            return self.number()
        if kind == "str":
            self.i += 1
            return raw[1:-1]
        if kind == "name":
            self.i += 1
            lowered = raw.lower()
            if lowered in ("true", "false"):
                return lowered == "true"
            return raw
        if raw == "{":
            self.take("{")
            pairs: list[tuple[Any, Any]] = []
            while self.peek() and self.peek() != ("op", "}"):
                level = self.number()
                self.take(":")
                pairs.append((level, self.number()))
                if self.peek() != ("op", "}"):
                    self.take(",")
            self.take("}")
            return tuple(pairs)
        if raw == "(":
            self.take("(")
            items: list[Any] = []
            while self.peek() and self.peek() != ("op", ")"):
                items.append(self.number())
                if self.peek() != ("op", ")"):
                    self.take(",")
            self.take(")")
            return tuple(items)
        raise MeasureError(f"Cannot parse measure {self.text!r}: unexpected {raw!r}.")

    def measure(self) -> tuple[str, dict[str, Any], int | float | None]:
        name = self.take(kind="name")
        params: dict[str, Any] = {}
        at: int | float | None = None
        if self.peek() == ("op", "("):
            self.take("(")
            while self.peek() and self.peek() != ("op", ")"):
                key = self.take(kind="name")
                if key in params:
                    raise MeasureError(f"Parameter {key!r} is given twice in {self.text!r}.")
                self.take("=")
                params[key] = self.value()
                if self.peek() != ("op", ")"):
                    self.take(",")
            self.take(")")
        if self.peek() == ("op", "@"):
            self.take("@")
            at = self.number()
        extra = self.peek()
        if extra is not None:
            raise MeasureError(f"Cannot parse measure {self.text!r}: unexpected {extra[1]!r}.")
        return name, params, at


def peer_measure(obj: object) -> list[Measure] | None:
    """The measure a peer tool's measure object is (ir_measures' ``nDCG@10``, ``AP(rel=2)``),
    or ``None`` when ``obj`` is no such object.

    The object's name, its given parameters and the defaults of those it leaves out (its
    defaults, which may differ from cranfield's: ir_measures' ``RBP`` is ``p=0.8``) are
    spelt in ir_measures' syntax and parsed as any name is, so its parameter spellings
    translate as they do in text. A relevance level left at ir_measures' default is left to
    the evaluation's ``relevance_level`` (1 unless set), as a name without ``rel`` is.

    Raises
    ------
    MeasureError
        One sentence when the object has no exact equivalent here.
    """
    cls = type(obj)
    if cls.__module__.partition(".")[0] != "ir_measures" or not hasattr(obj, "NAME"):
        return None
    name = str(obj.NAME)
    if name not in _IR_MEASURES_EQUAL:
        raise MeasureError(
            f"ir_measures' {obj} has no measure here known to give its values; write a "
            "cranfield name instead ('cranfield measures' lists them)."
        )
    beta = dict(getattr(obj, "params", {}) or {}).get("beta", 1.0)
    if name == "SetF" and beta != 1.0:
        raise MeasureError(
            f"ir_measures' {obj} hands beta to trec_eval's set_F, which reads it as beta "
            f"squared: SetF(beta={math.sqrt(beta):.6g}) gives its values, SetF(beta={beta!r}) "
            f"a true beta of {beta!r}; write the one you mean."
        )
    text = _ir_measures_text(obj)
    try:
        return parse_measures(text)
    except MeasureError as exc:
        raise MeasureError(f"ir_measures' {obj} has no equivalent here: {exc}") from None


# ir_measures' measures (by NAME) whose values cranfield's measure of that name gives, checked
# on the same qrels and runs (tests/unit/measures/test_peer_objects.py; the intent-aware ones
# against pyndeval in tests/parity/test_ndeval_family.py). Any other is refused, not guessed.
_IR_MEASURES_EQUAL = frozenset(
    {
        *("AP", "Bpref", "ERR", "IPrec", "Judged", "NumQ", "NumRel", "NumRelRet", "NumRet"),
        *("P", "R", "RR", "Rprec", "SetAP", "SetF", "SetP", "SetR", "Success", "infAP", "nDCG"),
        *("alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "AP_IA", "StRecall"),
    }
)


# Parameters of ir_measures' measures whose default is not written out: the cutoff (written
# after "@"), the relevance level (the evaluation's option) and judged_only (an option too).
_IR_MEASURES_UNSPELT = ("cutoff", "recall", "rel", "judged_only")


def _ir_measures_text(obj: Any) -> str:
    """``nDCG(dcg='log2')@10``: an ir_measures measure in its own syntax, defaults included."""
    given = dict(getattr(obj, "params", {}) or {})
    at = given.pop("cutoff", None)
    if at is None:
        at = given.pop("recall", None)  # IPrec@0.5
    params: dict[str, Any] = {}
    for key, declared in (getattr(obj, "SUPPORTED_PARAMS", {}) or {}).items():
        default = getattr(declared, "default", None)
        if key in given or key in _IR_MEASURES_UNSPELT or default is None:
            continue
        if type(default) is object:
            continue  # ir_measures' NOT_PROVIDED
        params[key] = default
    if given.get("judged_only") is False:  # its default, written out
        del given["judged_only"]
    params.update(given)
    inner = ",".join(f"{key}={value!r}" for key, value in params.items())
    head = f"{obj.NAME}({inner})" if inner else str(obj.NAME)
    return head + (f"@{at}" if at is not None else "")


def parse_measure(text: str) -> Measure:
    """Parse one measure in native syntax (``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``)."""
    measures = parse_measures(text)
    if len(measures) != 1:
        raise MeasureError(
            f"{text!r} names {len(measures)} measures ({', '.join(map(str, measures))}); "
            "use parse_measures for names that expand."
        )
    return measures[0]


def parse_measures(text: str) -> list[Measure]:
    """Parse a name that may expand to several measures (``P.5,10``, ``official``).

    Exact spellings win (native, then trec_eval, then ranx, then ndeval); a native name is then matched
    ignoring case when only one measure answers to it (``p@10``, ``r-precision``). An
    ir_measures measure object is read by :func:`peer_measure`.
    """
    if not isinstance(text, str):
        peer = peer_measure(text)
        if peer is not None:
            return peer
        raise MeasureError(
            f"A measure is a name or a Measure (or an ir_measures measure), "
            f"got a {type(text).__name__}."
        )
    text = text.strip()
    if not text:
        raise MeasureError("A measure name is empty.")
    exact = lookup(text)
    if exact is not None and not re.fullmatch(_IDENT, text):
        return [make(exact.name)]
    head = re.match(_IDENT, text)
    head_name = head.group(0) if head else ""
    spec = lookup(head_name) if head else None
    if spec is None:
        from cranfield.measures import families  # noqa: F401 - make sure specs are registered

        spec = lookup(head_name)
    if spec is not None and (len(text) == len(head_name) or text[len(head_name)] in "(@"):
        return _native(text)
    from cranfield.measures import trec_names  # not before: a native name does without it

    try:
        translated = trec_names.translate(text)
    except MeasureError:
        peer = _peer_name(text)
        if peer is not None:
            return peer
        if "@" in text:  # never in a trec_eval name: a misspelt native or peer name
            raise MeasureError(_unknown(text)) from None
        raise
    if translated is not None:
        return translated
    peer = _peer_name(text)
    if peer is not None:
        return peer
    folded = _fold_case(text, head_name)
    if folded is not None:
        return folded
    raise MeasureError(_unknown(text))


_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def _peer_name(text: str) -> list[Measure] | None:
    """``text`` read as a ranx name, else as an ndeval column name; ``None`` if neither."""
    from cranfield.measures import trec_names

    ranx = trec_names.translate_ranx(text)
    return ranx if ranx is not None else trec_names.translate_ndeval(text)


def _native(text: str) -> list[Measure]:
    """A name in native syntax, with ir_measures' parameter spellings translated."""
    name, params, at = _Parser(text).measure()
    spec = lookup(name)
    if spec is not None:
        name, params = _ir_measures_params(text, spec.name, params, at)
        spec = lookup(name)
    if spec is not None and at is None and spec.at in ("cutoff_required", "recall_required"):
        from cranfield.measures import trec_names

        try:  # a trec_eval name with default cutoffs (P), unless it only starts like one (P_IA)
            expanded = trec_names.translate(text)
        except MeasureError:
            expanded = None
        if expanded is not None:
            return expanded
    return [make(name, params, at)]


# ir_measures parameters that are options of the whole evaluation here, not of one measure.
_EVALUATION_OPTIONS = {"judged_only": "evaluate(..., judged_only=True) or --judged-only (-J)"}


def _ir_measures_params(
    text: str, name: str, params: dict[str, Any], at: int | float | None
) -> tuple[str, dict[str, Any]]:
    """Turn ir_measures' parameter spellings (``nDCG(dcg='exp-log2')``) into a native measure.

    The spellings are declared on the specs (:class:`PeerName` with ``tool="ir_measures"``).
    """
    options = [key for key in _EVALUATION_OPTIONS if key in params]
    if options:
        rest = {k: v for k, v in params.items() if k not in options}
        try:
            native, rest = _ir_measures_params(text, name, rest, at)
            without = f", then write {make(native, rest, at)}"
        except MeasureError:
            without = ""
        key = options[0]
        raise MeasureError(
            f"{key!r} in {text!r} is not a parameter of one measure here but an option of "
            f"the whole evaluation: {_EVALUATION_OPTIONS[key]}{without}."
        )
    peers = [
        (spec, peer)
        for spec, peer in peer_names("ir_measures")
        if lookup(peer.name) is lookup(name) and any(k in params for k, _ in peer.given)
    ]
    for spec, peer in peers:
        if all(k in params and _same(params[k], v) for k, v in peer.given):
            given = {k for k, _ in peer.given}
            rest = {k: v for k, v in params.items() if k not in given}
            return spec.name, {**dict(peer.fixed), **rest}
    if peers:
        accepted = sorted({", ".join(f"{k}={v!r}" for k, v in p.given) for _, p in peers})
        raise MeasureError(
            f"ir_measures' {text!r} has no equivalent here; {name} accepts {' or '.join(accepted)}."
        )
    return name, params


def _same(given: Any, declared: Any) -> bool:
    return type(given) is type(declared) and given == declared


def _fold_case(text: str, head_name: str) -> list[Measure] | None:
    """``text`` with its measure name matched ignoring case, or ``None`` if none matches.

    Raises :class:`MeasureError` when two measures differ only by case.
    """
    whole = lookup_folded(text)
    if len(whole) == 1 and not re.fullmatch(_IDENT, text):
        return [make(whole[0].name)]
    specs = whole if len(whole) > 1 else lookup_folded(head_name) if head_name else []
    if len(specs) > 1:
        both = " and ".join(s.name for s in specs)
        raise MeasureError(
            f"Measure {text!r} is ambiguous: {both} differ only by case; write one of them exactly."
        )
    if len(specs) == 1 and (len(text) == len(head_name) or text[len(head_name)] in "(@"):
        return _native(specs[0].name + text[len(head_name) :])
    return None


def _unknown(text: str) -> str:
    import difflib  # only to word an error

    from cranfield.measures import trec_names

    base = re.split(r"[(@.]", text, maxsplit=1)[0]
    candidates = sorted(
        set(known_names())
        | set(trec_names.trec_measure_names())
        | set(trec_names.NICKNAMES)
        | {peer.name for tool in ("ranx", "ir_measures", "ndeval") for _, peer in peer_names(tool)}
    )
    by_folded: dict[str, list[str]] = {}
    for c in candidates:
        by_folded.setdefault(c.casefold(), []).append(c)
    close: list[str] = []
    for folded in difflib.get_close_matches(base.casefold(), list(by_folded), n=5, cutoff=0.5):
        for c in sorted(by_folded[folded], key=lambda c: _suggestion_order(c, base)):
            spec = lookup(c)
            shown = spec.name if spec is not None else c  # an alias shows its measure's name
            if shown not in close:
                close.append(shown)
    hint = f" Did you mean {', '.join(close[:6])}?" if close else ""
    return f"Unknown measure {text!r}.{hint} Run 'cranfield measures' for the list."


def _suggestion_order(candidate: str, typed: str) -> tuple[bool, float]:
    """Canonical measure names first, then the spellings closest to ``typed`` in case."""
    import difflib

    spec = lookup(candidate)
    canonical = spec is not None and spec.name == candidate
    return not canonical, -difflib.SequenceMatcher(None, candidate, typed).ratio()
