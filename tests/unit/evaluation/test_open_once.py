"""Each input is opened once and read once, whatever it is and whatever is asked of it.

An audit hook counts the opens of every input file of an evaluation (the fall-back chain of
readers that opened a run up to four times must not come back), and a named pipe, a process
substitution and standard input are evaluated in every output format and mode: a pipe can be
read only once, so anything that read one twice (the provenance's hash, the result store's
key) would hang or lose it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from cranfield.cli.main import main
from tests.conftest import require

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
QRELS = EXAMPLES / "qrels.txt"
RUN = EXAMPLES / "bm25.run"

_WATCHED: dict[str, Counter[str]] = {}


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "open" or not _WATCHED or not args:
        return
    path = args[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        where = os.path.abspath(os.fsdecode(path))
        counts = _WATCHED.get("counts")
        if counts is not None and where in _WATCHED.get("paths", Counter()):
            counts[os.path.basename(where)] += 1


sys.addaudithook(_hook)


@contextlib.contextmanager
def opens(*paths: Path) -> Iterator[Counter[str]]:
    """Count the opens of ``paths`` while the block runs."""
    counts: Counter[str] = Counter()
    _WATCHED["paths"] = Counter(os.path.abspath(p) for p in paths)
    _WATCHED["counts"] = counts
    try:
        yield counts
    finally:
        _WATCHED.clear()


def cli(*argv: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in argv])
    return code, out.getvalue()


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    """The example run in several forms, and the qrels."""
    text = RUN.read_bytes()
    made = {"trec": tmp_path / "bm25.run", "commented": tmp_path / "commented.run"}
    made["trec"].write_bytes(text)
    made["commented"].write_bytes(b"# a comment line: not read by the numpy reader\n" + text)
    for suffix in ("csv", "jsonl", "parquet"):
        made[suffix] = tmp_path / f"bm25.{suffix}"
        assert cli("convert", RUN, made[suffix])[0] == 0
    made["gzip"] = tmp_path / "bm25.run.gz"
    import gzip

    made["gzip"].write_bytes(gzip.compress(text))
    made["qrels"] = tmp_path / "qrels.txt"
    made["qrels"].write_bytes(QRELS.read_bytes())
    return made


@pytest.mark.parametrize("form", ["trec", "commented", "csv", "jsonl", "parquet", "gzip"])
@pytest.mark.parametrize(
    "mode", [(), ("-f", "json"), ("-q", "-f", "json"), ("--store", "STORE", "-f", "json")]
)
def test_each_input_is_opened_once(
    inputs: dict[str, Path], tmp_path: Path, form: str, mode: tuple[str, ...]
) -> None:
    run, qrels = inputs[form], inputs["qrels"]
    argv = [str(tmp_path / "store") if a == "STORE" else a for a in mode]
    for _ in range(2 if "--store" in mode else 1):  # computed, then read back
        with opens(run, qrels) as counted:
            code, out = cli("evaluate", qrels, run, *argv)
        assert code == 0
        assert counted == Counter({run.name: 1, qrels.name: 1}), (form, mode)
    if "json" in mode:  # the hashes are of the bytes read, not of a second reading
        inputs_of = json.loads(out)["provenance"]["inputs"]
        assert _run_input(inputs_of)["sha256"] == hashlib.sha256(run.read_bytes()).hexdigest()
        assert inputs_of["qrels"]["sha256"] == hashlib.sha256(qrels.read_bytes()).hexdigest()


def test_a_streamed_run_and_several_runs_are_opened_once(inputs: dict[str, Path]) -> None:
    qrels, run, other = inputs["qrels"], inputs["trec"], inputs["commented"]
    with opens(run, other, qrels) as counted:
        assert cli("evaluate", qrels, run, other, "--stream", "-f", "json")[0] == 0
    assert counted == Counter({run.name: 1, other.name: 1, qrels.name: 1})
    with opens(run, other, qrels) as counted:
        assert cli("compare", qrels, run, other, "-s", "1")[0] == 0
    assert counted == Counter({run.name: 1, other.name: 1, qrels.name: 1})


@pytest.mark.parametrize("form", ["trec", "commented", "csv"])
def test_a_large_run_read_in_blocks_is_opened_once(
    inputs: dict[str, Path], form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the numpy reader's size a TREC file is read block by block through one handle; a
    block that is not clean (a comment line) sends the reading back to the start through the
    same handle; another format is read whole, once."""
    from cranfield.io import trec, trec_numpy

    monkeypatch.setattr(trec_numpy, "MAX_BYTES", 1000)
    monkeypatch.setattr(trec, "BLOCK_BYTES", 700)
    run, qrels = inputs[form], inputs["qrels"]
    assert run.stat().st_size > 1000
    with opens(run, qrels) as counted:
        code, out = cli("evaluate", qrels, run, "-f", "json")
    assert code == 0
    assert counted == Counter({run.name: 1, qrels.name: 1})
    sha = _run_input(json.loads(out)["provenance"]["inputs"])["sha256"]
    assert sha == hashlib.sha256(run.read_bytes()).hexdigest()
    means = json.loads(out)["results"][0]
    monkeypatch.undo()
    assert json.loads(cli("evaluate", qrels, run, "-f", "json")[1])["results"][0] == means


