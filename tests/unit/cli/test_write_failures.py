"""A full disk in the middle of every command that writes a file: the previous file survives
byte for byte, nothing is left beside it, and the command ends with one line naming the
file it could not write (exit 2), never a traceback.

The disk is filled by :class:`FullDisk`: once armed, a file opened for writing in the
test's folder takes a few bytes, then its next write raises ``OSError(ENOSPC)``, as the
kernel's ``write`` does on a full disk; polars' writers (TREC text, Parquet) write half
their bytes, then raise what polars raises when the disk is full (an ``OSError`` for
text, a ``ComputeError`` for Parquet)."""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cranfield.cli.main import main
from cranfield.data.run import Run
from cranfield.io.columnar import write_parquet
from cranfield.io.trec import read_run

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PREVIOUS = b"the previous file, which must survive\n"
NO_SPACE = os.strerror(errno.ENOSPC)


class _Filling:
    """A file being written on a disk with ``room`` bytes left."""

    def __init__(self, file: Any, disk: FullDisk) -> None:
        self._file = file
        self._disk = disk

    def write(self, data: Any) -> int:
        if len(data) > self._disk.room:
            self._file.write(data[: self._disk.room])
            self._file.flush()
            self._disk.room = 0
            self._disk.failed += 1
            raise OSError(errno.ENOSPC, NO_SPACE)
        self._disk.room -= len(data)
        return int(self._file.write(data))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def fileno(self) -> int:
        # Writers that write to the descriptor itself (PIL) write through write() instead.
        raise io.UnsupportedOperation("fileno")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __enter__(self) -> _Filling:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._file)


