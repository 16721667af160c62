"""Fixtures of the workbench tests: a small judging collection whose texts carry HTML and
script (they must stay inert), a project made from it, and log-ins.

Passwords are hashed with argon2's cheapest parameters here (``argon2.profiles.CHEAPEST``): the
tests check who may log in, not argon2's cost; the project's default hasher is argon2-cffi's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'

RUN_A = """\
1 Q0 d1 1 3.0 a
1 Q0 d2 2 2.0 a
1 Q0 d3 3 1.0 a
2 Q0 d4 1 3.0 a
2 Q0 d5 2 2.0 a
"""
RUN_B = """\
1 Q0 d3 1 3.0 b
1 Q0 d6 2 2.0 b
2 Q0 d5 1 3.0 b
2 Q0 d1 2 2.0 b
"""


@dataclass(frozen=True)
class Inputs:
    """The files of a small judging collection."""

    runs: tuple[Path, Path]
    topics: Path
    docs: Path


def write_inputs(folder: Path) -> Inputs:
    """Two runs over topics 1 and 2 (pool depth 2: topic 1 pools d1 d2 d3 d6, topic 2 d1 d4
    d5), a topics file with a third topic no run answers, documents d1-d7 (d7 pooled by none)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.txt").write_text(RUN_A, encoding="utf-8")
    (folder / "b.txt").write_text(RUN_B, encoding="utf-8")
    topics = [
        {
            "query_id": "1",
            "title": "organised crime",
            "description": f"Crime rings {HOSTILE}",
            "narrative": HOSTILE,
        },
        {"query_id": "2", "title": "solar energy", "description": "Solar panels."},
        {"query_id": "3", "title": "unused"},
    ]
    (folder / "topics.jsonl").write_text(
        "".join(json.dumps(t) + "\n" for t in topics), encoding="utf-8"
    )
    docs = [
        {
            "doc_id": f"d{i}",
            "title": f"Doc {i} {HOSTILE}",
            "text": f"Document {i} on organised crime and solar energy. {HOSTILE}",
        }
        for i in range(1, 8)
    ]
    (folder / "docs.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8"
    )
    return Inputs(
        (folder / "a.txt", folder / "b.txt"), folder / "topics.jsonl", folder / "docs.jsonl"
    )


@pytest.fixture(autouse=True)
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    from argon2 import PasswordHasher
    from argon2.profiles import CHEAPEST

    from cranfield.workbench import project

    monkeypatch.setattr(project, "_hasher", lambda: PasswordHasher.from_parameters(CHEAPEST))


@pytest.fixture
def inputs(tmp_path: Path) -> Inputs:
    return write_inputs(tmp_path / "inputs")


@dataclass
class Team:
    """A project with two assessors on topic 1 (ann also on 2) and an organiser."""

    project: Any
    passwords: dict[str, str]


def make_team(folder: Path, inputs: Inputs, *, db: str | None = None) -> Team:
    from cranfield.workbench import create_project

    p = create_project(
        folder, runs=inputs.runs, topics=inputs.topics, documents=inputs.docs, pool_depth=2, db=db
    )
    passwords = {
        "ann": p.add_assessor("ann", queries=["1", "2"]),
        "bob": p.add_assessor("bob", queries=["1"]),
        "org": p.add_assessor("org", role="organiser"),
    }
    return Team(p, passwords)


@pytest.fixture
def team(tmp_path: Path, inputs: Inputs) -> Iterator[Team]:
    t = make_team(tmp_path / "project", inputs)
    try:
        yield t
    finally:
        t.project.close()


CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    """The CSRF token of a page's first form."""
    found = CSRF.search(html)
    assert found is not None, html
    return found.group(1)


def log_in(client: Any, name: str, password: str) -> Any:
    """Log ``client`` in; return the response of the log-in POST."""
    page = client.get("/login")
    return client.post(
        "/login",
        data={"csrf": csrf_of(page.text), "name": name, "password": password},
        follow_redirects=False,
    )
