"""``cranfield evaluate`` on fuzzed files, as a user runs it: the run given by its path or
on standard input, read whole or streamed. It exits 0 with the numbers of the reference
reading, or 2 with one line on standard error naming the file; never a traceback.

A command takes a few tenths of a second to start, so this test tries few inputs."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import cranfield
from tests.fuzz import reference_formats as reference
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import styles, text_file

MEASURES = ["AP", "nDCG@10", "P@5", "RR"]


def _nested(rows: list[tuple[object, ...]]) -> dict[object, dict[object, object]]:
    out: dict[object, dict[object, object]] = {}
    for query, document, value in rows:
        out.setdefault(query, {})[document] = value
    return out


def _contiguous(rows: list[tuple[object, ...]]) -> bool:
    queries = [row[0] for row in rows]
    starts = [q for k, q in enumerate(queries) if k == 0 or queries[k - 1] != q]
    return len(starts) == len(set(starts))


@pytest.mark.slow
@fuzz(10)
@given(
    qrels=text_file("qrels", style=styles(("none", "harmless", "harmless", "any"))),
    run=text_file("run", style=styles(("none", "harmless", "harmless", "any"))),
    stdin=st.booleans(),
    stream=st.booleans(),
)
def test_evaluate_exits_0_with_the_numbers_or_2_with_one_line(
    qrels: bytes, run: bytes, stdin: bool, stream: bool
) -> None:
    judged, ranked = reference.trec_qrels(qrels), reference.trec_run(run)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "judged.qrels").write_bytes(qrels)
        (folder / "system.run").write_bytes(run)
        argv = [sys.executable, "-m", "cranfield.cli.main", "evaluate", "judged.qrels"]
        argv += ["-" if stdin else "system.run", "-m", *MEASURES, "-q", "-f", "json"]
        done = subprocess.run(
            argv + (["--stream"] if stream else []),
            cwd=folder,
            input=run if stdin else b"",
            capture_output=True,
            timeout=120,
            check=False,
        )
    errors = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in errors, errors
    assert "Exception ignored" not in errors, errors
    works = judged.valid and ranked.valid and not (stream and not _contiguous(ranked.rows))
    judged_ids = {row[0] for row in judged.rows} if works else set()
    answered = {row[0] for row in ranked.rows} & judged_ids if works else set()
    unshared = works and bool(ranked.rows) and bool(judged_ids) and not answered
    event("exit 0" if works and not unshared else "exit 2")
    if not works or unshared:
        assert done.returncode == 2, errors
        assert errors.startswith("cranfield evaluate: "), errors
        assert errors.count("\n") == 1, errors
        assert errors.endswith("\n"), errors
        culprit = "judged.qrels" if not judged.valid else "<stdin>" if stdin else "system.run"
        assert culprit in errors, errors
        assert ("share no query id" in errors) is unshared, errors
        return
    assert done.returncode == 0, errors
    few = 2 * len(answered) < len(judged_ids)  # a warning on stderr, and in the numbers' notes
    assert ("warning: " in errors) is few, errors
    judgments = reference.qrels_of(judged.rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cranfield.QueryOverlapWarning)  # said on stderr above
        truth = cranfield.evaluate(judgments, _nested(ranked.rows), MEASURES)
    expected = [
        {m: truth.per_query(m)[query] for m in MEASURES} | {"query_id": query}
        for query in truth.topics
    ]
    printed = json.loads(done.stdout)["results"]
    assert [{k: v for k, v in row.items() if k != "run"} for row in printed] == expected