class FullDisk:
    """A disk under ``folder`` that fills once :meth:`armed`: the first ``spare`` files are
    written whole, the next one gets ``room`` bytes."""

    def __init__(
        self, folder: Path, monkeypatch: pytest.MonkeyPatch, *, spare: int = 0, room: int = 64
    ) -> None:
        self.folder = folder.resolve()
        self.spare = spare
        self.room = room
        self.written = 0  # files opened for writing
        self.failed = 0
        self._monkeypatch = monkeypatch

    def _fills(self, file: object) -> bool:
        """Whether this new file, opened for writing, is where the disk fills."""
        if not self._inside(file):
            return False
        self.written += 1
        return self.written > self.spare

    def _inside(self, file: object) -> bool:
        try:
            return Path(os.fspath(file)).resolve().is_relative_to(self.folder)  # type: ignore[arg-type]
        except TypeError:
            return False

    @contextlib.contextmanager
    def armed(self) -> Iterator[FullDisk]:
        real_open = builtins.open
        real_csv, real_parquet = pl.DataFrame.write_csv, pl.DataFrame.write_parquet

        def filling_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            opened = real_open(file, mode, *args, **kwargs)
            if any(c in mode for c in "wax") and self._fills(file):
                return _Filling(opened, self)
            return opened

        def half_csv(frame: pl.DataFrame, file: Any = None, **kwargs: Any) -> Any:
            if file is None or not self._fills(file):
                return real_csv(frame, file, **kwargs)
            text = real_csv(frame, None, **kwargs).encode()
            with real_open(file, "wb") as fh:
                fh.write(text[: len(text) // 2])
            self.failed += 1
            raise OSError(f"{NO_SPACE} (os error {errno.ENOSPC})")  # as polars words it

        def half_parquet(frame: pl.DataFrame, file: Any, **kwargs: Any) -> None:
            if not self._fills(file):
                return real_parquet(frame, file, **kwargs)
            buffer = io.BytesIO()
            real_parquet(frame, buffer, **kwargs)
            with real_open(file, "wb") as fh:
                fh.write(buffer.getvalue()[: buffer.tell() // 2])
            self.failed += 1
            raise pl.exceptions.ComputeError(
                f"parquet: File out of specification: underlying IO error: {NO_SPACE} "
                f"(os error {errno.ENOSPC})"
            )

        with self._monkeypatch.context() as patch:
            patch.setattr(builtins, "open", filling_open)
            patch.setattr(io, "open", filling_open)
            patch.setattr(pl.DataFrame, "write_csv", half_csv)
            patch.setattr(pl.DataFrame, "write_parquet", half_parquet)
            yield self


def _files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _command(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _fails_cleanly(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    target: Path,
    prepare: Callable[[], None] | None = None,
) -> str:
    """Run ``argv`` on a full disk; check what must hold and return the error line."""
    if prepare is not None:
        prepare()
    else:
        target.write_bytes(PREVIOUS)
    before = _files(folder)
    with FullDisk(folder, monkeypatch).armed() as disk:
        code, _, err = _command(argv)
    assert disk.failed, "nothing was written: the test does not test"
    assert _files(folder) == before  # the previous file as it was, and no debris beside it
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert str(target) in err, err
    assert NO_SPACE in err, err
    assert "Traceback" not in err, err
    return err


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    for name in ("qrels.txt", "bm25.run", "neural.run"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return [str(tmp_path / name) for name in ("qrels.txt", "bm25.run", "neural.run")]


def test_report(tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.html"
    argv = ["report", *inputs, "-m", "AP", "--no-curves", "-o", str(target)]
    err = _fails_cleanly(tmp_path, monkeypatch, argv, target)
    assert err == f"cranfield report: cannot write {target}: {NO_SPACE}.\n"


@pytest.mark.parametrize(
    "fmt",
    [
        "svg",
        "png",
        # matplotlib's PDF writer leaves its file open when a write fails (it is removed all
        # the same, and closed when the object goes): not cranfield's to fix.
        pytest.param(
            "pdf",
            marks=pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
        ),
    ],
)
def test_plot(tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / f"pr.{fmt}"
    argv = ["plot", "pr", *inputs, "-o", str(target)]
    err = _fails_cleanly(tmp_path, monkeypatch, argv, target)
    assert err == f"cranfield plot pr: cannot write {target}: {NO_SPACE}.\n"


@pytest.mark.parametrize("fmt", ["qrels", "tsv"])
def test_pool_export(
    tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    target = tmp_path / "pool.txt"
    argv = ["lab", "pool", *inputs[1:], "--export", str(target), "--export-format", fmt]
    _fails_cleanly(tmp_path, monkeypatch, argv, target)


def test_merge_over_its_own_judgments(
    tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's case: ``lab merge q.txt new.txt -o q.txt`` on a full disk."""
    qrels = Path(inputs[0])
    new = tmp_path / "new.txt"
    argv = ["lab", "merge", str(qrels), str(new), "-o", str(qrels)]
    _fails_cleanly(
        tmp_path, monkeypatch, argv, qrels, prepare=lambda: new.write_text("101 0 zz 1\n")
    )


LAB = """
[experiment]
workdir = "out"
measures = ["AP"]
k = 10

[collection]
format = "trec"
qrels = "qrels.txt"
topics = "topics.tsv"
documents = "docs.jsonl"

[[systems]]
name = "bm25"
engine = "run"
path = "bm25.run"
"""


def test_lab_run_keeps_its_previous_results(
    tmp_path: Path, inputs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh run on a full disk: the results, report and cached run of the run before are
    kept whole, whichever file the disk fills on."""
    queries = sorted({line.split()[0] for line in Path(inputs[0]).read_text().splitlines()})
    (tmp_path / "topics.tsv").write_text("".join(f"{q}\tquery {q}\n" for q in queries))
    docs = {line.split()[2] for line in Path(inputs[0]).read_text().splitlines()}
    lines = [json.dumps({"doc_id": d, "text": "text"}) + "\n" for d in sorted(docs)]
    (tmp_path / "docs.jsonl").write_text("".join(lines))
    config = tmp_path / "lab.toml"
    config.write_text(LAB)
    argv = ["lab", "run", str(config), "--quiet", "--no-efficiency", "--fresh"]
    with FullDisk(tmp_path, monkeypatch, spare=1000).armed() as counting:
        code, _, err = _command(argv)
    assert code == 0, err
    assert counting.written >= 3  # the run, the results, the report
    for spare in range(counting.written):
        before = _files(tmp_path)
        with FullDisk(tmp_path, monkeypatch, spare=spare).armed() as disk:
            code, _, err = _command(argv)
        after = _files(tmp_path)
        assert disk.failed
        assert (code, err.count("\n")) == (2, 1), err
        assert err.startswith(f"cranfield lab run: cannot write {tmp_path / 'out'}"), err
        assert "Traceback" not in err
        assert set(after) == set(before)  # no debris
        failed_on = Path(err.split(": ")[1].removeprefix("cannot write "))
        assert after[failed_on] == before[failed_on]
        for path in (p for p in after if after[p] != before[p]):  # written before the disk filled
            assert _whole(path), path


def _whole(path: Path) -> bool:
    """Whether a file the lab writes is complete."""
    text = path.read_text()
    if path.suffix == ".json":
        return isinstance(json.loads(text), (dict, list))
    if path.suffix == ".html":
        return text.rstrip().endswith("</html>")
    return bool(read_run(path).frame.height)


def test_parquet_written_by_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No command writes Parquet; the library's writer keeps the previous file too."""
    target = tmp_path / "run.parquet"
    target.write_bytes(PREVIOUS)
    run = Run(pl.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0]}))
    with FullDisk(tmp_path, monkeypatch).armed(), pytest.raises(pl.exceptions.ComputeError):
        write_parquet(run, target)
    assert _files(tmp_path) == {target: PREVIOUS}
