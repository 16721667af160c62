"""The export (:mod:`cranfield.workbench.export`, ``cranfield judge export``): a scripted
session entered through the web forms comes out as qrels equal, byte for byte, to the
judgments entered; the provenance record; per-assessor qrels for ``cranfield agree``; the
export evaluates at once."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cranfield.cli.commands import main as cranfield
from cranfield.errors import EvaluationError
from cranfield.workbench import create_app, export
from tests.unit.workbench.conftest import Inputs, Team, csrf_of, log_in

# what each assessor enters, topic by topic, in the order the screen shows the documents
# (None: skipped); the organiser settles topic 1's d2 (ann 0, bob 1) as 0
SCRIPT: dict[str, dict[str, dict[str, int | None]]] = {
    "ann": {"1": {"d1": 2, "d2": 0, "d3": 1, "d6": None}, "2": {"d4": 3, "d5": 0, "d1": 1}},
    "bob": {"1": {"d1": 2, "d2": 1, "d3": 1, "d6": 0}},
}
EXPECTED = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n1 0 d6 0\n2 0 d1 1\n2 0 d4 3\n2 0 d5 0\n"


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cranfield(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def scripted_session(team: Team) -> None:
    """Enter :data:`SCRIPT` through the forms, and the organiser's adjudication."""
    app = create_app(team.project)
    for name, topics in SCRIPT.items():
        c = TestClient(app)
        assert log_in(c, name, team.passwords[name]).status_code == 303
        for topic, labels in topics.items():
            for _ in labels:
                page = c.get(f"/judge?topic={topic}")
                found = re.search(r'name="doc" value="([^"]+)"', page.text)
                assert found is not None
                label = labels[found.group(1)]
                data = {"csrf": csrf_of(page.text), "topic": topic, "doc": found.group(1)}
                data.update({"skip": "1"} if label is None else {"label": str(label)})
                assert c.post("/judge", data=data, follow_redirects=False).status_code == 303
            assert 'id="done"' in c.get(f"/judge?topic={topic}").text
    org = TestClient(app)
    log_in(org, "org", team.passwords["org"])
    page = org.get("/organiser")
    data = {"csrf": csrf_of(page.text), "topic": "1", "doc": "d2", "label": "0"}
    assert org.post("/adjudicate", data=data, follow_redirects=False).status_code == 303


def check_export(team: Team, tmp_path: Path) -> dict[str, Any]:
    """Export through the command line; the qrels are :data:`EXPECTED` byte for byte, and
    ``cranfield evaluate`` and ``cranfield agree`` read what was written."""
    qrels = tmp_path / "qrels.txt"
    code, out, err = cli(
        [
            "judge",
            "export",
            str(team.project.folder),
            "-o",
            str(qrels),
            "--per-assessor",
            str(tmp_path / "per"),
        ]
    )
    assert code == 0, err
    assert qrels.read_bytes() == EXPECTED.encode()
    assert out.startswith(
        f"{qrels}: 7 judged documents (6 agreed, 1 adjudicated, 0 by --on-conflict error); "
        "not written: 0 skipped, 0 unjudged."
    )
    per = tmp_path / "per"
    assert (per / "assessor-1.txt").read_text() == (
        "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n2 0 d1 1\n2 0 d4 3\n2 0 d5 0\n"
    )
    assert (per / "assessor-2.txt").read_text() == "1 0 d1 2\n1 0 d2 1\n1 0 d3 1\n1 0 d6 0\n"
    # run a: topic 1 d1 d2 d3, topic 2 d4 d5. P@2 = (1/2 + 1/2) / 2; AP = ((1 + 2/3) / 2 + 1/2) / 2
    runs = team.project.runs()
    code, out, err = cli(["evaluate", str(qrels), str(runs["a"]), "-m", "P@2", "AP", "-f", "json"])
    assert code == 0, err
    result = json.loads(out)["results"][0]
    assert result["num_queries"] == 2
    assert result["P@2"] == 0.5
    assert result["AP"] == pytest.approx(((1 + 2 / 3) / 2 + 0.5) / 2)
    code, out, err = cli(["agree", str(per / "assessor-1.txt"), str(per / "assessor-2.txt")])
    assert code == 0, err
    # 3 shared: ann 2 0 1, bob 2 1 1; observed 2/3, chance 1/3: kappa 0.5
    assert "3 pairs judged by both" in out
    assert "Cohen's kappa 0.5000" in out
    return json.loads((tmp_path / "qrels.txt.provenance.json").read_text())


def test_a_scripted_session_exports_byte_for_byte_on_sqlite(team: Team, tmp_path: Path) -> None:
    scripted_session(team)
    record = check_export(team, tmp_path)
    assert record["database"] == "sqlite"
    assert (record["strategy"], record["seed"], record["pool"]["depth"]) == ("pool", 0, 2)
    assert record["strategies_used"] == ["pool"]
    assert record["pool"]["runs"] == ["a", "b"]
    assert [a["assessor"] for a in record["assessors"]] == [
        "assessor-1",
        "assessor-2",
        "assessor-3",
    ]
    assert [(a["judgments"], a["skipped"]) for a in record["assessors"]] == [(6, 1), (4, 0), (0, 0)]
    assert "ann" not in json.dumps(record)
    assert record["documents"] == {
        "agreed": 6,
        "adjudicated": 1,
        "resolved": 0,
        "skipped": 0,
        "unjudged": 0,
    }


