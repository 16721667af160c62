"""Small clean TREC files are read and ranked with numpy alone, to exactly what the careful
polars path gives (:mod:`cranfield.io.trec_numpy`, :func:`cranfield.data.ranking.rank_columns`).

Every case writes real files and compares the two paths: the same ranking row by row, the
same measure values, and for anything that is not clean the careful path's answer or error.
"""

from __future__ import annotations

import ast
import bz2
import gzip
import json
import lzma
import os
import random
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield import Results, evaluate
from cranfield.data import ranking, row_index
from cranfield.errors import EvaluationError, InputError, QueryOverlapWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import trec_numpy
from cranfield.io.inputs import open_qrels, open_run
from cranfield.io.trec import read_qrels, read_run

# Ids whose bytewise order differs from numeric or case-folded order, some not ASCII, of 1
# to 17 bytes (so that the qrels and the run hold them in arrays of different widths).
_IDS = ["a", "b", "B", "aa", "a\u00e9", "\u6587", "10", "9", "doc2", "doc10", "zz", "Doc1"]
_IDS += ["abcdefgh", "abcdefghi", "doc_0000000001", "d.1577-x", "document-00000017"]
_SCORES = ["0.5", "1", "1.0", "2", "-3", "+2", ".5", "5.", "0007.25", "-0", "0.30000000000000004"]
_SCORES += ["1e+308", "-1E308", "3.4028235e38", "1e-50", "2.5e-3"]  # beyond float32's range too
_MEASURES = ["AP", "nDCG@10", "P@3", "R@5", "RR", "bpref", "infAP", "num_rel_ret", "Rprec"]


def _write(
    path: Path, lines: list[tuple[str, ...]], *, sep: str = " ", end: str = "\n", eol: str = "\n"
) -> Path:
    path.write_bytes((eol.join(sep.join(line) for line in lines) + end).encode())
    return path


