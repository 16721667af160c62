"""``cranfield logs ab``: an A/B test from a sessions table, as text and JSON; the unit of
randomisation; bad options (exit 1) and bad tables (exit 2) in one line naming the flag or
the file, line and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.io.metric_table import read_metric_table
from cranfield.logs.ab_test import ab_test

EXAMPLE = str(Path(__file__).resolve().parents[3] / "examples" / "sessions.csv")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["logs", "ab", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_names_the_buckets_the_unit_and_the_units_needed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, EXAMPLE, "--metric", "clicks", "--unit", "user", "--mde", "0.5,1")
    assert (code, err) == (0, "")
    assert out.startswith("A/B test of clicks: B against A\nunit of randomisation: user\n")
    assert "A (control)" in out
    assert "B (treatment)" in out
    table = read_metric_table(EXAMPLE, metric="clicks", bucket="bucket", unit="user")
    expected = ab_test(table.values, table.buckets, units=table.units)
    assert f"p = {expected.p_value:.4g} " in out
    assert f"  0.5: {expected.units_needed(0.5)}\n" in out


def test_json_and_clustering_by_user_widens_the_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = cli(capsys, EXAMPLE, "--metric", "clicks", "--unit", "user", "-f", "json")
    assert code == 0
    by_user = json.loads(out)
    code, out, _ = cli(capsys, EXAMPLE, "--metric", "clicks", "-f", "json")
    by_session = json.loads(out)
    assert by_user["difference"] == by_session["difference"]
    assert by_user["standard_error"] > by_session["standard_error"]
    assert (by_user["unit"], by_session["unit"]) == ("user", "row")
    assert by_user["control"]["units"] == 20
    assert by_session["control"]["units"] == by_session["control"]["rows"]


def test_a_ratio_metric_and_a_chosen_control(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [EXAMPLE, "--metric", "clicks", "--denominator", "shown", "--unit", "user"]
    code, out, _ = cli(capsys, *argv, "--control", "B", "-f", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["control"]["name"] == "B"
    assert doc["difference"] < 0
    assert 0 < doc["treatment"]["mean"] < 1  # clicks per result shown


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--alpha", "2"], "The --alpha option must be a number > 0 and < 1, got 2.0."),
        (["--mde", "0"], "The --mde option must be a number > 0, got 0.0."),
        (["--power", "1.5"], "The --power option must be a number > 0 and < 1, got 1.5."),
        (["--control", "C"], "The --control option must be one of 'A', 'B', got 'C'."),
        (["--bucket", "user"], "The --bucket option must be exactly two distinct buckets"),
    ],
)
def test_bad_options_are_usage_errors_naming_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = cli(capsys, EXAMPLE, "--metric", "clicks", *argv)
    assert (code, out) == (1, "")
    assert err.startswith(f"cranfield logs ab: {message}")
    assert err.count("\n") == 1


def test_no_metric_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, EXAMPLE)
    assert code == 1
    assert "--metric" in err


@pytest.mark.parametrize(
    ("text", "argv", "message"),
    [
        ("user,bucket,clicks\nu1,A,1\n", ["--metric", "dwell"], ":1: has no column 'dwell'"),
        ("user,bucket,clicks\nu1,A,1\nu2,B,?\n", ["--metric", "clicks"], ":3: column 'clicks'"),
        (
            "user,bucket,clicks\nu1,A,1\nu2,B,1\nu1,B,0\n",
            ["--metric", "clicks", "--unit", "user"],
            ":4: unit 'u1' is in two buckets",
        ),
    ],
)
def test_bad_tables_are_data_errors_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, argv: list[str], message: str
) -> None:
    path = tmp_path / "sessions.csv"
    path.write_text(text)
    code, out, err = cli(capsys, str(path), *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"cranfield logs ab: {path}{message}")
    assert err.count("\n") == 1


def test_a_missing_table_is_a_data_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(capsys, str(tmp_path / "none.csv"), "--metric", "clicks")
    assert code == 2
    assert "none.csv" in err
    assert "Traceback" not in err


def test_a_table_on_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    text = Path(EXAMPLE).read_bytes().replace(b",", b"\t")  # TSV, told by its header
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    code, out, err = cli(capsys, "-", "--metric", "clicks", "--unit", "user", "-f", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["control"]["units"] == 20
