"""trec_eval's names: declared once on the measures, derived into trec_eval's table.

Each trec_eval name of a measure is a ``TrecForm`` on its spec; the table in
:mod:`cranfield.measures.trec_names` places them in trec_eval's order and adds the rows that
are not measures. A measure's trec_eval label (``Results.to_trec_eval``) is the inverse of the
table, so it parses back to the measure.
"""

from __future__ import annotations

import ast
import doctest
import io
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import cranfield
from cranfield import parse_measure, parse_measures
from cranfield.compat.trec_eval import select
from cranfield.errors import MeasureError
from cranfield.kernels.prefs import PREFS_MEASURES
from cranfield.measures import MeasureSpec, all_specs, trec_names
from cranfield.measures._spec import TrecForm, register
from tests.conftest import CONFORMANCE

SRC = Path(cranfield.__file__).parent

# The table's measure rows, and one measure for every form with the default parameters.
MEASURE_ROWS = [row for row in trec_names.TABLE if row.spec is not None]
DEFAULT_OUTPUTS = [
    output for row in MEASURE_ROWS for output in trec_names.expand(row.name, None) if output.measure
]


def test_every_declared_name_is_one_row_of_the_table() -> None:
    declared = [(form.name, spec.name) for spec in all_specs() for form in spec.trec]
    names = [name for name, _ in declared]
    assert [n for n, c in Counter(names).items() if c > 1] == []
    assert sorted(names) == sorted(row.name for row in MEASURE_ROWS)
    for name, spec in declared:
        row = trec_names.BY_NAME[name]
        assert row.spec is not None
        assert row.spec.name == spec
        assert row.form in row.spec.trec


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        ("AP", ["map", "map_cut"]),
        ("nDCG", ["ndcg", "ndcg_cut"]),
        ("Rprec", ["Rprec", "Rprec_mult"]),
        ("SetP", ["set_P", "set_relative_P"]),
    ],
)
def test_a_measure_with_two_trec_eval_names_declares_both(spec: str, names: list[str]) -> None:
    """The four rows whose table entry used to disagree with the spec's single trec_name."""
    assert [form.name for form in parse_measure(spec).spec.trec] == names
    for name in names:
        row = trec_names.BY_NAME[name]
        assert row.spec is not None
        assert row.spec.name == spec


def test_the_prefs_names_are_the_kernels_list() -> None:
    prefs = [row.name for row in trec_names.TABLE if row.family == "prefs"]
    assert prefs == list(PREFS_MEASURES)
    assert trec_names.NICKNAMES["all_prefs"] == ("runid", "num_q", *PREFS_MEASURES)