@st.composite
def collections(draw: st.DrawFn) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Qrels and run lines: ties, queries interleaved or in any order, topics in only one."""
    queries = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=5, unique=True))
    judged = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=5, unique=True))
    qrels = [
        (q, "0", d, str(level))
        for q in judged
        for d, level in draw(
            st.dictionaries(st.sampled_from(_IDS), st.integers(-2, 3), min_size=1, max_size=6)
        ).items()
    ]
    run = []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(_IDS), min_size=1, max_size=10, unique=True))
        scores = draw(st.lists(st.sampled_from(_SCORES), min_size=len(docs), max_size=len(docs)))
        if draw(st.booleans()):  # most files: scores never increase inside a query
            scores.sort(key=float, reverse=True)
        run += [
            (q, "Q0", d, str(k), s, "tag")
            for k, (d, s) in enumerate(zip(docs, scores, strict=False))
        ]
    if draw(st.booleans()):
        random.Random(draw(st.integers(0, 2**16))).shuffle(run)
    return qrels, run


def _rows(r: ranking.Ranking) -> dict[str, Any]:
    return {
        "topics": r.topics,
        "offsets": r.offsets.tolist(),
        "rel": r.rel.tolist(),
        "doc_id": r.doc_id.to_list(),
        "missing": r.missing.tolist(),
        "levels": r.judgments.levels.tolist(),
        "judged_offsets": r.judgments.offsets.tolist(),
        "pooled_unjudged": r.judgments.pooled_unjudged.tolist(),
        "tag": r.run_tag,
    }


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    case=collections(),
    options=st.fixed_dictionaries(
        {
            "depth": st.none() | st.integers(0, 4),
            "judged_only": st.booleans(),
            "float32": st.booleans(),
            "missing": st.sampled_from(["zero", "skip"]),
        }
    ),
    layout=st.tuples(
        # single separators (the fastest split) or runs of any blanks
        st.sampled_from([" ", "\t", "  ", " \t", "\x0b", " \x0c\r"]),
        st.sampled_from(["\n", "", "\r\n", "\n\n"]),  # after the last line
        st.sampled_from(["\n", "\r\n", "\n\n", " \n\t"]),  # between lines
        st.booleans(),  # gzipped run
    ),
)
def test_both_paths_rank_alike(
    tmp_path: Path,
    case: tuple[list[tuple[str, ...]], list[tuple[str, ...]]],
    options: dict[str, Any],
    layout: tuple[str, str, str, bool],
) -> None:
    qrels_lines, run_lines = case
    sep, end, eol, packed = layout
    qrels = _write(tmp_path / "qrels", qrels_lines, sep=sep, end=end, eol=eol)
    run = _write(tmp_path / "run", run_lines, sep=sep, end=end, eol=eol)
    if packed:
        run.write_bytes(gzip.compress(run.read_bytes()))
    small = Evaluator(str(qrels), [], **options).ranking(run)
    assert isinstance(small.ranking.source_doc_id, np.ndarray)  # the numpy path was taken
    careful = Evaluator(read_qrels(qrels), [], **options).ranking(read_run(run))
    assert _rows(small.ranking) == _rows(careful.ranking)
    assert small.missing_topics == careful.missing_topics
    assert small.run_name == careful.run_name == "run"
    fast = _scored(lambda: evaluate(qrels, run, _MEASURES, **options))
    slow = _scored(lambda: evaluate(read_qrels(qrels), read_run(run), _MEASURES, **options))
    assert fast == slow


def _scored(call: Callable[[], Results]) -> tuple[object, list[type[Warning]]]:
    """The results as data (or the class of the EvaluationError of a run that shares no
    query with the qrels) and the classes of the warnings given (a run answering fewer than
    half of the judged queries): the same either way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QueryOverlapWarning)
        try:
            outcome: object = call().to_dict()
        except EvaluationError as exc:
            outcome = type(exc)
    return outcome, [w.category for w in caught]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    text=st.from_regex(
        r"[+-]?([0-9]{1,25}(\.[0-9]{0,25})?|\.[0-9]{1,25})([eE][+-]?[0-9]{1,3})?", fullmatch=True
    )
)
def test_scores_read_as_the_careful_reader_reads_them(tmp_path_factory: Any, text: str) -> None:
    """Any score of the clean grammar, long ones too, is the same float64 either way."""
    path = tmp_path_factory.mktemp("s") / "run"
    _write(path, [("q", "Q0", "d", "1", text, "t"), ("q", "Q0", "e", "2", "0", "t")])
    columns_read = open_run(path).columns()
    assert columns_read is not None
    expected = read_run(path).frame.get_column("score").to_list()
    assert columns_read.score.tolist() == expected
    assert [np.signbit(v) for v in columns_read.score] == [np.signbit(v) for v in expected]


# Around each edge of the exact division m / 10**k (m <= 2**53, k <= 22, 19 digits): the
# rows on either side take different paths and must still agree with a correctly rounded
# parser bit for bit.
_EDGES = ["9007199254740992", "9007199254740993", "9007199254740992.0", "900719925474099.3"]
_EDGES += ["0." + "1" * 21, "0." + "1" * 22, "0." + "1" * 23, "1" * 19, "1" * 20, "-" + "9" * 19]
_EDGES += ["0.0000000000000000000001", "0.00000000000000000000001", "-0", "-0.000", "+0.0"]
_EDGES += ["43.724", "49.19109429178723", "0.30000000000000004", ".5", "5.", "-.5", "+7."]


