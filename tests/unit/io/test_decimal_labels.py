"""Decimal relevance labels (LLM-judged or averaged): gains for graded measures, thresholds
for binary ones, and trec_eval's ``atol`` truncation (with a warning) in ``trec-eval``."""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING

import pytest

import cranfield
from cranfield.cli.trec_eval import main as trec_eval_main
from cranfield.errors import EvaluationError, InputError
from cranfield.io.trec import read_qrels, write_qrels

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

DECIMAL = b"# LLM labels\n1 0 a 1.7\n1 0 b 0\n1 0 c 2\n2 0 d .5\n2 0 e -0.5\n2 0 f 3.\n"
TRUNCATED = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 0\n2 0 e 0\n2 0 f 3\n"
RUN = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 e 1 3 t\n2 Q0 d 2 2 t\n2 Q0 f 3 1 t\n"


def put(tmp_path: Path, data: bytes, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_levels_are_integer_parts_and_the_labels_are_kept(tmp_path: Path) -> None:
    path = put(tmp_path, DECIMAL, "llm.qrels")
    qrels = read_qrels(path)
    assert qrels.frame.get_column("relevance").to_list() == [1, 0, 2, 0, 0, 3]
    assert qrels.frame.get_column("gain").to_list() == [1.7, 0.0, 2.0, 0.5, -0.5, 3.0]
    assert qrels.notes == (
        f"{path}:2: 4 relevance label(s) are not integers (the first: '1.7'); nDCG, DCG, CG "
        "and their variants, G, RBP and ERR use each label as its gain; every other measure "
        "counts a label relevant at level L when it is >= L (the intent-aware ones read their "
        "levels from the intents file).",
    )
    out = tmp_path / "back.qrels"
    write_qrels(qrels, out)
    again = read_qrels(out)
    assert again.frame.equals(qrels.frame)


def test_integer_files_have_no_gain_column(tmp_path: Path) -> None:
    qrels = read_qrels(put(tmp_path, TRUNCATED, "int.qrels"))
    assert qrels.frame.columns == ["query_id", "iteration", "doc_id", "relevance"]
    assert qrels.notes == ()


def _ndcg(gains: list[float], ideal: list[float]) -> float:
    def dcg(g: list[float]) -> float:
        return sum(x / math.log2(i + 2) for i, x in enumerate(g))

    return dcg(gains) / dcg(sorted(ideal, reverse=True))


def _err(gains: list[float], top: int = 4) -> float:
    out, through = 0.0, 1.0
    for i, g in enumerate(gains):
        stop = (2**g - 1) / 2**top
        out += through * stop / (i + 1)
        through *= 1 - stop
    return out


def test_graded_measures_use_the_labels_binary_ones_the_levels(tmp_path: Path) -> None:
    qrels, run = put(tmp_path, DECIMAL, "llm.qrels"), put(tmp_path, RUN, "r.run")
    res = cranfield.evaluate(qrels, run, ["nDCG@10", "ERR@10", "P@3", "P(rel=2)@3", "AP"])
    assert res.per_query("nDCG@10") == pytest.approx(
        {"1": _ndcg([1.7, 0, 2], [1.7, 2]), "2": _ndcg([0, 0.5, 3], [0.5, 3])}, abs=1e-15
    )
    assert res.per_query("ERR@10") == pytest.approx(
        {"1": _err([1.7, 0, 2]), "2": _err([0, 0.5, 3])}, abs=1e-15
    )
    # 1.7 >= 1 but not >= 2; 0.5 is below 1.
    assert res.per_query("P@3") == pytest.approx({"1": 2 / 3, "2": 1 / 3})
    assert res.per_query("P(rel=2)@3") == pytest.approx({"1": 1 / 3, "2": 1 / 3})
    integers = cranfield.evaluate(put(tmp_path, TRUNCATED, "int.qrels"), run, ["P@3", "AP"])
    assert res.means()["AP"] == integers.means()["AP"]
    assert res.policy_note().endswith(read_qrels(qrels).notes[0])


GAIN_MEASURES = ["nDCGx", "DCGx", "IDCGx", "CG", "nCG@2", "nDCG", "DCG", "IDCG", "nDCG_rel"]
GAIN_MEASURES += ["RnDCG", "G", "RBP", "ERR"]


def test_the_note_names_exactly_the_measures_that_use_the_labels(tmp_path: Path) -> None:
    """Every measure without intents or known documents, on decimal labels and on their
    integer parts: the values differ for the measures the note names, and only for them."""
    from cranfield.measures import all_specs

    decimal = b"1 0 a 1.7\n1 0 b 0\n1 0 c 2\n1 0 g 2.6\n2 0 d .5\n2 0 e 0\n2 0 f 3.4\n"
    truncated = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 g 2\n2 0 d 0\n2 0 e 0\n2 0 f 3\n"
    run = b"1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n1 Q0 g 4 0 t\n2 Q0 e 1 3 t\n2 Q0 d 2 2 t\n"
    paths = [put(tmp_path, data, name) for data, name in ((decimal, "d"), (truncated, "t"))]
    runs = put(tmp_path, run + b"2 Q0 f 3 1 t\n", "r.run")
    names = [
        s.name + ("@2" if s.name == "nCG" or s.at == "cutoff_required" else "")
        for s in all_specs()
        if not s.needs and s.at != "recall_required"  # intents, known documents: not here
    ]
    differ = []
    for name in names:
        values = [cranfield.evaluate(p, runs, [name]).means() for p in paths]
        if values[0] != values[1]:
            differ.append(name)
    assert sorted(differ) == sorted(GAIN_MEASURES)
    assert len(names) - len(differ) > 30  # the others were evaluated too


def test_decimal_spellings_of_integers_score_as_the_integers(tmp_path: Path) -> None:
    run = put(tmp_path, RUN, "r.run")
    spelled = put(tmp_path, TRUNCATED.replace(b" 2\n", b" 2.0\n"), "spelled.qrels")
    plain = put(tmp_path, TRUNCATED, "int.qrels")
    measures = ["nDCG@10", "ERR@10", "RBP(p=0.8)", "AP"]
    assert cranfield.evaluate(spelled, run, measures).means() == (
        cranfield.evaluate(plain, run, measures).means()
    )


def test_level_gains_need_integer_levels(tmp_path: Path) -> None:
    qrels, run = put(tmp_path, DECIMAL, "llm.qrels"), put(tmp_path, RUN, "r.run")
    with pytest.raises(EvaluationError, match="need integer relevance levels"):
        cranfield.evaluate(qrels, run, ["nDCG(gains={1: 1, 2: 3})@10"])


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        ("1.5e3", "relevance must be an integer or a decimal number, got '1.5e3'"),
        ("1e30", "relevance must be an integer or a decimal number, got '1e30'"),
        ("99999999999999999999.5", "does not fit in a 64-bit integer"),
        ("-9223372036854775809", "does not fit in a 64-bit integer"),  # found by fuzzing
    ],
)
def test_other_numbers_are_still_refused(tmp_path: Path, label: str, problem: str) -> None:
    path = put(tmp_path, b"1 0 a 1.5\n1 0 b " + label.encode() + b"\n", "bad.qrels")
    with pytest.raises(InputError, match=problem) as info:
        read_qrels(path)
    assert info.value.line == 2


