"""Result store entries damaged at random (a field changed, removed or given another type, a
value made NaN, infinite, out of range, a list shortened, bytes cut or flipped): the
evaluation gives the numbers it computes afresh, says so at most once, and never fails
(issue 30, item 3). An entry changed by someone who also made its checksum anew, and left it
an entry that the documented checks accept (:func:`_valid`, written from SECURITY.md), is
served as it is: a store is trusted as much as those who can write into it."""

from __future__ import annotations

import json
import math
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import event, given
from hypothesis import strategies as st

from cranfield.errors import StoreWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.store import ResultStore, _checksum
from tests.fuzz.conftest import fuzz

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 1\nq3 0 d5 2\n"
RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d9 1 3 r\nq2 Q0 d3 2 2 r\nq3 Q0 d5 1 1 r\n"
MEASURES = ["AP", "nDCG@10", "num_rel_ret"]
ODD = st.sampled_from([None, "x", -1.0, 1.5, 2, float("nan"), float("inf"), [], {}, [1.0]])
FIELDS = ["topics", "values", "micro", "missing_topics", "notes", "warnings", "measure", "format"]


@st.composite
def damage(draw: st.DrawFn, data: dict[str, Any]) -> tuple[str, bytes]:
    """An entry's text after one random damage, and what it was."""
    how = draw(st.sampled_from(["field", "value", "shorten", "drop", "bytes"]))
    sign = draw(st.booleans())  # made as someone who knows the layout would: checksum anew
    data = json.loads(json.dumps(data))
    if how == "field":
        data[draw(st.sampled_from(FIELDS))] = draw(ODD)
    elif how == "value":
        values = data["values"]
        values[draw(st.integers(0, len(values) - 1))] = draw(ODD)
    elif how == "shorten":
        data["values"] = data["values"][: draw(st.integers(0, len(data["values"]) - 1))]
    elif how == "drop":
        del data[draw(st.sampled_from([*FIELDS, "checksum"]))]
    if sign and how != "bytes":
        data["checksum"] = _checksum(data)
    text = json.dumps(data).encode()
    if how == "bytes":
        at = draw(st.integers(0, len(text) - 1))
        text = text[:at] + draw(st.binary(max_size=3)) + text[at + draw(st.integers(0, 4)) :]
    return f"{how}{' signed' if sign else ''}", text


BOUNDED = {"AP", "nDCG@10"}


def _valid(text: bytes, measure: str) -> list[float] | None:
    """The values of an entry that passes the documented checks, else None."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("checksum") != _checksum(data):
        return None
    topics, values, micro = data.get("topics"), data.get("values"), data.get("micro", "x")
    if data.get("format") != 2 or data.get("measure") != measure:
        return None
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        return None
    if len(set(topics)) != len(topics) or not isinstance(values, list):
        return None
    if len(values) != len(topics) or not (micro is None or isinstance(micro, (int, float))):
        return None
    numbers = [*values, *([] if micro is None else [micro])]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
        return None
    for v in numbers:
        if math.isnan(v):  # a measure undefined
            continue
        if v in (float("inf"), float("-inf")):
            return None
        if measure in BOUNDED and not 0 <= v <= 1:
            return None
        if measure not in BOUNDED and (v < 0 or v != int(v)):
            return None
    missing, notes = data.get("missing_topics"), data.get("notes")
    if not isinstance(missing, list) or not isinstance(notes, list):
        return None
    if not all(isinstance(x, str) for x in [*missing, *notes]):
        return None
    if not isinstance(data.get("warnings"), list):
        return None
    if not all(
        isinstance(w, list) and len(w) == 2 and all(isinstance(x, str) for x in w)
        for w in data["warnings"]
    ):
        return None
    return [float(v) for v in values]


@fuzz(40)
@given(data=st.data(), which=st.integers(0, len(MEASURES) - 1))
def test_a_damaged_entry_is_never_served(data: st.DataObject, which: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "qrels.txt").write_text(QRELS)
        (folder / "run.txt").write_text(RUN)
        inputs = (folder / "qrels.txt", [folder / "run.txt"])
        fresh = Evaluator(inputs[0], MEASURES).many(inputs[1])
        store = ResultStore(folder / "store")
        Evaluator(inputs[0], MEASURES).many(inputs[1], store=store)
        entries = sorted((folder / "store").glob("*/*.json"))
        entry = entries[which]
        original = json.loads(entry.read_text())
        what, text = data.draw(damage(original))
        event(what)
        trusted = _valid(text, original["measure"])
        same_queries = trusted is not None and json.loads(text)["topics"] == original["topics"]
        same_queries = (
            same_queries and json.loads(text)["missing_topics"] == (original["missing_topics"])
        )
        entry.write_bytes(text)
        again = ResultStore(folder / "store")
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            table = Evaluator(inputs[0], MEASURES).many(inputs[1], store=again)
    stored = [w for w in said if issubclass(w.category, StoreWarning)]
    assert len(stored) <= 1
    assert [w for w in said if w not in stored] == []
    for m in fresh.measures:
        if str(m) == original["measure"] and trusted is not None and same_queries:
            event("still a valid entry: served as it is")
            np.testing.assert_array_equal(table.matrix(m)[:, 0], trusted)
            continue
        np.testing.assert_array_equal(table.matrix(m), fresh.matrix(m))
