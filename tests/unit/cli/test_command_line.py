"""The command line as one whole: the command table, list options in any place, one way to
end (exit codes and messages worded with flags), quiet closed pipes, a light start-up."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield
from cranfield._lazy import install_hint
from cranfield.cli import commands
from cranfield.cli.exits import exit_code, message
from cranfield.cli.main import main
from cranfield.cli.parser import split_list
from cranfield.errors import InputError, MissingTopicError, OptionError

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
BM25 = str(EXAMPLES / "bm25.run")
NEURAL = str(EXAMPLES / "neural.run")
SCRIPT = Path(sys.executable).parent / "cranfield"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def measures_of(out: str) -> list[str]:
    (row, *_) = json.loads(out)["results"]
    return [key for key in row if key not in ("run", "num_queries")]


# --------------------------------------------------------------------------- the table


def test_every_command_of_the_table_is_in_the_help_and_answers_h(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    for command in commands.COMMANDS:
        assert f"  {command.name} " in out
        assert command.help in out
        code, out_h, _ = cli(capsys, command.name, "-h")
        assert code == 0, command.name
        assert out_h.lower().startswith("usage: cranfield")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "--version") == (0, f"cranfield {cranfield.__version__}\n", "")


def test_an_unknown_command_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "evaluat")
    assert code == 1
    assert "unknown command 'evaluat'; give a command first: evaluate, measures," in err


_MODULES_AFTER = (
    "import sys\n"
    "from cranfield.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(sorted(m for m in ('numpy', 'polars', 'scipy', 'rich', 'argparse')"
    " if m in sys.modules), file=sys.stderr)\n"
)


@pytest.mark.parametrize("flag", ["--version", "--help", "-h"])
def test_version_and_help_import_neither_numpy_nor_polars(flag: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _MODULES_AFTER, flag],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == "[]\n"
    assert done.stdout.startswith("cranfield " if flag == "--version" else "usage: cranfield")


_STARTUP_ENV = (
    "import os, sys\n"
    "from cranfield.cli import main as entry\n"
    "entry._exit = lambda code: sys.exit(code)\n"
    "sys.argv = ['cranfield', 'measures', 'AP']\n"
    "try:\n"
    "    entry.run()\n"
    "finally:\n"
    "    print(os.environ.get(VARIABLE), file=sys.stderr)\n"
)


@pytest.mark.parametrize(
    ("variable", "given", "seen"),
    [
        ("OPENBLAS_NUM_THREADS", None, "1"),
        ("OPENBLAS_NUM_THREADS", "2", "2"),
        ("NUMPY_MADVISE_HUGEPAGE", None, "0"),
        ("NUMPY_MADVISE_HUGEPAGE", "1", "1"),
    ],
)
def test_the_command_sets_up_numpy_before_importing_it_unless_told(
    variable: str, given: str | None, seen: str
) -> None:
    """Start-up: OpenBLAS's threads cost every command time and cranfield does no linear
    algebra; numpy's huge-page advice costs large fusions seconds of system time (the kernel
    compacting memory on first touch). A user's own setting is kept."""
    env = {k: v for k, v in os.environ.items() if k != variable}
    if given is not None:
        env[variable] = given
    script = f"VARIABLE = {variable!r}\n" + _STARTUP_ENV
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == seen


# --------------------------------------------------------------------------- list options


