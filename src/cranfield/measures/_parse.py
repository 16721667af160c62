"""Measure names: a small grammar (never ``eval``) plus translators for other tools' names.

Native (ir_measures) syntax, canonical::

    measure := NAME [ "(" [ kwarg ("," kwarg)* ] ")" ] [ "@" NUMBER ]
    kwarg   := IDENT "=" value
    value   := NUMBER | STRING | True | False | "{" [NUMBER ":" NUMBER ("," ...)*] "}"
             | "(" NUMBER ("," NUMBER)* [","] ")"

Also accepted and translated: trec_eval names (``map``, ``P.5,10``, ``P_10``, ``ndcg_cut.10``,
``recip_rank``, nicknames such as ``official``) and ranx names (``ndcg@10``, ``map@100``,
``mrr``, ``precision@5``, ``recall@100``, ``hit_rate@10``, ``rbp.95``, ``-l2`` suffix).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from cranfield.errors import MeasureError
from cranfield.measures._spec import Measure, known_names, lookup, make

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
    """Parse a name that may expand to several measures (``P.5,10``, ``official``)."""
    from cranfield.measures import trec_names

    text = text.strip()
    if not text:
        raise MeasureError("A measure name is empty.")
    exact = lookup(text)
    if exact is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        return [make(exact.name)]
    head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    head_name = head.group(0) if head else ""
    spec = lookup(head_name) if head else None
    if spec is None:
        from cranfield.measures import families  # noqa: F401 - make sure specs are registered

        spec = lookup(head_name)
    if spec is not None and (len(text) == len(head_name) or text[len(head_name)] in "(@"):
        name, params, at = _Parser(text).measure()
        if at is None and spec.at in ("cutoff_required", "recall_required"):
            expanded = trec_names.translate(text)
            if expanded is not None:
                return expanded
        return [make(name, params, at)]
    try:
        translated = trec_names.translate(text)
    except MeasureError:
        ranx = trec_names.translate_ranx(text)
        if ranx is not None:
            return ranx
        raise
    if translated is not None:
        return translated
    ranx = trec_names.translate_ranx(text)
    if ranx is not None:
        return ranx
    raise MeasureError(_unknown(text))


def _unknown(text: str) -> str:
    from cranfield.measures import trec_names

    base = re.split(r"[(@.]", text, maxsplit=1)[0]
    candidates = sorted(
        set(known_names()) | set(trec_names.trec_measure_names()) | set(trec_names.NICKNAMES)
    )
    close = difflib.get_close_matches(base, candidates, n=5, cutoff=0.5)
    close += [c for c in candidates if c.lower() == base.lower() and c not in close]
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return f"Unknown measure {text!r}.{hint} Run 'cranfield measures' for the list."