def _run_input(inputs: dict[str, dict[str, str]]) -> dict[str, str]:
    """The one run's entry among a provenance's inputs (``run:NAME`` in a table of runs)."""
    (entry,) = [v for k, v in inputs.items() if k.split(":")[0] == "run"]
    return entry


def _fifo(tmp_path: Path, data: bytes, name: str = "bm25.run") -> Path:
    """A named pipe that a thread writes ``data`` into, once."""
    path = tmp_path / name
    os.mkfifo(path)

    def write() -> None:
        with path.open("wb") as pipe:
            pipe.write(data)

    threading.Thread(target=write, daemon=True).start()
    return path


def _cranfield(*argv: str | Path, stdin: bytes | None = None, shell: bool = False) -> str:
    """The command's standard output; it must end (within a minute) with exit 0."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    command: list[str] = [sys.executable, "-m", "cranfield.cli.main", *map(str, argv)]
    if shell:  # for <(...): bash makes the pipe
        command = ["bash", "-c", " ".join(command)]
    done = subprocess.run(
        command, input=stdin, capture_output=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


EVERY_MODE = [
    ("-f", "json"),
    ("--stream", "-f", "json"),
    ("--store", "STORE", "-f", "json"),
    ("-q",),
]


@pytest.mark.parametrize("mode", EVERY_MODE)
def test_a_named_pipe_is_read_once_in_every_mode(tmp_path: Path, mode: tuple[str, ...]) -> None:
    require(QRELS)
    argv = [str(tmp_path / "store") if a == "STORE" else a for a in mode]
    run = _fifo(tmp_path, RUN.read_bytes())
    out = _cranfield("evaluate", QRELS, run, *argv)
    expected = _cranfield("evaluate", QRELS, RUN, *argv).replace(str(RUN), str(run))
    if "json" not in mode:  # the same table (the pipe has the file's name)
        assert out == expected
        return
    got, wanted = json.loads(out), json.loads(expected)
    assert got["results"][0]["AP"] == wanted["results"][0]["AP"]
    assert (
        _run_input(got["provenance"]["inputs"])["sha256"]
        == hashlib.sha256(RUN.read_bytes()).hexdigest()
    )


def test_process_substitution_and_standard_input(tmp_path: Path) -> None:
    for mode in EVERY_MODE:
        argv = [str(tmp_path / "store") if a == "STORE" else a for a in mode]
        _cranfield("evaluate", QRELS, f"<(cat {RUN})", *argv, shell=True)
        _cranfield("evaluate", QRELS, "-", *argv, stdin=RUN.read_bytes())
    page = tmp_path / "report.html"
    _cranfield(
        "report",
        QRELS,
        f"<(cat {RUN})",
        f"<(cat {EXAMPLES / 'neural.run'})",
        "-o",
        page,
        shell=True,
    )
    assert page.stat().st_size > 0
    qrels = _fifo(tmp_path, QRELS.read_bytes(), "qrels.fifo")
    out = json.loads(_cranfield("evaluate", qrels, RUN, "-f", "json"))
    sha = out["provenance"]["inputs"]["qrels"]["sha256"]
    assert sha == hashlib.sha256(QRELS.read_bytes()).hexdigest()


def test_a_folder_of_runs_is_refused_as_one_run_and_read_as_many(tmp_path: Path) -> None:
    from cranfield.errors import OptionError
    from cranfield.evaluation.evaluator import Evaluator

    for name in ("bm25.run", "neural.run"):
        (tmp_path / name).write_bytes((EXAMPLES / name).read_bytes())
    evaluator = Evaluator(QRELS, "AP")
    with pytest.raises(OptionError, match="a folder of run files is several"):
        evaluator.evaluate(tmp_path)
    table = evaluator.many([tmp_path])
    assert list(table.names) == ["bm25", "neural"]
    assert table.means()["bm25"] == evaluator.evaluate(tmp_path / "bm25.run").means()


def test_qrels_read_again_under_another_duplicates_rule_are_not_opened_again(
    inputs: dict[str, Path],
) -> None:
    from cranfield.errors import InputError, QrelsNoteWarning
    from cranfield.evaluation.evaluator import Evaluator

    qrels = inputs["qrels"]
    repeated = qrels.read_bytes() + qrels.read_bytes().splitlines(keepends=True)[0]
    qrels.write_bytes(repeated)  # one judgment twice: merged by default, refused by "error"
    with opens(qrels) as counted:
        evaluator = Evaluator(qrels, "AP")
        with pytest.warns(QrelsNoteWarning, match="1 repeated judgment line"):
            assert any("merged" in note for note in evaluator.qrels.notes)
        with pytest.raises(InputError, match="duplicate document 'D101-01' for query '101'"):
            _ = evaluator.with_options(duplicates="error").qrels
    assert counted == Counter({qrels.name: 1})