def test_measures_before_the_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "evaluate", "-m", "nDCG@10", QRELS, BM25, "-f", "json")
    assert code == 0, err
    assert measures_of(out) == ["nDCG@10"]


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "AP,nDCG@10", QRELS, BM25],
        ["-m", "AP", "-m", "nDCG@10", QRELS, BM25],
        [QRELS, BM25, "-m", "AP", "nDCG@10"],
        [QRELS, "-m", "AP", BM25, "--measure=nDCG@10"],
        [QRELS, BM25, "-mAP", "-f", "json", "-m", "nDCG@10"],
    ],
    ids=["comma", "repeated", "after-files", "between-files", "attached"],
)
def test_measure_lists_anywhere(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = cli(capsys, "evaluate", *argv, "-f", "json")
    assert code == 0, err
    assert measures_of(out) == ["AP", "nDCG@10"]


def test_trec_eval_parameter_lists_keep_their_commas(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "evaluate", "-m", "P.5,10,map", QRELS, BM25, "-f", "json")
    assert code == 0, err
    assert measures_of(out) == ["P@5", "P@10", "AP"]


def test_options_between_the_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "evaluate", QRELS, BM25, "-l", "2", NEURAL, "-m", "AP", "-f", "json"
    )
    assert code == 0, err
    rows = json.loads(out)["results"]
    assert [row["run"] for row in rows] == ["bm25", "neural"]
    assert rows[0]["AP"] == cranfield.evaluate(QRELS, BM25, "AP", relevance_level=2)["AP"]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("evaluate", [QRELS, BM25, "-m", "AP", "-m", "nDCG@10"]),
        ("evaluate", ["-m", "AP,nDCG@10", "-f", "json", QRELS, BM25, NEURAL]),
        ("evaluate", [QRELS, "-m", "AP", BM25, "--measure=nDCG@10", "-q"]),
        ("evaluate", [QRELS, BM25, "-l", "2", NEURAL, "-m", "AP"]),  # for the intermixed pass
        ("evaluate", [QRELS, BM25, "-m", "AP", "nDCG@10", "--depth", "10", "--names", "tag"]),
        ("diff", [QRELS, BM25, "-k", "5", NEURAL]),  # a deprecated flag, noted once
        ("diff", ["-k", "5", QRELS, BM25, NEURAL]),
    ],
    ids=["after", "before", "between-files", "between-runs", "lists", "noted-mixed", "noted"],
)
def test_the_plain_reading_is_the_intermixed_one(command: str, argv: list[str]) -> None:
    """The parser keeps argparse's plain pass only when it reads every word, and then it
    reads them as the intermixed passes (the only reading before) do, notes included."""
    module = importlib.import_module(f"cranfield.cli.{command}")
    seen = io.StringIO()
    parser = module._parser(io.StringIO(), seen)
    got = parser.parse_args(argv)
    reference = module._parser(io.StringIO(), io.StringIO())
    # A namespace given: argparse's intermixed passes alone, as every line was read before.
    mixed, extras = reference._intermixed(reference._spread_lists(argv), argparse.Namespace())
    assert extras == []
    assert {**vars(mixed), "command_prog": f"cranfield {command}"} == vars(got)
    noted = "cranfield: -k of 'diff' is deprecated; use --top-k.\n" if "-k" in argv else ""
    assert seen.getvalue() == noted


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("AP", ["AP"]),
        ("AP,nDCG@10", ["AP", "nDCG@10"]),
        ("P(rel=2)@5,AP", ["P(rel=2)@5", "AP"]),
        ("nDCG(gains={0:0,1:1,2:3})@10,RR", ["nDCG(gains={0:0,1:1,2:3})@10", "RR"]),
        ("P.5,10", ["P.5,10"]),
        ("map,P.5,10,recip_rank", ["map", "P.5,10", "recip_rank"]),
        ("ndcg.1=3,2=9,P@5", ["ndcg.1=3,2=9", "P@5"]),
        ("rbp.1=3,p=0.8,AP", ["rbp.1=3,p=0.8", "AP"]),
        ("map,11pt_avg", ["map", "11pt_avg"]),
        ("0,0.5,1", ["0", "0.5", "1"]),
        ("t-test,wilcoxon", ["t-test", "wilcoxon"]),
        ("AP,", ["AP"]),
    ],
)
def test_the_list_rule(text: str, values: list[str]) -> None:
    assert split_list(text) == values


def test_compare_takes_its_lists_anywhere(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["-m", "AP", "-t", "t-test,wilcoxon", QRELS, BM25, NEURAL, "--ci", "t", "-f", "json"]
    code, out, err = cli(capsys, "compare", *argv)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["measures"] == ["AP"]
    assert doc["method"]["tests"] == ["t-test", "wilcoxon"]


def test_report_takes_measures_before_the_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "r.html"
    code, _, err = cli(
        capsys, "report", "-m", "AP,P@10", QRELS, BM25, NEURAL, "-o", str(target), "--no-curves"
    )
    assert code == 0, err
    assert 'data-measure="P@10"' in target.read_text(encoding="utf-8")


def test_plot_takes_its_lists_anywhere(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "pr.svg"
    argv = ["plot", "pr", "--levels", "0,0.5,1", QRELS, BM25, "-o", str(target)]
    code, _, err = cli(capsys, *argv)
    assert code == 0, err
    assert target.is_file()


def test_a_bad_item_of_a_list_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "compare", QRELS, BM25, NEURAL, "--ci", "t,gauss")
    assert code == 1
    assert "invalid choice: 'gauss'" in err


# --------------------------------------------------------------------------- messages


def test_an_option_error_names_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "evaluate", QRELS, BM25, "-M", "-1")
    assert (code, out) == (1, "")
    assert err == "cranfield evaluate: The --depth option must be an integer >= 0, got -1.\n"


