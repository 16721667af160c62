"""TREC qrels and runs, plain and compressed, through every reader cranfield has for them:
the whole-file reader (``read_qrels``, ``read_run`` and its block reader for plain files),
the numpy reader of small clean files (``io/trec_numpy.py``), the streaming block reader
(``io/trec_blocks.py`` behind ``evaluate_stream``), and the evaluation on top of each.

The oracle is :mod:`tests.fuzz.reference_formats`; values are compared exactly (floats by
their bits)."""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

import cranfield
from cranfield.data.qrels import Qrels
from cranfield.data.run import Run
from cranfield.errors import EvaluationError, InputError, QueryOverlapWarning
from cranfield.io import trec
from cranfield.io.inputs import open_qrels, open_run
from cranfield.io.trec import read_qrels, read_run
from tests.fuzz import reference_formats as reference
from tests.fuzz.checks import attempt, exact_rows, one_line_error, refused_as_the_reference
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import BOM, COMPRESSORS, packings, styles, text_file

# What reading changed is a QrelsNoteWarning (tests/unit/data/test_judgments.py); the
# numbers are what is compared here.
pytestmark = pytest.mark.filterwarnings("ignore::cranfield.errors.QrelsNoteWarning")

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "Rprec"]
MOSTLY_VALID = styles(("none", "harmless", "harmless", "any"))


def _qrels_rows(qrels: Qrels) -> list[tuple[object, ...]]:
    return sorted(qrels.frame.select("query_id", "iteration", "doc_id", "relevance").rows())


def _run_rows(run: Run) -> list[tuple[object, ...]]:
    return exact_rows(run.frame.select("query_id", "doc_id", "score").rows())


def _put(folder: str, name: str, data: bytes, packing: str = "plain") -> Path:
    path = Path(folder) / name
    path.write_bytes(COMPRESSORS[packing](data))
    return path


@pytest.mark.slow
# Found by this test: polars dropped a second byte-order mark (the first is not text).
@example(data=BOM + BOM + b"q 0 d 1\n", packing="plain")
@fuzz(250)
@given(data=text_file("qrels"), packing=packings)
def test_qrels_are_read_as_the_reference_reads_them(data: bytes, packing: str) -> None:
    verdict = reference.trec_qrels(data)
    with tempfile.TemporaryDirectory() as folder:
        path = _put(folder, "judged.qrels", data, packing)
        outcome = attempt(lambda: read_qrels(path))
        event("valid" if verdict.valid else "refused")
        if verdict.valid:
            assert isinstance(outcome, Qrels), outcome
            levels = [(q, it, d, int(r)) for q, it, d, r in verdict.rows]  # decimals: int part
            assert _qrels_rows(outcome) == sorted(levels)
        else:
            refused_as_the_reference(outcome, path, verdict)
        columns = open_qrels(path).columns()  # None: not a small clean file, read as above
        event("numpy reader" if columns is not None else "not for the numpy reader")
        if columns is not None:
            # Clean files may hold a repeated pair: the ranking finds it, not this reader.
            assert set(verdict.bad.values()) <= {"duplicate"}, verdict.bad
            rows = zip(columns.query_id, columns.doc_id, columns.relevance.tolist(), strict=True)
            got = [(q.decode(), d.decode(), r) for q, d, r in rows]
            everything = [(q, d, r) for q, _, d, r in _reference_rows_with_repeats(data)]
            assert got == everything


def _reference_rows_with_repeats(data: bytes) -> list[tuple[str, str, str, int]]:
    """Every qrels data line in file order, repeats included (the numpy reader's view)."""
    rows = []
    for raw in reference.physical_lines(data):
        fields = reference.fields_of(raw)
        if fields and not fields[0].startswith(b"#"):
            q, it, d = (f.decode() for f in fields[:3])
            rows.append((q, it, d, int(fields[3])))
    return rows


@pytest.mark.slow
# Found by this test: polars dropped a second byte-order mark, or a U+FEFF that starts the
# first field of a block's first line.
@example(data=BOM + BOM + b"q Q0 d 1 2 t\n", packing="plain", block=None)
@example(data=b"q Q0 d 1 2 t\n" + BOM + b"q Q0 e 1 2 t\n", packing="plain", block=13)
@fuzz(250)
@given(data=text_file("run"), packing=packings, block=st.sampled_from([None, 16, 64, 200]))
def test_runs_are_read_as_the_reference_reads_them(
    data: bytes, packing: str, block: int | None
) -> None:
    verdict = reference.trec_run(data)
    with tempfile.TemporaryDirectory() as folder:
        path = _put(folder, "system.run", data, packing)
        # A small block size makes the whole-file reader cut a plain file into blocks.
        with mock.patch.object(trec, "BLOCK_BYTES", block or trec.BLOCK_BYTES):
            outcome = attempt(lambda: read_run(path))
        event("valid" if verdict.valid else "refused")
        if verdict.valid:
            assert isinstance(outcome, Run), outcome
            assert _run_rows(outcome) == exact_rows(verdict.rows)
            assert outcome.tag == verdict.tag
        else:
            refused_as_the_reference(outcome, path, verdict)
        columns = open_run(path).columns()
        event("numpy reader" if columns is not None else "not for the numpy reader")
        if columns is not None:
            assert set(verdict.bad.values()) <= {"duplicate"}, verdict.bad
            rows = zip(columns.query_id, columns.doc_id, columns.score.tolist(), strict=True)
            got = [(q.decode(), d.decode(), s) for q, d, s in rows]
            assert exact_rows(got) == exact_rows(_run_rows_with_repeats(data))
            assert columns.tag == verdict.tag