def test_the_table_is_read_without_polars() -> None:
    """The prefs names live in a kernel module; reading them must not cost polars' import."""
    code = (
        "import sys, cranfield.measures.trec_names; "
        "assert 'polars' not in sys.modules, 'polars imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_nicknames_name_rows_of_the_table() -> None:
    for members in trec_names.NICKNAMES.values():
        assert set(members) <= set(trec_names.BY_NAME)
    all_trec = trec_names.NICKNAMES["all_trec"]
    assert sorted(all_trec, key=trec_names.ORDER.__getitem__) == list(all_trec)
    assert {"dcg", "ideal_dcg", "yaap"}.isdisjoint(all_trec)
    assert not any(trec_names.BY_NAME[m].family != "ranked" for m in all_trec)


@pytest.mark.parametrize("name", ["rbp", "rbp_resid", "unj", "dcg", "ideal_dcg"])
def test_trec_eval_9_lacks_the_names_declared_so(name: str) -> None:
    assert trec_names.not_in_v9(name)
    with pytest.raises(MeasureError, match="illegal measure"):
        select([name], compat=9)
    assert name not in {n for n, _ in select(["all_trec"], compat=9)}
    assert select([name], compat=10) == [(name, None)]


@pytest.mark.parametrize("output", DEFAULT_OUTPUTS, ids=lambda o: o.label)
def test_the_label_of_a_trec_eval_row_is_its_name(output: trec_names.TrecOutput) -> None:
    """Name -> measure -> label is the identity on every row trec_eval prints by default.

    One exception: ``Rprec_mult_1.00`` is ``Rprec`` itself, which prints as ``Rprec``.
    """
    assert output.measure is not None
    same = {"Rprec_mult_1.00": "Rprec"}
    assert trec_names.trec_eval_label(output.measure) == same.get(output.label, output.label)


@pytest.mark.parametrize(
    "text",
    [
        *(str(o.measure) for o in DEFAULT_OUTPUTS),
        "RR@10",
        "R",
        "DCG@10",
        "IDCG@5",
        "SetP@5",
        "SetP(relative=True)@5",
        "P(rel=2)@5",
        "Rprec(mult=0.125)",
        "IPrec@0.125",
        "nDCG(gains={1:3})",
        "Rprec(mult=0.2,rel=2)",
    ],
)
def test_a_label_parses_back_to_its_measure(text: str) -> None:
    measure = parse_measure(text)
    label = trec_names.trec_eval_label(measure) or str(measure)
    assert parse_measures(label) == [measure], label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("AP", "map"),
        ("AP@10", "map_cut_10"),
        ("nDCG", "ndcg"),
        ("nDCG@10", "ndcg_cut_10"),
        ("Rprec", "Rprec"),
        ("Rprec(mult=0.2)", "Rprec_mult_0.20"),
        ("SetP", "set_P"),
        ("SetP(relative=True)", "set_relative_P"),
        ("IPrec@0.5", "iprec_at_recall_0.50"),
        ("Unjudged@5", "unj_5"),
        ("RR@10", None),  # trec_eval has no recip_rank cut at 10
        ("R", None),  # trec_eval's recall always has a cutoff
        ("Rprec(mult=0.125)", None),  # %3.2f would print 0.12
        ("SetP@5", None),
        ("P(rel=2)@5", None),
    ],
)
def test_trec_eval_label(text: str, label: str | None) -> None:
    assert trec_names.trec_eval_label(parse_measure(text)) == label


def test_to_trec_eval_prints_labels_that_parse_back() -> None:
    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "x": 1.0}, "2": {"e": 1.0, "y": 0.5}}
    names = ["RR@2", "R", "DCG@2", "AP@2", "SetP(relative=True)"]
    res = cranfield.evaluate(qrels, run, names)
    labels = [line.split("\t")[0].rstrip() for line in res.to_trec_eval().splitlines()]
    assert labels == ["RR@2", "R", "DCG@2", "map_cut_2", "set_relative_P"]
    assert [m for label in labels for m in parse_measures(label)] == [
        parse_measure(n) for n in names
    ]


def _spec(**kwargs: object) -> MeasureSpec:
    base: dict[str, object] = {
        "name": "TestOnly",
        "summary": "s",
        "formula": "f",
        "kernel": lambda ctx: ctx,
    }
    return MeasureSpec(**{**base, **kwargs})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"trec": (TrecForm("x", "multipliers", (1.0,)),)}, "unknown parameter"),
        ({"trec": (TrecForm("x", fixed=(("relative", True),)),)}, "unknown parameter"),
        ({"trec": (TrecForm("x", "cutoffs", (5,)),)}, "no such @"),
        ({"trec": (TrecForm("x", "gains"),)}, "no gains"),
    ],
)
def test_a_form_that_does_not_fit_its_measure_is_refused(
    kwargs: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ValueError, match=fragment):
        register(_spec(**kwargs))
    assert "TestOnly" not in {s.name for s in all_specs()}


@pytest.mark.parametrize(
    "form", [lambda: TrecForm("x", "cutoffs"), lambda: TrecForm("x", defaults=(5,))]
)
def test_default_values_go_with_cutoffs_only(form: object) -> None:
    with pytest.raises(ValueError, match="default values"):
        form()  # type: ignore[operator]


