"""``cranfield judge serve`` as a user runs it: a process that prints its URL; killed in the
middle of judging it loses nothing that was answered, and a new server resumes every assessor
where they left off."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from cranfield.workbench import open_project
from tests.conftest import REPO
from tests.unit.workbench.conftest import Team, csrf_of

pytestmark = pytest.mark.slow

DOC = re.compile(r'name="doc" value="([^"]+)"')
LOGS: list[str] = []  # each server's stderr, when it has stopped


@contextmanager
def served(folder: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    server = subprocess.Popen(
        [sys.executable, "-m", "cranfield.cli.main", "judge", "serve", str(folder), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.fullmatch(r"cranfield judge: serving \S+ at (http://127\.0\.0\.1:\d+)/\n", line)
        assert found is not None, line
        yield server, found.group(1)
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=60)  # a guard against a hang
        assert server.stdout is not None
        assert server.stderr is not None
        server.stdout.close()
        LOGS.append(server.stderr.read())
        server.stderr.close()


def judge_next(c: httpx.Client, label: str) -> str:
    page = c.get("/judge?topic=1")
    doc = DOC.search(page.text)
    assert doc is not None
    r = c.post(
        "/judge",
        data={"csrf": csrf_of(page.text), "topic": "1", "doc": doc.group(1), "label": label},
    )
    assert r.status_code == 303
    return doc.group(1)


def test_a_killed_server_loses_no_answered_judgment_and_a_new_one_resumes(team: Team) -> None:
    folder = team.project.folder
    team.project.close()
    with served(folder) as (server, url):
        with httpx.Client(base_url=url) as c:
            page = c.get("/login")
            r = c.post(
                "/login",
                data={"csrf": csrf_of(page.text), "name": "ann", "password": team.passwords["ann"]},
            )
            assert r.status_code == 303
            cookies = dict(c.cookies)
            judged = [judge_next(c, "2"), judge_next(c, "0")]
            shown = DOC.search(c.get("/judge?topic=1").text)
            assert shown is not None
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=60)
    log = LOGS[-1].splitlines()
    assert len([line for line in log if '"POST /judge" 303' in line]) == 2
    with served(folder) as (_, url), httpx.Client(base_url=url, cookies=cookies) as c:
        page = c.get("/judge?topic=1")  # the same session, the same document
        assert page.status_code == 200
        resumed = DOC.search(page.text)
        assert resumed is not None
        assert resumed.group(1) == shown.group(1)
    p = open_project(folder)
    try:
        ann = p.assessor("ann").id
        assert [(j.doc_id, j.label) for j in p.history(ann, "1")] == [
            (judged[0], 2),
            (judged[1], 0),
        ]
    finally:
        p.close()