def _run_rows_with_repeats(data: bytes) -> list[tuple[str, str, float]]:
    rows = []
    for raw in reference.physical_lines(data):
        fields = reference.fields_of(raw)
        if fields and not fields[0].startswith(b"#"):
            rows.append((fields[0].decode(), fields[2].decode(), float(fields[4])))
    return rows


def _nested(rows: list[tuple[object, ...]]) -> dict[object, dict[object, object]]:
    """``(query, document, value)`` rows as ``{query: {document: value}}``."""
    out: dict[object, dict[object, object]] = {}
    for query, document, value in rows:
        out.setdefault(query, {})[document] = value
    return out


def _contiguous(rows: list[tuple[object, ...]]) -> bool:
    """Whether the lines of each query are together (what streaming requires)."""
    finished: set[object] = set()
    previous = None
    for row in rows:
        if row[0] != previous:
            if row[0] in finished:
                return False
            finished.add(previous)
            previous = row[0]
    return True


def _values(results: cranfield.Results) -> dict[str, dict[str, float]]:
    return {m: results.per_query(m) for m in MEASURES}


def _scored(call: Callable[[], object]) -> tuple[object, list[warnings.WarningMessage]]:
    """What ``call()`` returns, or the InputError or EvaluationError it raises, and the
    query-overlap warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", QueryOverlapWarning)
        try:
            outcome = attempt(call)
        except EvaluationError as exc:
            outcome = exc
    return outcome, [w for w in caught if issubclass(w.category, QueryOverlapWarning)]


@pytest.mark.slow
# Found by this test: the query U+FEFF "q" of a block's first line was read as "q" when
# streaming (AP 0.0 instead of 1.0).
@example(
    qrels=b"a 0 b 0\n" + BOM + b"q 0 e 1\n",
    run=b"q Q0 d 1 2 t\n" + BOM + b"q Q0 e 1 2 t\n",
    packing="plain",
    block=13,
)
@fuzz(200)
@given(
    qrels=text_file("qrels", style=styles(("none", "harmless"))),
    run=st.booleans().flatmap(
        lambda grouped: text_file("run", style=MOSTLY_VALID, grouped=grouped)
    ),
    packing=packings,
    block=st.sampled_from([1, 24, 64, 200, 1 << 20]),
)
def test_evaluation_and_streaming_give_the_references_numbers(
    qrels: bytes, run: bytes, packing: str, block: int
) -> None:
    """``evaluate`` on the files scores what the reference read; ``evaluate_stream`` gives
    the same numbers on a run grouped by query, and refuses the others by name."""
    judged, ranked = reference.trec_qrels(qrels), reference.trec_run(run)
    with tempfile.TemporaryDirectory() as folder:
        qrels_path = _put(folder, "judged.qrels", qrels)
        run_path = _put(folder, "system.run", run, packing)
        normal, warned = _scored(lambda: cranfield.evaluate(qrels_path, run_path, MEASURES))
        stream, warned_streaming = _scored(
            lambda: cranfield.evaluate_stream(qrels_path, run_path, MEASURES, block_bytes=block)
        )
        if not judged.valid:
            event("qrels refused")
            refused_as_the_reference(normal, qrels_path, judged)
            refused_as_the_reference(stream, qrels_path, judged)
            return
        if not ranked.valid:
            event("run refused")
            refused_as_the_reference(normal, run_path, ranked)
            error = one_line_error(stream, run_path)
            assert error.line is None or error.line in ranked.bad, (str(error), ranked.bad)
            return
        judged_ids = {row[0] for row in judged.rows}
        shared = {row[0] for row in ranked.rows} & judged_ids
        if not shared:  # the run was meant for other qrels
            event("no shared query")
            assert isinstance(normal, EvaluationError), normal
            assert "share no query id" in str(normal)
            assert isinstance(stream, (EvaluationError, InputError)), stream
            return
        assert isinstance(normal, cranfield.Results), normal
        few = 2 * len(shared) < len(judged_ids)  # a warning, once per evaluation
        assert len(warned) == few, warned
        assert len(warned_streaming) == (few and isinstance(stream, cranfield.Results))
        judgments = reference.qrels_of(judged.rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", QueryOverlapWarning)  # counted above
            truth = cranfield.evaluate(judgments, _nested(ranked.rows), MEASURES)
        assert normal.topics == truth.topics
        assert _values(normal) == _values(truth)
        event("streamed" if _contiguous(ranked.rows) else "not grouped: streaming refused")
        if _contiguous(ranked.rows):
            assert isinstance(stream, cranfield.Results), stream
            assert stream.topics == normal.topics
            assert _values(stream) == _values(normal)
        else:
            error = one_line_error(stream, run_path)
            assert isinstance(error, InputError)
            assert "not contiguous" in error.problem, str(error)
