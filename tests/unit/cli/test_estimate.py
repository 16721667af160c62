"""``cranfield estimate`` and ``cranfield pool sample``: a design written, judged, estimated."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cranfield.cli.commands import main as cranfield
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
RUN = str(EXAMPLES / "bm25.run")


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cranfield(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_sample_judge_estimate(tmp_path: Path) -> None:
    design, prels = tmp_path / "design.txt", tmp_path / "prels.txt"
    code, out, err = run(
        [
            "pool",
            "sample",
            RUN,
            "--strata",
            "1-5:1,6-:0.5",
            "-o",
            str(design),
            "--prels",
            str(prels),
        ]
    )
    assert code == 0, err
    assert out.splitlines()[0].split() == ["stratum", "pooled", "sampled"]
    # not judged yet: one sentence, exit 2
    code, _, err = run(["estimate", "inferred", str(design), RUN])
    assert code == 2
    assert "not judged yet (relevance -2)" in err
    assert err.count("\n") == 1
    # judge every sampled document relevant
    design.write_text(design.read_text().replace(" -2\n", " 1\n"))
    prels.write_text(prels.read_text().replace(" -2 1 ", " 1 1 "))
    code, out, err = run(["estimate", "inferred", str(design), RUN, "-q"])
    assert code == 0, err
    assert out.splitlines()[0].startswith("infAP\t\t")
    assert "iprec@rec0.00\tall\t\t" in out
    code, out, err = run(["estimate", "statap", str(prels), RUN, "--compat", "statap"])
    assert code == 0, err
    assert out.startswith("\n valid_topics=")
    code, out, err = run(["estimate", "statap", str(prels), RUN, "-f", "json"])
    assert code == 0, err
    assert json.loads(out)["summary"]["statMAP"] > 0


def test_a_probability_outside_the_unit_interval_exits_2(tmp_path: Path) -> None:
    prels = tmp_path / "prels"
    prels.write_text("101 D101-13 1 1 0.5\n101 D101-12 1 1 1.2\n")
    code, out, err = run(["estimate", "statap", str(prels), RUN])
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield estimate statap: {prels}:2: the inclusion probability must be in (0, 1], "
        "got '1.2': '101 D101-12 1 1 1.2'\n"
    )


def test_a_stratum_with_no_population_exits_2(tmp_path: Path) -> None:
    code, _, err = run(
        ["pool", "sample", RUN, "--strata", "1-5:1,900-:0.5", "-o", str(tmp_path / "d")]
    )
    assert code == 2
    assert err == (
        "cranfield pool sample: stratum 900- holds no pooled document in any topic: its rate "
        "samples nothing; change the strata or the pool depth.\n"
    )


def test_a_prior_sample_for_statap(tmp_path: Path) -> None:
    prels = tmp_path / "prels.txt"
    code, out, err = run(["pool", "sample", RUN, "--sample-size", "20", "-o", str(prels)])
    assert code == 0, err
    lines = prels.read_text().splitlines()
    assert out.startswith(f"Wrote {len(lines)} documents to judge to {prels}")
    assert all(line.split()[2:4] == ["-2", "1"] for line in lines)
    assert all(0 < float(line.split()[4]) <= 1 for line in lines)
    code, _, err = run(["pool", "sample", RUN, "-o", str(prels)])
    assert code == 1
    assert "give --strata or --sample-size" in err


@pytest.mark.parametrize(
    ("prob", "problem"),
    [
        ("-0.5", "the inclusion probability must be in (0, 1], got '-0.5'"),
        ("0", "the inclusion probability must be in (0, 1], got '0'"),
        ("1.0000001", "the inclusion probability must be in (0, 1], got '1.0000001'"),
        ("1e-400", "the inclusion probability must be in (0, 1], got '1e-400'"),  # 0 as a float
        ("nan", "the probability must be a finite number, got 'nan'"),
        ("inf", "the probability must be a finite number, got 'inf'"),
    ],
)
@pytest.mark.parametrize("compat", [[], ["--compat", "statap"]])
def test_every_probability_outside_the_unit_interval_is_one_sentence(
    tmp_path: Path, prob: str, problem: str, compat: list[str]
) -> None:
    """Both modes refuse it (the script skips a probability above 1 or below 0 and divides by
    0), naming the file, the line and the text."""
    prels = tmp_path / "prels"
    prels.write_text(f"101 D101-13 1 1 0.5\n101 D101-12 1 1 {prob}\n")
    code, out, err = run(["estimate", "statap", str(prels), RUN, *compat])
    assert (code, out) == (2, "")
    assert err == f"cranfield estimate statap: {prels}:2: {problem}: '101 D101-12 1 1 {prob}'\n"


def test_overlapping_strata_are_refused(tmp_path: Path) -> None:
    code, _, err = run(
        ["pool", "sample", RUN, "--strata", "1-5:1,3-9:0.5", "-o", str(tmp_path / "d")]
    )
    assert code == 1
    assert err == (
        "cranfield pool sample: The --strata option must be ranges that do not overlap, got "
        "'1-5 and 3-9'.\n"
    )
    assert not (tmp_path / "d").exists()
