"""The same schema and the same byte-for-byte export on a real PostgreSQL server
(:mod:`tests.unit.workbench.postgres`): the scripted session of ``test_export.py`` through
the web forms, undo and resume, and the schema's version."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cranfield.workbench import open_project
from cranfield.workbench.schema import SCHEMA_VERSION, current_version
from tests.unit.workbench.conftest import Inputs, Team, make_team
from tests.unit.workbench.postgres import new_database, postgres_server
from tests.unit.workbench.test_export import check_export, scripted_session

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_team(
    server: str, tmp_path: Path, inputs: Inputs, request: pytest.FixtureRequest
) -> Iterator[Team]:
    url = new_database(server, f"judge_{request.node.name[:40].lower()}")
    team = make_team(tmp_path / "project", inputs, db=url)
    try:
        yield team
    finally:
        team.project.close()


def test_a_scripted_session_exports_byte_for_byte_on_postgresql(
    pg_team: Team, tmp_path: Path
) -> None:
    scripted_session(pg_team)
    record = check_export(pg_team, tmp_path)
    assert record["database"] == "postgresql"
    assert record["documents"]["adjudicated"] == 1


def test_undo_resume_and_the_schema_on_postgresql(pg_team: Team) -> None:
    p = pg_team.project
    assert p.engine.dialect.name == "postgresql"
    assert current_version(p.engine) == SCHEMA_VERSION
    ann = p.assessor("ann").id
    order = p.order()["1"]
    p.judge(ann, "1", order[0], 1)
    p.judge(ann, "1", order[0], 2)  # the same document again: one judgment
    assert p.undo(ann, "1") == order[0]
    assert p.history(ann, "1") == []
    again = open_project(p.folder)
    try:
        shown = again.screen(ann, "1").document
        assert shown is not None
        assert shown.doc_id == order[0]
    finally:
        again.close()


def test_the_command_line_makes_a_project_on_postgresql(
    server: str, inputs: Inputs, tmp_path: Path
) -> None:
    from tests.unit.workbench.test_export import cli

    url = new_database(server, "judge_cli")
    folder = tmp_path / "p"
    code, out, err = cli(
        [
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
            "--db",
            url,
        ]
    )
    assert code == 0, err
    assert out.splitlines()[0].endswith("; database postgresql.")
    assert not (folder / "judgments.sqlite").exists()
    p = open_project(folder)
    try:
        assert {q: len(d) for q, d in p.order().items()} == {"1": 4, "2": 3}
    finally:
        p.close()
    code, out, err = cli(
        [
            *("judge", "init", str(tmp_path / "q"), "--pool", *map(str, inputs.runs)),
            *("--topics", str(inputs.topics), "--docs", str(inputs.docs), "--db", url),
        ]
    )
    assert code == 2
    assert err.endswith(": already holds a judging project\n")


def test_an_invitation_works_once_on_postgresql(pg_team: Team) -> None:
    from concurrent.futures import ThreadPoolExecutor

    p = pg_team.project
    token = p.invite("bob")
    assert p.invitation(token)[0] == "valid"
    with ThreadPoolExecutor(2) as pool:  # two uses at once: one wins
        results = list(pool.map(lambda pw: p.accept(token, pw), ["first password", "other one!"]))
    assert sorted(r if r == "used" else "a session" for r in results) == ["a session", "used"]
    won = "other one!" if results[0] == "used" else "first password"
    assert p.login("bob", won) is not None
    assert p.invitation(token)[0] == "used"


def test_two_judgments_of_one_document_at_once_keep_one_on_postgresql(pg_team: Team) -> None:
    from concurrent.futures import ThreadPoolExecutor

    p = pg_team.project
    ann = p.assessor("ann").id
    doc = p.order()["1"][0]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda label: p.judge(ann, "1", doc, label), [0, 1, 2, 3] * 5))
    [only] = p.history(ann, "1")
    assert (only.doc_id, only.label in (0, 1, 2, 3)) == (doc, True)