@given(
    st.lists(
        st.one_of(
            st.sampled_from(_EDGES),
            st.from_regex(r"[+-]?([0-9]{1,22}(\.[0-9]{0,22})?|\.[0-9]{1,22})", fullmatch=True),
        ),
        min_size=1,
        max_size=40,
    )
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_decimal_scores_are_the_correctly_rounded_doubles(tmp_path: Path, texts: list[str]) -> None:
    """Scores without an exponent, many to a file, are the doubles Python's float() gives,
    bit for bit (signed zeros included), on both sides of the fast path's edges."""
    lines = [("q", "Q0", f"d{i}", "1", text, "t") for i, text in enumerate(texts)]
    columns_read = open_run(_write(tmp_path / "run", lines)).columns()
    assert columns_read is not None
    expected = np.array([float(text) for text in texts])
    assert columns_read.score.view(np.uint64).tolist() == expected.view(np.uint64).tolist()


_SHORT = st.from_regex(r"[+-]?([0-9]{1,8}(\.[0-9]{0,7})?|\.[0-9]{1,7})", fullmatch=True)
# Short scores that are not clean decimals: each file with one of them is read another way
# (an exponent, by numpy's parser) or not at all (the careful reader then says why).
_SHORT_ODD = ["1e5", "-2E-3", "1.2.3", "+-1", "1-", "--1", ".", "+", "-", "1+2", "..5", "1.e3"]


@given(
    st.lists(
        st.one_of(_SHORT.filter(lambda text: len(text) <= 8), st.sampled_from(_EDGES[-12:])),
        min_size=1,
        max_size=40,
    ),
    st.one_of(st.none(), st.sampled_from(_SHORT_ODD)),
)
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_scores_of_eight_bytes_are_the_correctly_rounded_doubles(
    tmp_path: Path, texts: list[str], odd: str | None
) -> None:
    """Scores of at most 8 bytes (read a 64-bit word at a time) are the doubles float()
    gives, bit for bit; a file with one score that is not a plain decimal is read as before:
    numpy's parser for an exponent, the careful reader for anything else."""
    texts = [t for t in texts if len(t) <= 8] or ["1"]
    if odd is not None:
        texts.insert(len(texts) // 2, odd)
    lines = [("q", "Q0", f"d{i}", "1", text, "t") for i, text in enumerate(texts)]
    columns_read = open_run(_write(tmp_path / "run", lines)).columns()
    try:
        expected = np.array([float(text) for text in texts])
    except ValueError:
        assert columns_read is None
        return
    assert columns_read is not None
    assert columns_read.score.view(np.uint64).tolist() == expected.view(np.uint64).tolist()


@given(
    st.lists(st.from_regex(r"[+-]?[0-9]{1,7}", fullmatch=True), min_size=1, max_size=30),
    st.one_of(st.none(), st.sampled_from(["1.0", "+-1", "1e3", "-", "+", "1-", ".5", "0x1"])),
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_relevance_levels_of_eight_bytes_are_the_integers_written(
    tmp_path: Path, levels: list[str], odd: str | None
) -> None:
    """Levels of at most 8 bytes (read a 64-bit word at a time) are the integers written;
    qrels with one level that is not a plain integer are left to the careful reader."""
    if odd is not None:
        levels.insert(len(levels) // 2, odd)
    path = _write(tmp_path / "qrels", [("q", "0", f"d{i}", v) for i, v in enumerate(levels)])
    columns_read = open_qrels(path).columns()
    if odd is not None:
        assert columns_read is None
        return
    assert columns_read is not None
    assert columns_read.relevance.dtype == np.int64
    assert columns_read.relevance.tolist() == [int(v) for v in levels]


def test_relevance_levels_are_the_integers_written(tmp_path: Path) -> None:
    levels = ["0", "-1", "+2", "007", "-0", "999999999999999999", "-999999999999999999"]
    path = _write(tmp_path / "qrels", [("q", "0", f"d{i}", v) for i, v in enumerate(levels)])
    columns_read = open_qrels(path).columns()
    assert columns_read is not None
    assert columns_read.relevance.tolist() == [int(v) for v in levels]


@pytest.mark.parametrize("text", ["200000000000000000001E304", "-1e999", "1e-999", "1e-330"])
def test_scores_beyond_float64_read_as_the_careful_reader_reads_them(
    tmp_path: Path, text: str
) -> None:
    """Overflow is inf and underflow 0 (or a subnormal), quietly, as polars reads them."""
    path = _write(tmp_path / "run", [("q", "Q0", "d", "1", text, "t")])
    columns_read = open_run(path).columns()
    assert columns_read is not None
    assert columns_read.score.tolist() == read_run(path).frame.get_column("score").to_list()


def test_columns_hold_the_ids_numbers_and_tag(tmp_path: Path) -> None:
    run = _write(
        tmp_path / "run",
        [("q1", "Q0", "d\u00e9", "1", "2.5", "x"), ("q10", "Q0", "a" * 9, "2", "-1", "last")],
    )
    columns_read = open_run(run).columns()
    assert columns_read is not None
    assert columns_read.query_id.tolist() == [b"q1", b"q10"]
    assert columns_read.doc_id.tolist() == ["d\u00e9".encode(), b"a" * 9]
    assert columns_read.doc_id.dtype.itemsize == 16  # padded to whole 64-bit words
    assert columns_read.score.tolist() == [2.5, -1.0]
    assert columns_read.tag == "last"
    qrels = _write(tmp_path / "qrels", [("1", "0", "d", "-7"), ("1", "0", "e", "+3")], sep="\t")
    judged = open_qrels(qrels).columns()
    assert judged is not None
    assert judged.relevance.tolist() == [-7, 3]


_RUN = [("q", "Q0", "a", "1", "2", "t"), ("q", "Q0", "b", "2", "1", "t")]


def _clean() -> bytes:
    return b"".join(" ".join(line).encode() + b"\n" for line in _RUN)


# Files the numpy path reads too, by the careful reader's rules: runs of blanks, exponents.
_ALSO_READ = {
    "double space": _clean().replace(b"Q0 a", b"Q0  a"),
    "tabs and spaces": _clean().replace(b"q Q0 a", b"q\tQ0 a"),
    "CR-LF": _clean().replace(b"\n", b"\r\n"),
    "leading blank": b" " + _clean(),
    "trailing blank": _clean().replace(b"t\n", b"t \n", 1),
    "blank line": _clean().replace(b"\n", b"\n\n", 1),
    "blank lines at the end": _clean() + b"\n \n\t\n",
    "vertical tab": _clean() + b"q Q0 c 3 0.5\x0bt\n",
    "CR inside a line": _clean() + b"q Q0 c\r3 0.5 t\n",
    "exponent": _clean() + b"q Q0 c 3 1e-3 t\nq Q0 d 4 -2.5E+07 t\nq Q0 e 5 9.75e-05 t\n",
}

# Files that are not clean: each is read the careful way, which accepts or refuses it.
_NOT_CLEAN = {
    "comment line": b"# a comment\n" + _clean(),
    "old Mac line ends": _clean().replace(b"\n", b"\r"),
    "two lines joined by a CR": _clean() + b"q Q0 c 3 0.5 t\rq Q0 d 4 0.2 t\n",
    "only blanks": b" \n\t\n",
    "byte-order mark": b"\xef\xbb\xbf" + _clean(),
    "five fields": _clean() + b"q Q0 c 3 0.5\n",
    "seven fields": _clean() + b"q Q0 c 3 0.5 t extra\n",
    "exponent of four digits": _clean() + b"q Q0 c 3 1e-1000 t\n",
    "exponent without digits": _clean() + b"q Q0 c 3 1e t\n",
    "two exponents": _clean() + b"q Q0 c 3 1e2e3 t\n",
    "dot in the exponent": _clean() + b"q Q0 c 3 1e2.5 t\n",
    "exponent without mantissa": _clean() + b"q Q0 c 3 e5 t\n",
    "infinity": _clean() + b"q Q0 c 3 -inf t\n",
    "nan": _clean() + b"q Q0 c 3 nan t\n",
    "two dots": _clean() + b"q Q0 c 3 1.2.3 t\n",
    "sign inside": _clean() + b"q Q0 c 3 1-2 t\n",
    "no digit": _clean() + b"q Q0 c 3 - t\n",
    "NUL": _clean() + b"q Q0 c\x00 3 0.5 t\n",
    "control character": _clean() + b"q Q0 c\x01 3 0.5 t\n",
    "not UTF-8": _clean() + b"q Q0 c\xff 3 0.5 t\n",
    "long field": _clean() + b"q Q0 " + b"c" * 300 + b" 3 0.5 t\n",
    "long line": _clean() + b"q Q0 c 3 0.5 t" + b" " * (2 << 20) + b"\n",
    "repeated pair": _clean() + b"q Q0 a 3 0.5 t\n",
}


@pytest.mark.parametrize("name", sorted(_NOT_CLEAN) + sorted(_ALSO_READ))
def test_every_file_gets_the_careful_answer(tmp_path: Path, name: str) -> None:
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1"), ("q", "0", "c", "2")])
    run = tmp_path / "run"
    run.write_bytes(_NOT_CLEAN.get(name) or _ALSO_READ[name])
    if name in _ALSO_READ:
        assert open_run(run).columns() is not None
    elif name != "repeated pair":
        assert open_run(run).columns() is None
    try:
        careful: Any = evaluate(read_qrels(qrels), read_run(run), _MEASURES).to_dict()
    except InputError as exc:
        careful = str(exc)
    try:
        small: Any = evaluate(str(qrels), str(run), _MEASURES).to_dict()
    except InputError as exc:
        small = str(exc)
    assert small == careful


@pytest.mark.parametrize(
    "text",
    [b"q 0 a 1.5\n", b"q 0 a 1234567890123456789\n", b"q 0 a\n", b"q 0 a 1 x\n", b"q 0 a 1e3\n"],
)
def test_qrels_that_are_not_clean_are_left_to_the_careful_reader(
    tmp_path: Path, text: bytes
) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(text)
    assert open_qrels(path).columns() is None


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress])
def test_small_compressed_files_are_read_too(tmp_path: Path, pack: Any) -> None:
    packed = tmp_path / "run.packed"
    packed.write_bytes(pack(_clean()))
    columns_read = open_run(packed).columns()
    plain = open_run(_write(tmp_path / "run", _RUN)).columns()
    assert columns_read is not None
    assert plain is not None
    assert columns_read.doc_id.tolist() == plain.doc_id.tolist() == [b"a", b"b"]
    assert columns_read.score.tolist() == plain.score.tolist()
    with mock.patch.object(trec_numpy, "MAX_BYTES", 8 * (packed.stat().st_size - 1)):
        assert open_run(packed).columns() is None  # too large compressed: not even unpacked
    with mock.patch.object(trec_numpy, "MAX_BYTES", len(_clean()) - 1):
        assert open_run(packed).columns() is None  # too large once unpacked


def test_corrupt_empty_and_missing_files_are_left_to_the_careful_reader(tmp_path: Path) -> None:
    corrupt = tmp_path / "run.gz"
    corrupt.write_bytes(gzip.compress(_clean())[:-9])
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1")])
    with pytest.raises(InputError, match="not a valid gzip file"):
        evaluate(qrels, corrupt, "AP")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    for path in (corrupt, empty, tmp_path / "absent", tmp_path, "-"):
        assert open_run(path).columns() is None
    assert not any(trec_numpy.fits(path) for path in (empty, tmp_path / "absent", tmp_path, "-"))
    run = _write(tmp_path / "run", _RUN)
    assert trec_numpy.fits(run)
    with mock.patch.object(trec_numpy, "MAX_BYTES", 10):
        assert not trec_numpy.fits(run)
        assert open_run(run).columns() is None


def test_repeated_judgments_and_hash_clashes_fall_back(tmp_path: Path) -> None:
    """A repeated qrels pair is the careful reader's error; ids that merely hash alike
    (forced here) are ranked the careful way, to the same values."""
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1"), ("q", "0", "a", "0")])
    run = _write(tmp_path / "run", _RUN)
    with pytest.raises(InputError, match="duplicate document 'a'"):
        evaluate(qrels, run, "AP")
    qrels = _write(tmp_path / "qrels2", [("q", "0", "a", "1"), ("q", "0", "b", "2")])
    expected = evaluate(read_qrels(qrels), read_run(run), _MEASURES).to_dict()

    def same(ids: np.ndarray) -> np.ndarray:
        return np.zeros(ids.size, dtype=np.uint64)

    with mock.patch.object(ranking, "id_hashes", same):
        judged, ranked = open_qrels(qrels).columns(), open_run(run).columns()
        assert judged is not None
        assert ranked is not None
        assert ranking.rank_columns(ranked, judged) is None
        assert evaluate(qrels, run, _MEASURES).to_dict() == expected


def test_qrels_changed_in_place_are_read_again_even_with_the_same_size_and_mtime(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "qrels", [("q", "0", "a", "1")])
    before = os.stat(path)
    first = open_qrels(path).columns()
    assert first is not None
    assert first.relevance.tolist() == [1]
    _write(path, [("q", "0", "a", "2")])  # one byte changed: same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    again = open_qrels(path).columns()
    assert again is not None
    assert again.relevance.tolist() == [2]


def test_id_hashes_are_equal_for_equal_ids_in_arrays_of_any_width() -> None:
    ids = np.array([b"a", b"b", b"a", b"abcdefghij", b"abcdefghij"], dtype="S16")
    hashes = row_index.id_hashes(ids)
    wide = row_index.id_hashes(ids.astype("S32"))
    assert wide.tolist() == hashes.tolist()
    assert row_index.id_hashes(ids[:3].astype("S8")).tolist() == hashes[:3].tolist()
    assert hashes[0] == hashes[2]
    assert hashes[3] == hashes[4]
    assert len({hashes[0], hashes[1], hashes[3]}) == 3


def test_the_command_on_small_clean_files_never_imports_polars(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1"), ("q", "0", "c", "2")])
    run = _write(tmp_path / "run", _RUN)
    unclean = tmp_path / "unclean"
    unclean.write_bytes(_NOT_CLEAN["comment line"])
    script = (
        "import sys\n"
        "from cranfield.cli.main import main\n"
        "code = main(['evaluate', '--format', 'json', *sys.argv[1:]])\n"
        "print('polars' in sys.modules, file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    outputs = []
    for runs, imported in (([run], "False"), ([run, unclean], "True")):
        done = subprocess.run(
            [sys.executable, "-c", script, str(qrels), *map(str, runs)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stderr.split()[-1] == imported
        outputs.append(json.loads(done.stdout)["results"])
    values = {k: v for k, v in outputs[0][0].items() if k != "run"}
    assert values["AP"] == 0.5  # a (relevant) at rank 1 of 2; c (relevant) not retrieved
    for result in outputs[1]:  # the unclean run has the same lines, read the careful way
        assert {k: v for k, v in result.items() if k != "run"} == values


def _imported(tmp_path: Path, command: list[str], modules: list[str]) -> tuple[str, list[str]]:
    """What ``cranfield COMMAND QRELS RUN`` prints on the small clean files of these tests,
    in a fresh process, and which of ``modules`` it imported."""
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1"), ("q", "0", "c", "2")])
    run = _write(tmp_path / "run", _RUN)
    script = (
        "import sys\n"
        "from cranfield.cli.main import main\n"
        f"code = main([*{command!r}, *sys.argv[1:]])\n"
        f"print([m for m in {modules!r} if m in sys.modules], file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout, ast.literal_eval(done.stderr.splitlines()[-1])


def test_the_small_path_imports_only_what_it_uses(tmp_path: Path) -> None:
    """Start-up is most of the time of a small evaluation (BENCHMARKS.md, issue 29): the
    plain command leaves out what only other options need (the store, clusters, rich for a
    table written to a pipe, hashing threads, JSON and CSV)."""
    unused = ["polars", "pyarrow", "scipy", "dask", "uuid", "cranfield.evaluation.store", "rich"]
    # A thread pool (and logging with it), an error's suggestions, provenance, other formats.
    unused += ["concurrent.futures", "logging", "difflib", "cranfield.evaluation.provenance"]
    unused += ["csv", "json"]
    # What tells a folder of runs or a Parquet dataset from a run file (a file is one stat).
    unused += ["cranfield.io.parquet_dataset", "glob"]
    # The preference measures' kernel (trec_eval's table reads only their names).
    unused += ["cranfield.kernels.prefs"]
    # The terminal's width, which argparse needs only to write help or an error (shutil).
    unused += ["shutil", "bz2", "lzma"]
    # trec_eval's name table: native names (AP, the default measures) are parsed without it.
    unused += ["cranfield.measures.trec_names"]
    printed, imported = _imported(tmp_path, ["evaluate"], unused)
    assert imported == []
    assert "0.5000" in printed  # AP: a (relevant) at rank 1 of 2, c not retrieved


def test_trec_eval_imports_no_evaluator(tmp_path: Path) -> None:
    """``cranfield trec-eval`` scores one run at a time from the core's pieces (judgments,
    ranking, measures): the evaluator and its machinery for many runs, results and stores
    are left out of its start-up (BENCHMARKS.md, issue 29)."""
    unused = ["polars", "argparse", "rich", "concurrent.futures"]
    unused += [f"cranfield.evaluation.{m}" for m in ("evaluator", "execution", "results")]
    unused += ["cranfield.evaluation.assemble", "cranfield.evaluation.store"]
    printed, imported = _imported(tmp_path, ["trec-eval", "-m", "map"], unused)
    assert imported == []
    assert printed == "map                   \tall\t0.5000\n"


def test_a_line_over_a_lowered_limit_is_left_to_the_careful_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Single-separated or not, a clean file whose lines are longer than the longest line
    allowed is not read here: the careful reader names the line."""
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1")])
    single = tmp_path / "single"
    single.write_bytes(_clean())
    blanks = tmp_path / "blanks"
    blanks.write_bytes(_clean().replace(b" ", b"  "))
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "11")  # the lines hold 12 and more
    for run in (single, blanks):
        assert open_run(run).columns() is None
        with pytest.raises(InputError, match=rf"^{run}:1: is longer than 11 bytes, the longest"):
            evaluate(str(qrels), str(run), _MEASURES)
    assert open_qrels(qrels).columns() is not None
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "6")  # its line holds 7
    assert open_qrels(qrels).columns() is None


def test_a_small_compressed_bomb_is_not_unpacked_whole(tmp_path: Path) -> None:
    """64 MiB of blank lines in 64 KiB of gzip: unpacking stops past :data:`MAX_BYTES`."""
    import tracemalloc
    import zlib

    packer = zlib.compressobj(9, wbits=31)
    packed = packer.compress(b"\n" * (64 << 20)) + packer.flush()
    bomb = tmp_path / "run.gz"
    bomb.write_bytes(packed)
    tracemalloc.start()
    try:
        assert open_run(bomb).columns() is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < trec_numpy.MAX_BYTES + (8 << 20)


def test_the_path_readers_are_deprecated_for_the_one_opener(tmp_path: Path) -> None:
    """``read_run_columns``/``read_qrels_columns`` opened files their own way; they now go
    through :func:`cranfield.io.inputs.open_run`/``open_qrels`` and warn."""
    run = _write(tmp_path / "run", _RUN)
    qrels = _write(tmp_path / "qrels", [("q", "0", "a", "1")])
    with pytest.warns(DeprecationWarning, match=r"open_run\(path\)\.columns\(\)"):
        old_run = trec_numpy.read_run_columns(run)
    with pytest.warns(DeprecationWarning, match=r"open_qrels\(path\)\.columns\(\)"):
        old_qrels = trec_numpy.read_qrels_columns(qrels)
    new_run, new_qrels = open_run(run).columns(), open_qrels(qrels).columns()
    assert old_run is not None
    assert new_run is not None
    assert old_run.doc_id.tolist() == new_run.doc_id.tolist()
    assert old_run.score.tolist() == new_run.score.tolist()
    assert old_qrels is not None
    assert new_qrels is not None
    assert old_qrels.relevance.tolist() == new_qrels.relevance.tolist() == [1]