def test_an_unadjudicated_disagreement_fails_the_export_unless_a_policy_says(
    team: Team, tmp_path: Path
) -> None:
    p = team.project
    ann, bob = p.assessor("ann").id, p.assessor("bob").id
    p.judge(ann, "1", "d1", 2)
    p.judge(bob, "1", "d1", 0)
    p.judge(bob, "1", "d2", None)
    code, _, err = cli(["judge", "export", str(p.folder), "-o", str(tmp_path / "q.txt")])
    assert code == 2
    assert err == (
        "cranfield judge export: 1 document is labelled differently by their assessors and not "
        "adjudicated (the first: topic 1, document d1); adjudicate on the organiser's page or "
        "choose another --on-conflict.\n"
    )
    assert not (tmp_path / "q.txt").exists()
    done = export(p, tmp_path / "q.txt", on_conflict="max", reveal=True)
    assert (tmp_path / "q.txt").read_text() == "1 0 d1 2\n"
    assert done.record["documents"]["skipped"] == 1
    assert [a["assessor"] for a in done.record["assessors"]] == ["ann", "bob", "org"]
    export(p, tmp_path / "q.txt", on_conflict="latest")
    assert (tmp_path / "q.txt").read_text() == "1 0 d1 0\n"
    export(p, tmp_path / "q.csv", on_conflict="latest")
    assert (tmp_path / "q.csv").read_text() == "query_id,doc_id,relevance\n1,d1,0\n"


def test_nothing_judged_is_nothing_to_export(team: Team, tmp_path: Path) -> None:
    with pytest.raises(EvaluationError, match="has no judgments to export yet"):
        export(team.project, tmp_path / "q.txt")


def test_the_command_line_makes_a_project_and_says_what_it_left_out(
    inputs: Inputs, tmp_path: Path
) -> None:
    folder = tmp_path / "p"
    argv = [
        "judge",
        "init",
        str(folder),
        "--pool",
        *map(str, inputs.runs),
        "--topics",
        str(inputs.topics),
        "--docs",
        str(inputs.docs),
        "--pool-depth",
        "2",
        "--grades",
        "0=No,1=Yes",
    ]
    code, out, err = cli(argv)
    assert code == 0, err
    assert out.splitlines()[:2] == [
        f"{folder}: 2 topics, 7 pooled documents from 2 runs at pool depth 2, shuffled with seed 0; "
        "scale 0=No, 1=Yes; database sqlite.",
        f"Left out: 1 topic of {inputs.topics} that no run answers, 1 document of {inputs.docs} "
        "that no run pooled.",
    ]
    code, out, err = cli(["judge", "assessor", "add", str(folder), "ann", "--query", "1,2"])
    assert code == 0, err
    assert re.fullmatch(
        r"assessor ann added to \S+; password \(shown once\): \S{16}\nann's topics: 1, 2\n", out
    )
    code, out, err = cli(["judge", "assessor", "assign", str(folder), "ghost", "--query", "1"])
    assert (code, out) == (2, "")
    assert err == f"cranfield judge assessor assign: {folder}: has no assessor named 'ghost'\n"
    code, _, err = cli(argv)
    assert code == 2
    assert err == f"cranfield judge init: {folder}: already exists and is not an empty folder\n"


def test_bad_input_is_one_sentence_and_exit_code_2(inputs: Inputs, tmp_path: Path) -> None:
    short = tmp_path / "short.jsonl"
    short.write_text("".join(inputs.docs.read_text().splitlines(keepends=True)[:2]))
    one = tmp_path / "one.tsv"
    one.write_text("1\torganised crime\n")
    runs = [str(r) for r in inputs.runs]
    base = ["judge", "init", str(tmp_path / "p"), "--pool", *runs, "--pool-depth", "2"]
    code, out, err = cli([*base, "--topics", str(inputs.topics), "--docs", str(short)])
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield judge init: {short}: lacks 4 of the 6 pooled documents (d3, d4, d5 and 1 "
        "more)\n"
    )
    code, out, err = cli([*base, "--topics", str(one), "--docs", str(inputs.docs)])
    assert (code, out) == (2, "")
    assert err == (
        f"cranfield judge init: {one}: lacks 1 of the runs' 2 topics (2): the topics and the "
        "pool must share their topics\n"
    )
    assert not (tmp_path / "p").exists()
    code, _, err = cli(["judge", "export", str(tmp_path), "-o", str(tmp_path / "q.txt")])
    assert (code, err) == (
        2,
        f"cranfield judge export: {tmp_path}: is not a judging project (no project.json)\n",
    )
    code, _, err = cli(
        [*base, "--topics", str(inputs.topics), "--docs", str(inputs.docs), "--grades", "0=a"]
    )
    assert code == 1
    assert "--grades" in err