def test_compare_words_option_errors_with_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "compare", QRELS, BM25, NEURAL, "-l", "x")
    assert code == 1
    assert "-l/--relevance-level: invalid int value: 'x'" in err
    code, _, err = cli(capsys, "compare", QRELS, BM25, NEURAL, "--depth", "-3")
    assert code == 1
    assert "The --depth option must be an integer >= 0, got -3." in err


def test_an_option_error_names_the_flag_the_command_declares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The library's option is ``n_resamples``; the command's flag is ``--resamples``."""
    code, _, err = cli(capsys, "compare", QRELS, BM25, NEURAL, "-B", "0", "-t", "randomization")
    assert code == 1
    assert "The --resamples option must be" in err
    code, _, err = cli(capsys, "compare", QRELS, BM25, NEURAL, "-t", "z-test")
    assert code == 1
    assert "The --test option must be" in err


def test_a_missing_topic_is_worded_with_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, NEURAL, "--missing", "error")
    assert code == 2
    assert "use --missing zero to score them 0 or --missing skip to leave them out." in err
    with pytest.raises(MissingTopicError, match="use missing='zero' to score them 0"):
        cranfield.evaluate(QRELS, NEURAL, "AP", missing="error")


def test_policy_notes_are_worded_with_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "evaluate", QRELS, NEURAL, "-m", "AP")
    assert (
        "neural: 8 queries; 1 judged query(ies) absent from the run scored 0 (--missing zero)."
        in out
    )
    _, _, err = cli(capsys, "evaluate", QRELS, NEURAL, "-m", "AP", "--missing", "skip", "-f", "csv")
    assert "absent from the run left out (--missing skip)." in err
    result = cranfield.evaluate(QRELS, NEURAL, "AP")
    assert result.policy_note().endswith("scored 0 (missing='zero').")


def test_user_measures_without_known_say_which_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, BM25, "-m", "Coverage")
    assert code == 2
    assert "give them with --known QRELS." in err


def test_a_merge_conflict_is_worded_with_the_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    qrels, new = tmp_path / "qrels", tmp_path / "new"
    qrels.write_text("q1 0 d1 1\n")
    new.write_text("q1 0 d1 0\n")
    code, _, err = cli(capsys, "lab", "merge", str(qrels), str(new), "-o", str(tmp_path / "m"))
    assert code == 2
    assert "(1 conflict(s); give --on-conflict new or --on-conflict old)" in err
    from cranfield.lab.pooling import merge_judgments

    with pytest.raises(InputError, match="pass on_conflict='new' or 'old'"):
        merge_judgments(qrels, new)


def test_a_missing_file_while_streaming_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(capsys, "evaluate", QRELS, str(tmp_path / "absent.run"), "--stream")
    assert code == 2
    assert "absent.run" in err
    assert err.count("\n") == 1


# --------------------------------------------------------------------------- exit codes


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (OptionError("depth", "an integer >= 0", -1), 1),
        (cranfield.MeasureError("Unknown measure 'x'."), 1),
        (InputError("run.txt", 3, "expected 6 fields"), 2),
        (MissingTopicError(["q1"]), 2),
        (cranfield.EngineError("the engine failed"), 2),
        (FileNotFoundError(2, "No such file or directory", "run.txt"), 2),
        (PermissionError(13, "Permission denied", "run.txt"), 2),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 2),
        (ValueError("alpha must be a number strictly between 0 and 1"), 1),
        (MemoryError(), 2),
    ],
)
def test_one_mapping_from_errors_to_exit_codes(error: Exception, code: int) -> None:
    assert exit_code(error) == code


def test_running_out_of_memory_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_memory(*_: object, **__: object) -> None:
        raise MemoryError

    monkeypatch.setattr(cranfield.evaluation.evaluator.Evaluator, "each", no_memory)
    code, _, err = cli(capsys, "evaluate", QRELS, BM25)
    assert (code, err) == (
        2,
        "cranfield evaluate: out of memory; evaluate a large run with --stream\n",
    )


@pytest.mark.parametrize("stream", [[], ["--stream"]])
def test_the_limits_are_one_line_errors(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    stream: list[str],
) -> None:
    """A line over the longest allowed: exit 2; the variable that sets it wrong: exit 1."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"q1 Q0 d1 1 1.0 " + b"t" * 3000 + b"\n")
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "2KiB")
    code, _, err = cli(capsys, "evaluate", QRELS, str(run), *stream)
    assert (code, err.count("\n")) == (2, 1)
    assert err.startswith(f"cranfield evaluate: {run}:1: is longer than 2 KiB, the longest line")
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "2 kilos")
    code, _, err = cli(capsys, "evaluate", QRELS, str(run), *stream)
    assert (code, err) == (
        1,
        "cranfield evaluate: The environment variable CRANFIELD_MAX_LINE_BYTES must be a "
        "number of bytes >= 1, with or without a unit (such as 1048576, 64KiB or 8MiB), "
        "got '2 kilos'.\n",
    )