@pytest.mark.parametrize("row", trec_names.TABLE, ids=lambda r: r.name)
def test_every_row_is_documented(row: trec_names.TrecMeasure) -> None:
    text = trec_names.describe(row.name)
    lines = text.splitlines()
    assert lines[0] == row.name
    assert len(lines) > 1
    assert all(line.startswith("    ") for line in lines[1:])
    if row.spec is not None:
        flat = " ".join(line.strip() for line in lines[1:])
        assert row.spec.summary.split()[0] in flat
        assert "Formula:" in flat


def test_describe_an_unknown_name() -> None:
    with pytest.raises(MeasureError, match="no measure 'nope'"):
        trec_names.describe("nope")


def test_examples_run() -> None:
    result = doctest.testmod(trec_names, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    "module",
    ["measures/_parse.py", "measures/_spec.py", "measures/trec_names.py", "compat/trec_eval.py"],
)
def test_no_assert_in_library_code(module: str) -> None:
    tree = ast.parse((SRC / module).read_text())
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert)]


@pytest.mark.parametrize(
    ("text", "nearest"),
    [
        ("ndcg_cut_1O", "ndcg_cut_10"),  # a letter O, not a zero
        ("recall_1OOO", "recall_1000"),
        ("ndcg_cut.1O", "ndcg_cut.10"),
        ("P.5,1O", "P.5,10"),
        ("P_l0", "P_10"),  # a letter l
        ("P_10.0", "P_10"),
        ("map_cut.+5", "map_cut.5"),
        ("iprec_at_recall_0.5O", "iprec_at_recall_0.50"),
        ("rbp.p=0.8x", "rbp.p=0.8"),
        ("Rprec_mult.0.5x", "Rprec_mult.0.5"),
    ],
)
def test_parameters_are_read_strictly_and_the_nearest_spelling_named(
    text: str, nearest: str
) -> None:
    """C's atol read ``ndcg_cut_1O`` as nDCG@1: another measure, computed silently."""
    with pytest.raises(MeasureError, match=rf"did you mean {re.escape(nearest)}\?$"):
        parse_measures(text)
    assert parse_measures(nearest)  # the suggestion is itself a valid name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P.05", ["P@5"]),
        ("11pt_avg..25,.5,.75", ["IPrecAvg(levels=(0.25,0.5,0.75))"]),
        ("utility.1,-1,-0.5,0.01", ["Utility(c=-0.5,d=0.01)"]),
        ("set_F.0.5", ["SetF(beta=0.7071067811865476)"]),
        ("ndcg_rel.1=0.5,2=4", ["nDCG_rel(gains={1:0.5,2:4})"]),
    ],
)
def test_well_formed_parameters_still_read(text: str, expected: list[str]) -> None:
    assert [str(m) for m in parse_measures(text)] == expected


def test_trec_eval_compat_reads_parameters_as_trec_eval_does() -> None:
    """``cranfield trec-eval`` is trec_eval byte for byte: C's atol reads ``1O`` as 1 there
    (its own test file asks for ``ndcg_cut.10,20,23.4``), and ``ndcg_cut_1O`` is no name."""
    files = [str(CONFORMANCE / "qrels.test"), str(CONFORMANCE / "results.test")]
    code, out, err = _trec_eval("-m", "ndcg_cut.1O", *files)
    assert (code, err) == (0, "")
    assert out.split()[:2] == ["ndcg_cut_1", "all"]
    code, out, err = _trec_eval("-m", "ndcg_cut_1O", *files)
    assert (code, out, err) == (1, "", "trec_eval: illegal measure 'ndcg_cut_1O'\n")


def _trec_eval(*argv: str) -> tuple[int, str, str]:
    from cranfield.cli.trec_eval import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()
