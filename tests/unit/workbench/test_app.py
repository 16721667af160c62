"""The web application (:mod:`cranfield.workbench.app`) through Starlette's TestClient: log-in,
judging by form, and what it refuses (no session, another assessor's topic, a forged form, a
large body, too many wrong log-ins), with untrusted text inert in every page."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from cranfield.workbench import create_app
from cranfield.workbench.app import CSP, Throttle, highlight
from tests.unit.workbench.conftest import HOSTILE, Team, csrf_of, log_in


@pytest.fixture
def log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    logger = logging.getLogger("cranfield.workbench.test")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    logger.handlers[:] = [handler]
    yield logger, stream
    logger.handlers[:] = []


def client(team: Team, logger: logging.Logger | None = None, **kwargs: Any) -> TestClient:
    return TestClient(create_app(team.project, log=logger, **kwargs))


def judge(c: TestClient, topic: str, label: str | None, note: str = "") -> Any:
    page = c.get(f"/judge?topic={topic}")
    doc = re.search(r'name="doc" value="([^"]+)"', page.text)
    assert doc is not None, page.text
    data = {"csrf": csrf_of(page.text), "topic": topic, "doc": doc.group(1), "note": note}
    data.update({"label": label} if label is not None else {"skip": "1"})
    return c.post("/judge", data=data, follow_redirects=False), doc.group(1)


def test_log_in_judge_and_undo_through_the_forms(team: Team) -> None:
    c = client(team)
    r = log_in(c, "ann", team.passwords["ann"])
    assert r.status_code == 303
    assert r.headers["location"] == "/topics"
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=strict" in cookie
    topics = c.get("/topics")
    assert "organised crime" in topics.text
    assert "solar energy" in topics.text
    order = team.project.order()["1"]
    r, doc = judge(c, "1", "2", "first")
    assert (r.status_code, r.headers["location"], doc) == (303, "/judge?topic=1", order[0])
    r, doc = judge(c, "1", None)
    assert doc == order[1]
    page = c.get("/judge?topic=1")
    assert f'name="doc" value="{order[2]}"' in page.text
    assert '<span id="progress">2 / 4</span>' in page.text
    undo = c.post("/undo", data={"csrf": csrf_of(page.text), "topic": "1"}, follow_redirects=False)
    assert undo.status_code == 303
    page = c.get("/judge?topic=1")
    assert f'name="doc" value="{order[1]}"' in page.text
    ann = team.project.assessor("ann").id
    assert [(j.doc_id, j.label, j.note) for j in team.project.history(ann, "1")] == [
        (order[0], 2, "first")
    ]


def test_without_a_session_nothing_is_read_or_written(team: Team) -> None:
    c = client(team)
    assert c.get("/judge?topic=1", follow_redirects=False).headers["location"] == "/login"
    assert c.get("/topics", follow_redirects=False).headers["location"] == "/login"
    r = c.post("/judge", data={"csrf": "x", "topic": "1", "doc": "d1", "label": "1"})
    assert r.status_code == 403
    assert c.get("/organiser").status_code == 404
    assert team.project.judgments() == []


def test_another_assessors_session_cannot_read_or_write_their_topic(team: Team) -> None:
    bob = client(team)
    log_in(bob, "bob", team.passwords["bob"])
    page = bob.get("/judge?topic=2")  # ann's topic, not bob's
    assert page.status_code == 404
    assert "solar" not in page.text
    csrf = csrf_of(bob.get("/judge?topic=1").text)
    r = bob.post("/judge", data={"csrf": csrf, "topic": "2", "doc": "d4", "label": "1"})
    assert r.status_code == 404
    r = bob.post("/undo", data={"csrf": csrf, "topic": "2"})
    assert r.status_code == 404
    # ann's judgment of a shared topic stays hers: bob sees neither it nor her note
    ann = client(team)
    log_in(ann, "ann", team.passwords["ann"])
    _, doc = judge(ann, "1", "3", "ann's secret note")
    mine = bob.get(f"/judge?topic=1&doc={doc}")
    assert mine.status_code == 200  # the document is bob's next one too ...
    assert "secret" not in mine.text  # ... without ann's label or note
    assert 'id="your-label"' not in mine.text
    assert bob.get("/organiser").status_code == 404
    r = bob.post("/adjudicate", data={"csrf": csrf, "topic": "1", "doc": doc, "label": "0"})
    assert r.status_code == 404
    assert team.project.adjudications() == {}


def test_a_forged_form_without_the_csrf_token_is_refused(team: Team) -> None:
    c = client(team)
    log_in(c, "ann", team.passwords["ann"])
    c.get("/judge?topic=1")
    for data in (
        {"topic": "1", "doc": "d1", "label": "1"},
        {"csrf": "forged", "topic": "1", "doc": "d1", "label": "1"},
    ):
        r = c.post("/judge", data=data)
        assert r.status_code == 403
        assert "CSRF" in r.text
    assert c.post("/undo", data={"topic": "1"}).status_code == 403
    assert c.post("/logout", data={}).status_code == 403
    assert team.project.judgments() == []
    # the log-in form: its token must match the cookie's
    fresh = client(team)
    fresh.get("/login")
    r = fresh.post(
        "/login", data={"csrf": "forged", "name": "ann", "password": team.passwords["ann"]}
    )
    assert r.status_code == 403


def test_untrusted_text_is_escaped_and_no_script_runs_inline(team: Team) -> None:
    c = client(team)
    log_in(c, "ann", team.passwords["ann"])
    _, _ = judge(c, "1", "1", HOSTILE)
    page = c.get("/judge?topic=1")
    assert page.headers["content-security-policy"] == CSP
    assert "<script>alert" not in page.text
    assert "<img src=x" not in page.text
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in page.text
    # the only script is the static file
    assert re.findall(r"<script[^>]*>", page.text) == ['<script src="/static/workbench.js" defer>']
    first = team.project.order()["1"][0]
    revisit = c.get(f"/judge?topic=1&doc={first}")
    assert "&lt;img src=x onerror=alert(1)&gt;</textarea>" in revisit.text  # the note, inert


def test_query_terms_are_highlighted_in_the_escaped_document() -> None:
    assert str(highlight("Solar panels; SOLAR.", {"solar"})) == (
        "<mark>Solar</mark> panels; <mark>SOLAR</mark>."
    )
    # escaped first; a term never marked inside an entity (&#34; &amp; &lt;)
    assert str(highlight('a <b>crime</b> "34" & lt', {"crime", "34", "amp", "lt"})) == (
        "a &lt;b&gt;<mark>crime</mark>&lt;/b&gt; &#34;<mark>34</mark>&#34; &amp; <mark>lt</mark>"
    )
    assert str(highlight("<i>x</i>", set())) == "&lt;i&gt;x&lt;/i&gt;"


def test_security_headers_and_one_log_line_per_request(team: Team, log: Any) -> None:
    logger, stream = log
    c = client(team, logger)
    r = c.get("/login")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"
    c.get("/nowhere")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r'testclient "GET /login" 200 \d+\.\dms', lines[0])
    assert re.fullmatch(r'testclient "GET /nowhere" 404 \d+\.\dms', lines[1])


def test_a_large_body_is_refused(team: Team) -> None:
    c = client(team, max_body=1024)
    log_in(c, "ann", team.passwords["ann"])
    page = c.get("/judge?topic=1")
    big = {"csrf": csrf_of(page.text), "topic": "1", "doc": "d1", "label": "1", "note": "x" * 4000}
    assert c.post("/judge", data=big).status_code == 413
    assert team.project.judgments() == []


def test_a_note_over_the_limit_is_refused(team: Team) -> None:
    c = client(team)
    log_in(c, "ann", team.passwords["ann"])
    r, _ = judge(c, "1", "1", "x" * 2001)
    assert r.status_code == 400
    assert team.project.judgments() == []


def test_static_files_are_served_by_name_only(team: Team) -> None:
    c = client(team)
    assert c.get("/static/workbench.js").headers["content-type"].startswith("text/javascript")
    for path in ("/static/..%2Fapp.py", "/static/app.py", "/static/../project.py", "/static/"):
        assert c.get(path).status_code == 404


def test_wrong_log_ins_are_limited(team: Team) -> None:
    now = [0.0]
    c = client(team, throttle=Throttle(limit=3, window=60.0, clock=lambda: now[0]))
    for _ in range(3):
        assert log_in(c, "ann", "wrong").status_code == 401
    # the right password too is refused until the window has passed
    assert log_in(c, "ann", team.passwords["ann"]).status_code == 429
    now[0] = 61.0
    assert log_in(c, "ann", team.passwords["ann"]).status_code == 303


def test_the_organiser_adjudicates_a_disagreement(team: Team) -> None:
    ann, bob, org = client(team), client(team), client(team)
    log_in(ann, "ann", team.passwords["ann"])
    log_in(bob, "bob", team.passwords["bob"])
    log_in(org, "org", team.passwords["org"])
    judge(ann, "1", "3")
    _, doc = judge(bob, "1", "0")
    page = org.get("/organiser")
    assert page.status_code == 200
    assert f"<td>{doc}</td>" in page.text
    assert "ann: 3, bob: 0" in page.text
    r = org.post(
        "/adjudicate",
        data={"csrf": csrf_of(page.text), "topic": "1", "doc": doc, "label": "2"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert team.project.adjudications() == {("1", doc): 2}
    assert '<td class="adjudicated">2</td>' in org.get("/organiser").text


def test_log_out_ends_the_session(team: Team) -> None:
    c = client(team)
    log_in(c, "ann", team.passwords["ann"])
    page = c.get("/topics")
    r = c.post("/logout", data={"csrf": csrf_of(page.text)}, follow_redirects=False)
    assert r.headers["location"] == "/login"
    assert c.get("/topics", follow_redirects=False).headers["location"] == "/login"
