"""An ir_datasets id where a qrels path is (``cranfield.io.irds``): read from the local cache,
offline, never downloaded.

ir_datasets binds its cache folder (``IR_DATASETS_HOME``) when it is imported, so the tests
that read a cache run in a new interpreter whose home is a folder built here: a tiny copy of
the one file ir_datasets keeps the qrels of ``msmarco-passage/trec-dl-2019`` in
(``msmarco-passage/trec-dl-2019/qrels``, TREC qrels text, the ``cache_path`` of
``trec-dl-2019/qrels`` in ir_datasets' ``etc/downloads.json``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield
from cranfield.cli.main import main
from cranfield.io.irds import looks_like_id

DL19 = "msmarco-passage/trec-dl-2019/judged"
DL20 = "msmarco-passage/trec-dl-2020/judged"  # registered, not in the home built here
QRELS = "19335 0 1017759 0\n19335 0 1082489 1\n19335 0 109063 3\n47923 0 1034183 2\n"
RUN = "19335 Q0 109063 1 3.0 bm25\n19335 Q0 1017759 2 2.0 bm25\n47923 Q0 1034183 1 1.0 bm25\n"


def _home(tmp_path: Path) -> Path:
    """An ir_datasets home whose cache holds the qrels of TREC DL 2019 (passages), and a run."""
    home = tmp_path / "irds"
    (home / "msmarco-passage" / "trec-dl-2019").mkdir(parents=True)
    (home / "msmarco-passage" / "trec-dl-2019" / "qrels").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return home


def _python(code: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new interpreter with ``home`` as ir_datasets' home, in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "IR_DATASETS_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_what_looks_like_an_id() -> None:
    for name in (DL19, "vaswani", "car/v1.5/trec-y1", "beir/trec-covid", "argsme/1.0"):
        assert looks_like_id(name), name
    for name in ("qrels.txt", "runs/bm25.run.gz", "/abs/path", "./vaswani", "-", "Qrels", "a b"):
        assert not looks_like_id(name), name
    assert not looks_like_id(Path(DL19))  # a Path is always a path
    assert not looks_like_id("tests")  # an existing folder is a path


def test_the_qrels_of_an_id_are_read_from_the_cache(tmp_path: Path) -> None:
    home = _home(tmp_path)
    code = f"""
import json, cranfield
qrels = cranfield.load_qrels({DL19!r})
res = cranfield.evaluate({DL19!r}, "run.txt", ["AP", "P@2"])
print(json.dumps({{
    "name": qrels.name,
    "rows": qrels.frame.select("query_id", "iteration", "doc_id", "relevance").rows(),
    "notes": list(qrels.notes),
    "means": {{m: res[m] for m in ("AP", "P@2")}},
    "qrels": res.provenance().to_dict()["inputs"]["qrels"],
}}))
"""
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["name"] == DL19
    assert got["rows"] == [
        ["19335", "0", "1017759", 0],
        ["19335", "0", "1082489", 1],
        ["19335", "0", "109063", 3],
        ["47923", "0", "1034183", 2],
    ]
    assert got["notes"] == [f"{DL19}: read from ir_datasets' local cache."]
    # q 19335: 2 relevant, the first retrieved, then a non-relevant one; q 47923: 1 of 1
    assert got["means"] == {"AP": (0.5 + 1.0) / 2, "P@2": (0.5 + 0.5) / 2}
    cached = home / "msmarco-passage" / "trec-dl-2019" / "qrels"
    assert got["qrels"] == {
        "source": DL19,
        "sha256": hashlib.sha256(cached.read_bytes()).hexdigest(),
        "file": str(cached),
    }


def test_the_command_line_takes_an_id_and_never_downloads(tmp_path: Path) -> None:
    home = _home(tmp_path)
    code = f"""
import sys
from cranfield.cli.main import main
for qrels in ({DL19!r}, {DL20!r}):
    print("exit", main(["evaluate", qrels, "run.txt", "-m", "AP", "-f", "csv"]), flush=True)
"""
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["run,num_queries,AP", "run,2,0.75", "exit 0", "exit 2"]
    assert (
        f"cranfield evaluate: {DL20}: is an ir_datasets dataset whose qrels are not in "
        f"ir_datasets' local cache ({home}), and cranfield never downloads; fetch them once "
        f"with: ir_datasets export {DL20} qrels > /dev/null\n"
    ) in done.stderr
    assert not (home / "msmarco-passage" / "trec-dl-2020" / "qrels").exists()


def test_an_id_is_taken_for_known_judgments_and_by_check(tmp_path: Path) -> None:
    """Wherever a qrels path is: ``--known`` and ``check --qrels`` take an id too, with the
    answers the same judgments give as a file."""
    home = _home(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    code = f"""
from cranfield.cli.main import main
for known in ({DL19!r}, "qrels.txt"):
    main(["evaluate", "qrels.txt", "run.txt", "-m", "Coverage", "--known", known, "-f", "csv"])
for qrels in ({DL19!r}, "qrels.txt"):
    print("exit", main(["check", "run.txt", "--qrels", qrels, "-f", "json"]), flush=True)
"""
    done = _python(code, home, tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "run,num_queries,Coverage"
    assert lines[1] == lines[3]
    assert float(lines[1].split(",")[2]) > 0
    reports = "\n".join(lines[4:]).split("\nexit ")
    assert [r.split("\n", 1)[0] for r in reports[1:]] == ["0", "0"]
    by_id = json.loads(reports[0])
    by_file = json.loads(reports[1].split("\n", 1)[1])
    assert by_id["qrels"] == DL19
    assert by_file["qrels"] == "qrels.txt"
    assert by_id["files"] == by_file["files"]


def test_a_name_that_is_neither_a_file_nor_an_id_cannot_be_read(tmp_path: Path) -> None:
    done = _python(
        "from cranfield.cli.main import main\n"
        "raise SystemExit(main(['evaluate', 'msmarco-passage/nope', 'run.txt', '-m', 'AP']))",
        _home(tmp_path),
        tmp_path,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "cranfield evaluate: msmarco-passage/nope: cannot read file (No such file or directory)\n"
    )


def test_without_ir_datasets_the_message_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets fails
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.txt").write_text(RUN)
    sentence = (
        f"'{DL19}' is no file; reading it as an ir_datasets id needs ir_datasets, which is "
        "not installed; install the 'irds' extra from cranfield's clone: pip install '.[irds]'"
    )
    with pytest.raises(ModuleNotFoundError) as raised:
        cranfield.load_qrels(DL19)
    assert str(raised.value) == sentence
    assert main(["evaluate", DL19, "run.txt", "-m", "AP"]) == 1
    assert capsys.readouterr().err == f"cranfield evaluate: {sentence}\n"
    with pytest.raises(cranfield.InputError, match=r"qrels\.txt: cannot read file"):
        cranfield.load_qrels("qrels.txt")  # a file name is never taken for an id
