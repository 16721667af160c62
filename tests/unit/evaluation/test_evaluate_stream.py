"""evaluate_stream: blocks of whole queries give exactly evaluate()'s numbers, in bounded memory."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import random
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.errors import EvaluationError, InputError, MissingTopicError, QueryOverlapWarning
from cranfield.evaluation.evaluator import evaluate_stream
from cranfield.io.trec_blocks import one_ahead

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Bpref", "infAP", "R@20", "IPrec@0.3", "RBP", "G",
            "RnDCG", "NumRet", "Judged@5", "Unjudged@10", "RBPResid", "SetF"]  # fmt: skip


def _write(tmp: Path, lines: list[str], name: str = "run.txt") -> Path:
    path = tmp / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Qrels and a run grouped by query (query order and line order inside a query random)."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    topics = draw(
        st.lists(
            st.sampled_from(["1", "10", "2", "9", "a", "Q"]), min_size=1, max_size=6, unique=True
        )
    )
    qrels: dict[str, dict[str, int]] = {}
    lines: list[str] = []
    for t in topics:
        docs = [f"d{i}" for i in range(rng.randint(0, 30))]
        judged = {d: rng.choice([-1, 0, 0, 1, 2]) for d in docs if rng.random() < 0.5}
        if judged or rng.random() < 0.3:
            qrels[t] = judged or {"x": 1}
        block = [f"{t} Q0 {d} 0 {rng.choice([1.0, 2.0, 2.5, rng.random()])} tag" for d in docs]
        rng.shuffle(block)
        lines.extend(block)
    qrels.setdefault("only_judged", {"z": 1})
    return qrels, lines


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(data=collections(), block=st.integers(1, 400), missing=st.sampled_from(["zero", "skip"]))
def test_streaming_equals_evaluate(
    tmp_path_factory: pytest.TempPathFactory,
    data: tuple[dict[str, dict[str, int]], list[str]],
    block: int,
    missing: str,
) -> None:
    qrels, lines = data
    if not lines:
        return
    path = _write(tmp_path_factory.mktemp("stream"), lines)
    with warnings.catch_warnings():
        # Generated runs often answer few judged queries: both paths must agree on that too.
        warnings.simplefilter("ignore", QueryOverlapWarning)
        try:
            whole = cranfield.evaluate(qrels, path, MEASURES, missing=missing)  # type: ignore[arg-type]
        except EvaluationError as exc:  # a run meant for other qrels: streamed, the same
            with pytest.raises(EvaluationError, match="share no query id"):
                raise exc
            with pytest.raises(EvaluationError, match="share no query id"):
                evaluate_stream(qrels, path, MEASURES, block_bytes=block, missing=missing)  # type: ignore[arg-type]
            return
        streamed = evaluate_stream(qrels, path, MEASURES, block_bytes=block, missing=missing)  # type: ignore[arg-type]
    assert streamed.topics == whole.topics
    assert streamed.missing_topics == whole.missing_topics
    for m in whole.values:
        np.testing.assert_array_equal(streamed.values[m], whole.values[m], err_msg=str(m))
    assert streamed.means() == pytest.approx(whole.means(), nan_ok=True, rel=0, abs=0)


def test_missing_policy_error_and_zero(tmp_path: Path) -> None:
    path = _write(tmp_path, ["1 Q0 a 1 1.0 t"])
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    with pytest.raises(MissingTopicError):
        evaluate_stream(qrels, path, ["AP"], missing="error")
    res = evaluate_stream(qrels, path, ["AP", "NumRet"], missing="zero")
    assert res.topics == ["1", "2"]
    assert res.per_query("AP") == {"1": 1.0, "2": 0.0}
    assert res.per_query("NumRet") == {"1": 1.0, "2": 0.0}
    assert res.missing_topics == ["2"]


def test_interleaved_queries_are_refused_with_the_data_line(tmp_path: Path) -> None:
    path = _write(tmp_path, ["1 Q0 a 1 1.0 t", "2 Q0 b 1 1.0 t", "1 Q0 c 2 0.5 t"])
    with pytest.raises(
        InputError, match=r"run\.txt: data line 3: the lines of query '1' are not contiguous"
    ):
        evaluate_stream({"1": {"a": 1}}, path, ["AP"], block_bytes=8)


def test_a_bad_line_in_a_later_block_names_its_physical_line(tmp_path: Path) -> None:
    lines = [f"1 Q0 d{i} {i} {100 - i}.0 t" for i in range(40)] + [
        "# comment",
        "",
        "1 Q0 bad 0 x t",
    ]
    path = _write(tmp_path, lines)
    with pytest.raises(InputError, match=r"run\.txt:43: score must be a number, got 'x'"):
        evaluate_stream({"1": {"d1": 1}}, path, ["AP"], block_bytes=64)


def test_a_duplicate_split_across_blocks_is_found(tmp_path: Path) -> None:
    lines = [f"1 Q0 d{i} {i} {100 - i}.0 t" for i in range(30)] + ["1 Q0 d0 99 0.5 t"]
    path = _write(tmp_path, lines)
    with pytest.raises(InputError, match="query '1' has a duplicate document"):
        evaluate_stream({"1": {"d1": 1}}, path, ["AP"], block_bytes=64)


def test_compressed_runs_and_comment_only_files(tmp_path: Path) -> None:
    lines = ["1 Q0 a 1 1.0 t", "1 Q0 b 2 0.5 t"]
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress("".join(x + "\n" for x in lines).encode()))
    assert evaluate_stream({"1": {"b": 1}}, gz, ["RR"], block_bytes=4)["RR"] == 0.5
    empty = _write(tmp_path, ["# nothing", ""], "empty.run")
    with pytest.raises(InputError, match="contains no run lines"):
        evaluate_stream({"1": {"b": 1}}, empty, ["RR"])


def test_options_are_validated(tmp_path: Path) -> None:
    path = _write(tmp_path, ["1 Q0 a 1 1.0 t"])
    with pytest.raises(ValueError, match="'block_bytes' option must be an integer >= 1"):
        evaluate_stream({"1": {"a": 1}}, path, ["AP"], block_bytes=0)
    with pytest.raises(ValueError, match="Micro-averaging"):
        evaluate_stream({"1": {"a": 1}}, path, ["SetP"], aggregate="micro")  # type: ignore[arg-type]


@pytest.mark.parametrize("block", [1, 5, 17, 40, 1 << 20])
def test_odd_files_stream_like_they_read(tmp_path: Path, block: int) -> None:
    """BOM, comment and blank lines, CR-LF, no final line end: clean and careful blocks mix,
    and a bad line after them is still named by its physical line."""
    body = (
        b"\xef\xbb\xbf1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n# note\n\n1 Q0 c 3 1 t\r\n"
        b"2 Q0 a 1 1 t\n2 Q0 d 2 1 t\n2 Q0 e 3 0.5 t"
    )
    path = tmp_path / "odd.run"
    path.write_bytes(body)
    qrels = {"1": {"c": 1}, "2": {"d": 1, "e": 2}}
    whole = cranfield.evaluate(qrels, path, MEASURES)
    streamed = evaluate_stream(qrels, path, MEASURES, block_bytes=block)
    for m in whole.values:
        np.testing.assert_array_equal(streamed.values[m], whole.values[m], err_msg=str(m))
    path.write_bytes(body + b"\n3 Q0 x 1 oops t\n")
    with pytest.raises(InputError, match=r"odd\.run:9: score must be a number"):
        evaluate_stream(qrels, path, MEASURES, block_bytes=block)


def test_the_next_block_is_made_while_one_is_used() -> None:
    made = [threading.Event() for _ in range(3)]

    def blocks() -> Iterator[int]:
        for k in range(3):
            made[k].set()
            yield k

    used = []
    for k in one_ahead(blocks()):
        if k < 2:  # the next one is made meanwhile (a serial loop would wait here forever)
            assert made[k + 1].wait(timeout=30)
        used.append(k)
    assert used == [0, 1, 2]


def test_an_error_making_a_block_surfaces_after_the_blocks_before_it() -> None:
    def blocks() -> Iterator[int]:
        yield 0
        yield 1
        raise InputError("run.txt", 9, "score must be a number, got 'x'")

    made = one_ahead(blocks())
    assert [next(made), next(made)] == [0, 1]
    with pytest.raises(InputError, match=r"run\.txt:9"):
        next(made)


# --------------------------------------------------------------------------- the file opener
# Streaming reads its file through cranfield.io's one opener, so every source that
# cranfield.evaluate reads is streamed the same way, and every bad one is the same InputError.

QRELS = {"BZh1": {"d": 1}, "q2": {"e": 1, "f": 1}}
RUN = b"BZh1 Q0 d 1 1.0 t\nq2 Q0 x 1 3.0 t\nq2 Q0 e 2 2.0 t\nq2 Q0 f 3 1.0 t\n"


def _same_as_evaluate(streamed: cranfield.Results, path: Path) -> None:
    whole = cranfield.evaluate(QRELS, path, MEASURES)
    assert streamed.topics == whole.topics
    for m in whole.values:
        np.testing.assert_array_equal(streamed.values[m], whole.values[m], err_msg=str(m))


def test_a_plain_run_starting_with_bzh_is_text(tmp_path: Path) -> None:
    """The letters "BZh" alone do not make a bzip2 file: the block magic must follow."""
    path = tmp_path / "run.txt"
    path.write_bytes(RUN)
    _same_as_evaluate(cranfield.evaluate_stream(QRELS, path, MEASURES), path)


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor().compress(data))


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bz2": bz2.compress,
    "xz": lzma.compress,
    "zstd": _zstd,
}


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("block", [7, 1 << 20])
def test_every_compression_streams(tmp_path: Path, kind: str, block: int) -> None:
    """Two concatenated streams, read by their magic bytes whatever the name."""
    pack = COMPRESSORS[kind]
    path = tmp_path / "run.bin"
    path.write_bytes(pack(RUN[:40]) + pack(RUN[40:]))
    streamed = cranfield.evaluate_stream(QRELS, path, MEASURES, block_bytes=block)
    plain = tmp_path / "run.txt"
    plain.write_bytes(RUN)
    _same_as_evaluate(streamed, plain)


def _damaged(kind: str, damage: str) -> bytes:
    body = b"".join(b"q%d Q0 d%d 1 %d t\n" % (i // 50, i, 1000 - i) for i in range(3000))
    pack = COMPRESSORS[kind]
    if damage == "truncated":
        whole = pack(body)
        return whole[: len(whole) // 2]
    if damage == "trailing garbage":
        return pack(body) + b"garbage"
    if damage == "corrupt second stream":
        second = bytearray(pack(body[:5000]))
        for i in range(24, 64):
            second[i] ^= 0x5A
        return pack(body[5000:]) + bytes(second)
    return pack(body)[:12]  # header only


DAMAGES = ["truncated", "trailing garbage", "corrupt second stream", "header only"]


@pytest.mark.parametrize("kind", list(COMPRESSORS))
@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("block", [64, 1 << 20])
def test_a_damaged_compressed_run_is_an_input_error(
    tmp_path: Path, kind: str, damage: str, block: int
) -> None:
    """As when it is read whole: never a traceback, never the queries before the damage
    scored and the others counted as missing."""
    path = tmp_path / "damaged.run"
    path.write_bytes(_damaged(kind, damage))
    with pytest.raises(InputError) as whole:
        cranfield.evaluate({"q0": {"d1": 1}}, path, ["AP"])
    with pytest.raises(InputError) as streamed:
        cranfield.evaluate_stream({"q0": {"d1": 1}}, path, ["AP"], block_bytes=block)
    assert streamed.value.source == str(path)
    assert streamed.value.problem.startswith(f"is not a valid {kind} file")
    assert whole.value.problem.startswith(f"is not a valid {kind} file")


def test_zstd_without_zstandard_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.zst"
    path.write_bytes(_zstd(RUN))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(InputError, match=r"run\.zst: .*pip install '\.\[zstd\]'"):
        cranfield.evaluate_stream(QRELS, path, MEASURES)


def _loop(tmp_path: Path) -> Path:
    loop = tmp_path / "loop.run"
    loop.symlink_to(loop)
    return loop


@pytest.mark.parametrize(
    "where",
    [lambda tmp: tmp / "absent.run", _loop],
    ids=["missing", "symlink loop"],
)
def test_an_unreadable_run_is_an_input_error(tmp_path: Path, where: Callable[[Path], Path]) -> None:
    path = where(tmp_path)
    with pytest.raises(InputError) as whole:
        cranfield.evaluate(QRELS, path, ["AP"])
    with pytest.raises(InputError) as streamed:
        cranfield.evaluate_stream(QRELS, path, ["AP"])
    assert str(streamed.value) == str(whole.value)
    assert streamed.value.problem.startswith("cannot read file (")


def test_a_folder_is_streamed_never_and_evaluated_as_a_parquet_dataset(tmp_path: Path) -> None:
    pytest.importorskip("dask.dataframe")
    with pytest.raises(InputError, match=r"cannot read file \(Is a directory\)"):
        cranfield.evaluate_stream(QRELS, tmp_path, ["AP"])
    with pytest.raises(InputError, match="holds no Parquet files"):
        cranfield.evaluate(QRELS, tmp_path, ["AP"])


def _cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    command = [str(Path(sys.executable).parent / "cranfield"), *args]
    return subprocess.run(command, input=stdin, capture_output=True, check=False, timeout=120)


def test_the_command_line_reports_an_unreadable_stream_in_one_line(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q2 0 e 1\n")
    proc = _cli("evaluate", "--stream", str(qrels), str(tmp_path / "absent.run"))
    assert proc.returncode == 2
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("cranfield evaluate: ")
    assert "absent.run: cannot read file" in lines[0]


def test_stdin_streams_whole(tmp_path: Path) -> None:
    """``-`` is standard input, read once: no byte goes to a probe."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("BZh1 0 d 1\nq2 0 e 1\nq2 0 f 1\n")
    run = tmp_path / "run.txt"
    run.write_bytes(RUN)
    args = ["evaluate", str(qrels), "-m", "AP", "NumRet", "-q", "-f", "tsv"]
    whole = _cli(*args[:2], str(run), *args[2:])
    for data in (RUN, gzip.compress(RUN)):
        streamed = _cli(*args[:2], "-", *args[2:], "--stream", stdin=data)
        assert streamed.returncode == whole.returncode == 0, streamed.stderr
        assert streamed.stdout.replace(b"stdin\t", b"run\t") == whole.stdout  # the names


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_streams_whole(tmp_path: Path) -> None:
    """``cranfield evaluate --stream qrels <(zcat run.gz)``: a pipe can be opened once."""
    fifo = tmp_path / "run.pipe"
    os.mkfifo(fifo)
    got: list[cranfield.Results] = []
    writer = threading.Thread(target=fifo.write_bytes, args=(RUN,), daemon=True)
    reader = threading.Thread(
        target=lambda: got.append(cranfield.evaluate_stream(QRELS, fifo, MEASURES)), daemon=True
    )
    writer.start()
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # waiting for a second writer that will never come: release it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
    assert got, "the pipe was opened twice: the first bytes went to a probe"
    plain = tmp_path / "run.txt"
    plain.write_bytes(RUN)
    _same_as_evaluate(got[0], plain)