def test_bugs_and_closed_pipes_are_not_mapped() -> None:
    assert exit_code(KeyError("x")) is None
    assert exit_code(BrokenPipeError()) is None
    assert (
        exit_code(ModuleNotFoundError("No module named 'cranfield.nope'", name="cranfield.nope"))
        is None
    )


def test_a_missing_optional_dependency_names_its_extra() -> None:
    bare = ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")
    assert exit_code(bare) == 1
    assert (
        message(bare) == "No module named 'pyarrow'; "
        "install the 'arrow' extra from cranfield's clone: pip install '.[arrow]'"
    )
    hinted = ImportError(f"this system needs tantivy; {install_hint('lab')}")
    assert exit_code(hinted) == 1
    assert message(hinted) == str(hinted)


def test_file_errors_name_the_file() -> None:
    error = FileNotFoundError(2, "No such file or directory", "run.txt")
    assert message(error) == "run.txt: No such file or directory."


# --------------------------------------------------------------------------- closed pipes


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", QRELS, BM25, NEURAL],
        ["compare", QRELS, BM25, NEURAL, "-f", "json", "--per-query"],
        ["diff", QRELS, BM25, NEURAL],
        ["evaluate", QRELS, BM25, NEURAL],
        ["evaluate", QRELS, BM25, NEURAL, "-q", "-f", "tsv"],
        ["measures"],
        ["trec-eval", "-q", "-m", "all_trec", QRELS, BM25],
        ["lab", "folds", QRELS, "--folds", "2"],
        ["--help"],
    ],
    ids=lambda argv: "-".join(a for a in argv[:2] if not a.startswith("/")),
)
def test_a_closed_pipe_ends_quietly(argv: list[str]) -> None:
    """``cranfield ... | head -1``: the reader is gone before the command writes."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run(
            [str(SCRIPT), *argv], stdout=write, stderr=subprocess.PIPE, check=False, timeout=120
        )
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr.decode()) == (0, "")


# --------------------------------------------------------------------------- start-up


def test_the_console_script_answers_version(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cranfield.cli.main", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == f"cranfield {cranfield.__version__}\n"
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()[1:]}
    assert not imported & {"numpy", "polars", "scipy", "rich"}


def test_ctrl_c_stops_with_130_and_no_traceback(tmp_path: Path) -> None:
    """SIGINT while a run is being read: exit 130, no traceback, no output. The run
    is a FIFO whose writer stays open without writing, so the command is surely still
    reading when the signal comes."""
    import signal
    import time

    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cranfield.cli.main",
            "evaluate",
            str(qrels),
            str(fifo),
            "--stream",
            "-m",
            "AP",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer = os.open(fifo, os.O_WRONLY)  # waits for the command to open the run
    try:
        os.write(writer, b"q1 Q0 d1 1 1.0 t\n")
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        # The timeout only proves the command does not hang on Ctrl-C; it is far above any
        # load, and how fast the command ends is not asserted (a loaded machine says nothing).
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(writer)
    assert proc.returncode == 130
    assert b"Traceback" not in err
    assert out == b""


def test_a_command_with_sub_commands_answers_as_cranfield_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cranfield.cli.logs import LOGS_COMMANDS

    code, out, _ = cli(capsys, "logs", "--help")
    assert code == 0
    assert out.startswith("usage: cranfield logs [-h] COMMAND ...\n")
    for command in LOGS_COMMANDS:
        assert f"  {command.name} " in out
        code, out_h, _ = cli(capsys, "logs", command.name, "-h")
        assert code == 0
        assert out_h.startswith(f"usage: cranfield logs {command.name} ")
    names = ", ".join(c.name for c in LOGS_COMMANDS)
    assert cli(capsys, "logs") == (
        1,
        "",
        f"usage: cranfield logs [-h] COMMAND ...\ncranfield logs: error: give a command: {names}.\n",
    )
    code, _, err = cli(capsys, "logs", "fly")
    assert code == 1
    assert "cranfield logs: error: unknown command 'fly'; give a command first:" in err
    assert cli(capsys, "logs", "--version")[0] == 1  # only cranfield itself has a version
