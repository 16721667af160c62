"""Measure names: the native grammar, canonical printing, trec_eval and ranx translations, errors.

A measure is a value: it has one canonical string (parameters sorted by name, defaults
omitted) that parses back to an equal, equally hashed measure. Names are parsed by a small
grammar, never by ``eval``; every rejected name raises :class:`cranfield.MeasureError` with
a one-line message.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import math
import re
from pathlib import Path
from typing import Any

import pytest

import cranfield
from cranfield import Measure, MeasureError, parse_measure, parse_measures
from cranfield.measures import MeasureSpec, Param, all_specs

SRC = Path(cranfield.__file__).resolve().parent


def names(text: str) -> list[str]:
    """Canonical strings of everything ``text`` expands to."""
    return [str(m) for m in parse_measures(text)]


def check_message(exc: pytest.ExceptionInfo[MeasureError]) -> str:
    """The message is one line of prose ending with a full stop (it may start with a name)."""
    message = str(exc.value)
    assert message
    assert "\n" not in message
    assert message == message.strip()
    assert message.endswith("."), message
    assert "Traceback" not in message
    return message


# --------------------------------------------------------------------------- native syntax


@pytest.mark.parametrize(
    ("text", "name", "params", "at"),
    [
        ("nDCG@10", "nDCG", (), 10),
        ("nDCG", "nDCG", (), None),
        ("P(rel=2)@5", "P", (("rel", 2),), 5),
        ("RBP(p=0.8)", "RBP", (("p", 0.8),), None),
        ("SetF(beta=0.5)", "SetF", (("beta", 0.5),), None),
        ("IPrec@0.1", "IPrec", (), 0.1),
        ("nDCG(gains={1:3,2:9})", "nDCG", (("gains", ((1, 3.0), (2, 9.0))),), None),
        ("IPrecAvg(levels=(0.25,0.5))", "IPrecAvg", (("levels", (0.25, 0.5)),), None),
        ("SetP(relative=True)", "SetP", (("relative", True),), None),
        ("Rprec(mult=0.5)", "Rprec", (("mult", 0.5),), None),
        ("Utility(a=2,b=-3)", "Utility", (("a", 2.0), ("b", -3.0)), None),
        ("AP@100", "AP", (), 100),
        ("Judged@10", "Judged", (), 10),
        (" RR@10 ", "RR", (), 10),
        ("RBP(p=.8)", "RBP", (("p", 0.8),), None),
        ("RBP(p=8e-1)", "RBP", (("p", 0.8),), None),
        ("P(rel=2,)@5", "P", (("rel", 2),), 5),
    ],
)
def test_native_syntax(text: str, name: str, params: tuple[Any, ...], at: float | None) -> None:
    m = parse_measure(text)
    assert isinstance(m, Measure)
    assert (m.name, m.params, m.at) == (name, params, at)
    assert parse_measures(text) == [m]


def test_parameter_values_have_their_declared_types() -> None:
    m = parse_measure("RBP(p=1)")
    assert m.get("p") == 1.0
    assert isinstance(m.get("p"), float)
    assert isinstance(parse_measure("IPrec@1").at, float)
    assert isinstance(parse_measure("P(rel=2)@5").get("rel"), int)
    assert isinstance(parse_measure("P@5").at, int)
    gains = parse_measure("nDCG(gains={1:3,2:9})").get("gains")
    assert all(isinstance(level, int) and isinstance(g, float) for level, g in gains)


def test_get_returns_the_default_for_unset_parameters() -> None:
    m = parse_measure("P@5")
    # rel's default is None: "use evaluate(relevance_level=...)", which defaults to 1.
    assert m.get("rel") is None
    assert parse_measure("RBP").get("p") == 0.9
    assert parse_measure("nDCG").get("gains") is None


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("nDCG@10", "nDCG@10"),
        ("P(rel=2)@5", "P(rel=2)@5"),
        ("RBP(p=0.8)", "RBP(p=0.8)"),
        ("IPrec@0.10", "IPrec@0.1"),
        ("IPrec@1", "IPrec@1"),
        ("IPrec@.5", "IPrec@0.5"),
        ("P@+5", "P@5"),
        # parameters sorted by name
        ("Utility(b=-2,a=2)", "Utility(a=2,b=-2)"),
        ("Rprec(rel=2,mult=0.5)", "Rprec(mult=0.5,rel=2)"),
        ("RnDCG(rel=2,gains={1:3})", "RnDCG(gains={1:3},rel=2)"),
        ("SetF(rel=2,beta=0.5)", "SetF(beta=0.5,rel=2)"),
        # defaults omitted
        # An explicit rel is kept (even rel=1): it must not follow evaluate's relevance_level.
        ("AP(rel=1)", "AP(rel=1)"),
        ("AP(rel=1)@10", "AP(rel=1)@10"),
        ("RBP(p=0.9)", "RBP"),
        ("Utility(a=1.0,b=-1,c=0,d=0)", "Utility"),
        ("SetF(beta=1,rel=2)", "SetF(rel=2)"),
        ("SetP(relative=False)", "SetP"),
        ("Rprec(mult=1)", "Rprec"),
        ("IPrecAvg(levels=(0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1))", "IPrecAvg"),
        # values printed in their shortest exact form
        ("SetP(relative=true)", "SetP(relative=True)"),
        ("nDCG(gains={1:3.0,2:9.50})", "nDCG(gains={1:3,2:9.5})"),
        ("IPrecAvg(levels=(0.5,))", "IPrecAvg(levels=(0.5,))"),
        ("Utility(a=1e-7)", "Utility(a=1e-07)"),
    ],
)
def test_canonical_string(text: str, canonical: str) -> None:
    m = parse_measure(text)
    assert str(m) == canonical
    assert repr(m) == f"Measure({canonical!r})"
    assert parse_measure(canonical) == m


# --------------------------------------------------------------------------- round trip


def _non_default(p: Param) -> Any:
    """A valid value of ``p`` that differs from its default."""
    if p.kind == "bool":
        return not p.default
    if p.kind == "int":
        return int(p.minimum or 0) + 3
    if p.kind == "float":
        value = p.maximum / 2 if p.maximum is not None else (p.minimum or 0.0) + 2.5
        if value == p.default:  # e.g. NRBP's beta, 0.5 in [0, 1]
            value /= 2
        assert value != p.default
        return value
    if p.kind == "gains":
        return {1: 3, 2: 9.5}
    assert p.kind == "levels"
    return (0.25, 0.5)


def _variants(spec: MeasureSpec) -> list[str]:
    """Names of ``spec`` with and without its parameters and cutoff."""
    ats = {
        "none": [""],
        "cutoff": ["", "@7"],
        "cutoff_required": ["@7"],
        "recall_required": ["@0.25"],
    }[spec.at]
    out = []
    for at in ats:
        out.append(spec.name + at)
        for p in spec.params:
            out.append(f"{spec.name}({p.name}={_format(_non_default(p))}){at}")
        if len(spec.params) > 1:
            every = ",".join(f"{p.name}={_format(_non_default(p))}" for p in reversed(spec.params))
            out.append(f"{spec.name}({every}){at}")
    return out


def _format(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    return repr(value)


ALL_VARIANTS = [text for spec in all_specs() for text in _variants(spec)]


def test_registry_is_not_trivial() -> None:
    specs = all_specs()
    assert len(specs) >= 30
    assert len({s.name for s in specs}) == len(specs)
    for expected in ("AP", "nDCG", "P", "R", "RR", "RBP", "Bpref", "IPrec", "SetF", "Utility"):
        assert expected in {s.name for s in specs}


@pytest.mark.parametrize("text", ALL_VARIANTS)
def test_round_trip_every_spec(text: str) -> None:
    m = parse_measure(text)
    canonical = str(m)
    again = parse_measure(canonical)
    assert again == m
    assert hash(again) == hash(m)
    assert str(again) == canonical
    assert m.spec.name == re.split(r"[(@]", text, maxsplit=1)[0]


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_round_trip_through_measure_value(spec: MeasureSpec) -> None:
    """``Measure`` values built by the parser survive ``str`` -> ``parse`` unchanged."""
    for text in _variants(spec):
        m = parse_measure(text)
        rebuilt = Measure(m.name, m.params, m.at)
        assert rebuilt == m
        assert parse_measure(str(rebuilt)) == rebuilt


# --------------------------------------------------------------------------- measure as a value


def test_measures_are_hashable_and_compare_by_value() -> None:
    a, b = parse_measure("nDCG@10"), parse_measure("nDCG@10")
    assert a == b
    assert a is not b
    assert hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert len({a, b, parse_measure("NDCG@10"), parse_measure("ndcg_cut.10")}) == 1
    assert parse_measure("nDCG@10") != parse_measure("nDCG@5")
    assert parse_measure("P(rel=2)@5") != parse_measure("P@5")
    assert parse_measure("AP(rel=1)") != parse_measure("AP")  # explicit rel vs relevance_level
    assert parse_measure("RBP(p=0.8)") != parse_measure("RBP")
    # gains and levels are hashable too
    assert (
        len({parse_measure("nDCG(gains={1:3,2:9})"), parse_measure("nDCG(gains={1:3,2:9})")}) == 1
    )
    assert hash(parse_measure("IPrecAvg(levels=(0.25,0.5))")) is not None


def test_measures_are_immutable() -> None:
    m = parse_measure("nDCG@10")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.at = 5  # type: ignore[misc]


def test_measures_are_not_equal_to_their_strings() -> None:
    assert parse_measure("AP") != "AP"


def test_gains_order_is_significant() -> None:
    """trec_eval's gain sort truncates differences to integers and is stable, so the order in
    which levels are given can change the ideal ranking (fractional gains); it is kept."""
    a = parse_measure("nDCG(gains={2:9,1:3})")
    b = parse_measure("nDCG(gains={1:3,2:9})")
    assert a != b
    assert str(a) == "nDCG(gains={2:9,1:3})"


def test_gains_with_a_repeated_level_are_rejected() -> None:
    with pytest.raises(MeasureError):
        parse_measure("nDCG(gains={1:3,1:4})")


# --------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("MAP", "AP"),
        ("MAP@10", "AP@10"),
        ("MAP(rel=2)", "AP(rel=2)"),
        ("MRR", "RR"),
        ("MRR@10", "RR@10"),
        ("NDCG", "nDCG"),
        ("NDCG@10", "nDCG@10"),
        ("NDCG(gains={1:3})@5", "nDCG(gains={1:3})@5"),
        ("Precision@5", "P@5"),
        ("Recall@100", "R@100"),
        ("Hit@5", "Success@5"),
        ("RecipRank", "RR"),
        ("BPref", "Bpref"),
        ("RPrec", "Rprec"),
    ],
)
def test_aliases(alias: str, canonical: str) -> None:
    m = parse_measure(alias)
    assert str(m) == canonical
    assert m == parse_measure(canonical)


ALIASES = [(alias, spec.name) for spec in all_specs() for alias in spec.aliases]
_REQUIRED_AT = {
    spec.name: {"cutoff_required": "@10", "recall_required": "@0.5"}.get(spec.at, "")
    for spec in all_specs()
}


@pytest.mark.parametrize(("alias", "canonical"), ALIASES)
def test_every_registered_alias_parses(alias: str, canonical: str) -> None:
    spec = parse_measure(canonical + _REQUIRED_AT[canonical]).spec
    at = _REQUIRED_AT[canonical]
    assert parse_measure(alias + at) == parse_measure(canonical + at)
    assert str(parse_measure(alias + at)) == spec.name + at


# --------------------------------------------------------------------------- trec_eval names


IPREC_LEVELS = ["IPrec@0", *[f"IPrec@0.{i}" for i in range(1, 10)], "IPrec@1"]
P_CUTS = [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("map", ["AP"]),
        ("gm_map", ["GMAP"]),
        ("P.5,10", ["P@5", "P@10"]),
        ("P.10,5", ["P@5", "P@10"]),
        ("P_10", ["P@10"]),
        ("P", P_CUTS),
        ("ndcg_cut.10", ["nDCG@10"]),
        ("ndcg_cut_10", ["nDCG@10"]),
        ("ndcg_cut.5,10", ["nDCG@5", "nDCG@10"]),
        ("ndcg", ["nDCG"]),
        ("ndcg.1=3,2=9", ["nDCG(gains={1:3,2:9})"]),
        ("map_cut.10", ["AP@10"]),
        ("map_cut_10", ["AP@10"]),
        ("recip_rank", ["RR"]),
        ("recall.10", ["R@10"]),
        ("success.1", ["Success@1"]),
        ("iprec_at_recall.0.1", ["IPrec@0.1"]),
        ("iprec_at_recall_0.10", ["IPrec@0.1"]),
        ("iprec_at_recall", IPREC_LEVELS),
        ("Rprec", ["Rprec"]),
        ("Rprec_mult.0.5", ["Rprec(mult=0.5)"]),
        ("Rprec_mult_0.50", ["Rprec(mult=0.5)"]),
        ("set_P", ["SetP"]),
        ("set_relative_P", ["SetP(relative=True)"]),
        ("set_F", ["SetF"]),
        ("utility.1,-1,0,0", ["Utility"]),
        ("utility.2,-1,0,0", ["Utility(a=2)"]),
        ("11pt_avg", ["IPrecAvg"]),
        ("num_rel_ret", ["NumRelRet"]),
        ("bpref", ["Bpref"]),
        ("rbp.p=0.8", ["RBP(p=0.8)"]),
        ("unj.5", ["Unjudged@5"]),
    ],
)
def test_trec_eval_names(text: str, expected: list[str]) -> None:
    assert names(text) == expected


def test_trec_eval_set_f_parameter_is_beta_squared() -> None:
    # trec_eval: set_Fx = (x+1)·P·R / (R + x·P), i.e. x = beta²
    (m,) = parse_measures("set_F.0.5")
    assert m.name == "SetF"
    assert m.get("beta") == pytest.approx(math.sqrt(0.5), rel=1e-15)
    assert parse_measures("set_F.0.25") == [parse_measure("SetF(beta=0.5)")]


def test_trec_eval_names_give_equal_measures() -> None:
    assert parse_measures("map") == [parse_measure("AP")]
    assert parse_measures("P_10") == parse_measures("P.10") == [parse_measure("P@10")]


def test_parse_measure_refuses_names_that_expand() -> None:
    with pytest.raises(MeasureError, match="parse_measures") as exc:
        parse_measure("P.5,10")
    check_message(exc)


OFFICIAL = [
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "AP",
    "GMAP",
    "Rprec",
    "Bpref",
    "RR",
    *IPREC_LEVELS,
    *P_CUTS,
]


def test_nickname_official() -> None:
    assert names("official") == OFFICIAL


def test_nickname_all_trec() -> None:
    measures = names("all_trec")
    # Rprec_mult_1.00 is Rprec itself, so Rprec is the one measure named twice
    assert sorted({m for m in measures if measures.count(m) > 1}) in ([], ["Rprec"])
    assert measures[: len(OFFICIAL)] == OFFICIAL
    for expected in (
        "nDCG",
        "nDCG@10",
        "AP@1000",
        "R@100",
        "Success@1",
        "SetF",
        "infAP",
        "RBP",
        "Utility",
        "IPrecAvg",
        "Rprec(mult=0.2)",
        "Unjudged@20",
    ):
        assert expected in measures


@pytest.mark.parametrize("text", ["runid", "relstring", "prefs_simp", "P_avgjg", "map_avgjg"])
def test_trec_eval_only_measures(text: str) -> None:
    with pytest.raises(MeasureError, match="trec-eval") as exc:
        parse_measures(text)
    check_message(exc)


# --------------------------------------------------------------------------- ranx names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ndcg@10", "nDCG@10"),
        ("map", "AP"),
        ("map@100", "AP@100"),
        ("map@100-l2", "AP(rel=2)@100"),
        ("mrr", "RR"),
        ("mrr@10", "RR@10"),
        ("precision@5", "P@5"),
        ("precision@5-l2", "P(rel=2)@5"),
        ("recall@100", "R@100"),
        ("recall@100-l2", "R(rel=2)@100"),
        ("hit_rate@10", "Success@10"),
        ("r_precision", "Rprec"),
        ("bpref", "Bpref"),
        ("rbp", "RBP"),
        ("rbp.95", "RBP(p=0.95)"),
        ("rbp.8", "RBP(p=0.8)"),
        ("dcg@10", "DCG@10"),
        ("f1", "SetF"),
        ("hits@10", "Hits@10"),
        ("hits", "Hits"),
    ],
)
def test_ranx_names(text: str, expected: str) -> None:
    assert names(text) == [expected]


@pytest.mark.parametrize("text", ["rbp.95@10", "ndcg@10-l2", "f1@10", "ndcg@0"])
def test_ranx_names_without_an_equivalent(text: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measures(text)
    check_message(exc)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("nDGC@10", "nDCG"),
        ("nDCG10", "nDCG"),
        ("Pp@10", "P"),
        ("recip_rnk", "recip_rank"),
        ("ndgc_cut.10", "ndcg_cut"),
    ],
)
def test_unknown_name_suggests(text: str, suggestion: str) -> None:
    with pytest.raises(MeasureError, match="Unknown measure") as exc:
        parse_measures(text)
    message = check_message(exc)
    assert repr(text) in message
    did_you_mean = message.split("Did you mean ", 1)[1].split("?", 1)[0].split(", ")
    assert suggestion in did_you_mean
    assert "cranfield measures" in message


def test_unknown_name_without_anything_close() -> None:
    with pytest.raises(MeasureError, match="Unknown measure 'zzzzzz'") as exc:
        parse_measure("zzzzzz")
    assert "Did you mean" not in check_message(exc)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("P@0", "The cutoff of P must be an integer >= 1, got 0."),
        ("P@1.5", "The cutoff of P must be an integer >= 1, got 1.5."),
        ("P@-1", "integer >= 1"),
        ("nDCG@10.0", "integer >= 1"),
        ("AP@0", "integer >= 1"),
        ("IPrec@1.5", "The recall level of IPrec must be in [0, 1], got 1.5."),
        ("IPrec@-0.1", "in [0, 1]"),
        ("RBP@10", "RBP takes no @ cutoff"),
    ],
)
def test_bad_cutoff(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measure(text)
    assert fragment in check_message(exc)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("nDCG(foo=1)@10", "nDCG has no parameter 'foo' (its parameters: gains)."),
        ("P(REL=2)@5", "no parameter 'REL'"),
        ("AP(k=10)", "no parameter 'k'"),
        ("NumQ(rel=2)", "(its parameters: none)"),
    ],
)
def test_unknown_parameter(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measure(text)
    assert fragment in check_message(exc)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("P(rel=1.5)@5", "The 'rel' parameter of P must be an integer, got 1.5."),
        ("AP(rel='2')", "must be an integer"),
        ("AP(rel=True)", "must be an integer"),
        ("RBP(p='x')", "The 'p' parameter of RBP must be a finite number, got 'x'."),
        ("RBP(p=True)", "must be a finite number"),
        ("RBP(p=1.5)", "The 'p' parameter of RBP must be <= 1, got 1.5."),
        ("RBP(p=0)", "The 'p' parameter of RBP must be > 0, got 0."),
        ("SetF(beta=-1)", "The 'beta' parameter of SetF must be >= 0, got -1."),
        ("SetP(relative=1)", "must be True or False"),
        ("nDCG(gains=True)", "must be a mapping of levels to gains"),
        ("nDCG(gains=x)", "must be a mapping of levels to gains"),
        ("nDCG(gains={1.5:3})", "integer levels"),
        ("IPrecAvg(levels=())", "non-empty tuple"),
        ("IPrecAvg(levels=0.5)", "non-empty tuple"),
        ("IPrecAvg(levels={1:2})", "must hold numbers"),
    ],
)
def test_wrong_parameter_type_or_range(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measure(text)
    assert fragment in check_message(exc)


def test_gains_given_as_a_tuple_is_a_measure_error() -> None:
    with pytest.raises(MeasureError, match="gains"):
        parse_measure("nDCG(gains=(1,2))")


def test_trec_eval_set_f_negative_is_a_measure_error() -> None:
    with pytest.raises(MeasureError):
        parse_measures("set_F.-1")


def test_iprec_avg_levels_are_recall_levels() -> None:
    with pytest.raises(MeasureError):
        parse_measure("IPrecAvg(levels=(2,))")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("P(rel=2)", "P needs a cutoff, e.g. P@10."),
        ("Unjudged", "Unjudged needs a cutoff"),
        ("RelP", "RelP needs a cutoff"),
        ("Success", "Success needs a cutoff"),
        ("IPrec", "IPrec needs a recall level, e.g. IPrec@0.5."),
        ("precision", "P needs a cutoff"),
    ],
)
def test_missing_required_cutoff(text: str, fragment: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measures(text)
    assert fragment in check_message(exc)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "garbage!!",
        "nDCG@@10",
        "nDCG(",
        "nDCG)",
        "P(rel=2",
        "P(rel=)@5",
        "P(=2)@5",
        "P(,)@5",
        "P(rel=2 3)@5",
        "P(rel=2,rel=3)@5",
        "P(rel=2)@5@6",
        "P@5(rel=2)",
        "P(rel=2)@5 extra",
        "P@5;rm",
        "P @ 10",
        "@10",
        "(rel=2)",
        "1abc",
        "nDCG(gains={1:3",
        "nDCG(gains={1:})",
        "nDCG(gains={1})",
        "RBP(p=0.8",
        "P.5,10,",
        "P.a",
        "P_abc",
        "P.0",
        "P.5,5",
        "ndcg_cut.0",
        "iprec_at_recall.0.1,0.1",
        "utility.1,2",
        "rbp.0.8",
        "map@10-lx",
    ],
)
def test_garbage_is_a_measure_error(text: str) -> None:
    with pytest.raises(MeasureError) as exc:
        parse_measures(text)
    check_message(exc)


@pytest.mark.parametrize("text", ["nDCG(gains={1:3 2:9})", "IPrecAvg(levels=(0.1 0.2))"])
def test_items_must_be_separated_by_commas(text: str) -> None:
    with pytest.raises(MeasureError):
        parse_measure(text)


def test_measure_error_is_a_value_error() -> None:
    assert issubclass(MeasureError, cranfield.CranfieldError)
    assert issubclass(MeasureError, ValueError)


# --------------------------------------------------------------------------- no eval


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "__import__('os').system('echo pwned')",
        "P(rel=__import__('os'))@5",
        "nDCG(gains=__import__('os'))",
        "RBP(p=exec('1'))",
        "P@(1+1)",
        "IPrecAvg(levels=(0.1, open('x')))",
        "nDCG(gains={1: eval('3')})",
        "P(rel=2**3)@5",
        "lambda: 0",
        "[x for x in ()]",
    ],
)
def test_python_expressions_are_rejected(text: str) -> None:
    with pytest.raises(MeasureError):
        parse_measures(text)


@pytest.mark.parametrize(
    "text",
    ["nDCG(gains={1:3,2:9})", "IPrecAvg(levels=(0.25,0.5))", "RBP(p=0.8)", "P.5,10", "ndcg@10"],
)
def test_parsing_never_calls_eval(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec/compile used while parsing a measure name")

    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, forbidden)
    monkeypatch.setattr(ast, "literal_eval", forbidden)
    assert parse_measures(text)


def test_measure_modules_do_not_use_eval() -> None:
    banned_names = {"eval", "exec", "compile", "__import__"}  # builtins called by name
    banned_attributes = {"literal_eval", "eval", "exec"}  # ast.literal_eval, builtins.eval
    for path in sorted((SRC / "measures").glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name):
                assert func.id not in banned_names, f"{path.name}:{node.lineno} calls {func.id}"
            elif isinstance(func, ast.Attribute):
                assert func.attr not in banned_attributes, (
                    f"{path.name}:{node.lineno} calls .{func.attr}"
                )
