"""Preference judgments and judgment-group qrels (``io/prefs.py``, trec_eval's ``-R prefs``,
``-R qrels_jg`` and ``-R qrels_prefs``) and intent qrels (``io/intents.py``), plain and
compressed, against the reference readers of :mod:`tests.fuzz.reference_formats`.

Integers stay within 64 bits here: what happens beyond is tested with the limits."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import event, given

from cranfield.io.intents import IntentQrels, read_intents
from cranfield.io.prefs import read_prefs, read_qrels_jg, read_qrels_prefs
from tests.fuzz import reference_formats as reference
from tests.fuzz.checks import attempt, exact_rows, refused_as_the_reference
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import COMPRESSORS, packings, text_file


def _put(folder: str, data: bytes, packing: str) -> Path:
    path = Path(folder) / "judged.txt"
    path.write_bytes(COMPRESSORS[packing](data))
    return path


@fuzz(150)
@given(data=text_file("prefs", bits64=False), packing=packings)
def test_prefs_are_read_as_the_reference_reads_them(data: bytes, packing: str) -> None:
    verdict = reference.prefs(data)
    event("valid" if verdict.valid else "refused")
    with tempfile.TemporaryDirectory() as folder:
        path = _put(folder, data, packing)
        outcome = attempt(lambda: read_prefs(path))
        if verdict.valid:
            assert not isinstance(outcome, Exception), outcome
            assert exact_rows(outcome.rows()) == exact_rows(verdict.rows)
        else:
            refused_as_the_reference(outcome, path, verdict)


@fuzz(150)
@given(data=text_file("grouped", bits64=False), packing=packings)
def test_judgment_group_qrels_are_read_as_the_reference_reads_them(
    data: bytes, packing: str
) -> None:
    """``-R qrels_jg``, and ``-R qrels_prefs`` (the same file, each group one preference
    sub-group ``"0"``, the relevance as its level)."""
    verdict = reference.grouped_qrels(data)
    event("valid" if verdict.valid else "refused")
    with tempfile.TemporaryDirectory() as folder:
        path = _put(folder, data, packing)
        outcome = attempt(lambda: read_qrels_jg(path))
        as_prefs = attempt(lambda: read_qrels_prefs(path))
        if verdict.valid:
            assert not isinstance(outcome, Exception), outcome
            assert outcome.rows() == verdict.rows
            levels = [(q, g, "0", d, float(r)) for q, g, d, r in verdict.rows]
            assert not isinstance(as_prefs, Exception), as_prefs
            assert exact_rows(as_prefs.rows()) == exact_rows(levels)
        else:
            refused_as_the_reference(outcome, path, verdict)
            refused_as_the_reference(as_prefs, path, verdict)


@fuzz(150)
@given(data=text_file("grouped", bits64=False), packing=packings)
def test_intents_are_read_as_the_reference_reads_them(data: bytes, packing: str) -> None:
    """Intent qrels (``qid subtopic docno rel``): the judgment-group format, subtopics for
    groups."""
    verdict = reference.grouped_qrels(data)
    event("valid" if verdict.valid else "refused")
    with tempfile.TemporaryDirectory() as folder:
        path = _put(folder, data, packing)
        outcome = attempt(lambda: read_intents(path))
        if verdict.valid:
            assert isinstance(outcome, IntentQrels), outcome
            assert outcome.frame.rows() == verdict.rows
        else:
            refused_as_the_reference(outcome, path, verdict)