def test_repeats_of_one_label_merge(tmp_path: Path) -> None:
    qrels = read_qrels(put(tmp_path, DECIMAL + b"1 0 a 1.70\n", "dup.qrels"))
    assert len(qrels) == 6
    assert "1 repeated judgment line(s) merged" in qrels.notes[1]
    with pytest.raises(InputError, match=r"judged 1\.7 on line 2 and 1\.8 here"):
        read_qrels(put(tmp_path, DECIMAL + b"1 0 a 1.8\n", "conflict.qrels"))
    top = read_qrels(put(tmp_path, DECIMAL + b"1 0 a 1.8\n", "c.qrels"), duplicates="max")
    assert top.to_dict()["1"]["a"] == 1
    assert top.frame.get_column("gain")[0] == 1.8


@pytest.mark.parametrize("measures", [["-m", "ndcg_cut.10"], ["-m", "all_trec", "-q"]])
def test_trec_eval_truncates_as_atol_with_one_warning(tmp_path: Path, measures: list[str]) -> None:
    run = str(put(tmp_path, RUN, "r.run"))
    qrels = put(tmp_path, DECIMAL, "llm.qrels")
    out, err = io.StringIO(), io.StringIO()
    assert trec_eval_main([*measures, str(qrels), run], out, err) == 0
    plain_out, plain_err = io.StringIO(), io.StringIO()
    truncated = str(put(tmp_path, TRUNCATED, "int.qrels"))
    assert trec_eval_main([*measures, truncated, run], plain_out, plain_err) == 0
    assert out.getvalue() == plain_out.getvalue()
    assert plain_err.getvalue() == ""
    assert err.getvalue() == (
        f"cranfield trec-eval: warning: {qrels}:2: relevance '1.7' read as 1, as trec_eval's "
        "atol reads it (decimal labels are truncated)\n"
    )


@pytest.mark.parametrize("suffix", [".qrels", ".csv", ".tsv"])
def test_small_and_large_labels_are_written_as_they_read_back(tmp_path: Path, suffix: str) -> None:
    """A label the writer would spell with an exponent (1.6e-06, 1e+16), which the label
    grammar refuses, is written as a plain decimal with every digit: the file reads back."""
    from cranfield.io.formats import format_of_suffix, write
    from cranfield.io.formats import read_qrels_file as read_any

    text = b"1 0 a 0.0000016202680442309699\n1 0 b 10000000000000000.5\n1 0 c .25\n"
    path = put(tmp_path, text, "in.qrels")
    qrels = read_qrels(path)
    out = tmp_path / f"out{suffix}"
    write(qrels, out, format_of_suffix(out) or "trec")
    assert re.search("[0-9.][eE]", out.read_text()) is None
    again = read_any(out)
    assert again.frame.get_column("gain").to_list() == qrels.frame.get_column("gain").to_list()
