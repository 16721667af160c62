"""Outputs are written whole or not at all, and never over the command's own inputs."""

from __future__ import annotations

import errno
import io
import os
import stat
from pathlib import Path

import polars as pl
import pytest

from cranfield import OptionError
from cranfield.cli.main import main
from cranfield.data.qrels import Qrels
from cranfield.io import sink
from cranfield.io.trec import read_qrels, write_qrels

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _run(argv: list[str]) -> tuple[int, str, str]:
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_failed_write_leaves_the_previous_file_and_no_debris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "qrels.txt"
    target.write_text("q 0 old 1\n")
    qrels = Qrels(
        pl.DataFrame(
            {"query_id": ["q"], "iteration": ["0"], "doc_id": ["new"], "relevance": [1]},
            schema={
                "query_id": pl.String,
                "iteration": pl.String,
                "doc_id": pl.String,
                "relevance": pl.Int64,
            },
        )
    )

    def disk_full(self: pl.DataFrame, path: Path, **kwargs: object) -> None:
        Path(path).write_text("q 0 ne")  # half a line, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_csv", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_qrels(qrels, target)
    assert target.read_text() == "q 0 old 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qrels.txt"]
    monkeypatch.undo()
    write_qrels(qrels, target)
    assert read_qrels(target).frame.get_column("doc_id").to_list() == ["new"]


def test_a_new_file_gets_the_umasks_permissions_and_a_replaced_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    fresh = tmp_path / "fresh.txt"
    mask = os.umask(0o022)
    try:
        sink.write_text(fresh, "x\n")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    kept = tmp_path / "kept.txt"
    kept.write_text("old")
    kept.chmod(0o600)
    sink.write_bytes(kept, b"new")
    assert (kept.read_bytes(), stat.S_IMODE(kept.stat().st_mode)) == (b"new", 0o600)


def test_the_report_is_never_written_over_an_input(tmp_path: Path) -> None:
    run = tmp_path / "bm25.run"
    run.write_bytes((EXAMPLES / "bm25.run").read_bytes())
    before = run.read_bytes()
    code, _, err = _run(
        [
            "report",
            str(EXAMPLES / "qrels.txt"),
            str(run),
            str(EXAMPLES / "neural.run"),
            "-m",
            "AP",
            "-o",
            str(run),
        ]
    )
    assert code == 1
    assert err == (
        f"cranfield report: The --output option must be a file that is not one of the "
        f"inputs, got '{run}'.\n"
    )
    assert run.read_bytes() == before


def test_a_pool_is_never_exported_over_an_input(tmp_path: Path) -> None:
    run = tmp_path / "bm25.run"
    run.write_bytes((EXAMPLES / "bm25.run").read_bytes())
    before = run.read_bytes()
    code, _, err = _run(
        ["lab", "pool", str(run), str(EXAMPLES / "neural.run"), "--export", str(run)]
    )
    assert code == 1
    assert "The --export option must be a file that is not one of the inputs" in err
    assert run.read_bytes() == before


def test_merge_may_replace_its_qrels_whole(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\n")
    new = tmp_path / "new.txt"
    new.write_text("q1 0 b 0\n")
    code, _, err = _run(["lab", "merge", str(qrels), str(new), "-o", str(qrels)])
    assert code == 0, err
    assert qrels.read_text() == "q1 0 a 1\nq1 0 b 0\n"


def test_refuse_overwriting_ignores_in_memory_inputs_and_stdout(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    sink.refuse_overwriting("-", [target], option="output")
    sink.refuse_overwriting(target, [{"q": {"d": 1.0}}, None], option="output")
    target.write_text("x")
    with pytest.raises(OptionError):
        sink.refuse_overwriting(target, [str(target)], option="output")


def test_a_name_near_the_file_system_limit_can_be_written(tmp_path: Path) -> None:
    """The temporary name is longer than the target's: it must not hit NAME_MAX (255)."""
    target = tmp_path / ("é" * 100 + "x" * 50 + ".run")  # 254 bytes in UTF-8
    sink.write_text(target, "q1 Q0 d 1 1 t\n")
    assert target.read_text() == "q1 Q0 d 1 1 t\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_writing_names_the_target_not_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    with (
        pytest.raises(OSError, match=rf"cannot write {target}: No space left") as caught,
        sink.writing(target),
        sink.replacing(target) as tmp,
    ):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))
    assert caught.value.errno == errno.ENOSPC
    with pytest.raises(BrokenPipeError), sink.writing(target):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


@pytest.mark.parametrize(
    ("raised", "kind", "reason"),
    [
        (OSError(28, "No space left on device"), OSError, "No space left on device"),
        (PermissionError(13, "Permission denied"), PermissionError, "Permission denied"),
        # polars words a failed write without an errno
        (OSError("No space left on device (os error 28)"), OSError, "(os error 28)"),
    ],
)
def test_a_failed_write_names_the_file_asked_for(
    tmp_path: Path, raised: OSError, kind: type[OSError], reason: str
) -> None:
    """Not the temporary file, which no user knows of: the CLI prints ``PATH: REASON.``"""
    target = tmp_path / "out.txt"
    with pytest.raises(kind) as caught, sink.replacing(target):
        raise raised
    assert caught.value.filename == str(target)
    assert reason in (caught.value.strerror or "")
    assert caught.value.__cause__ is raised
    assert list(tmp_path.iterdir()) == []
