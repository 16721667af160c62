"""The workbench in a real browser (Debian's Chromium driven by Playwright; see
``tests/conftest.py``'s ``browser`` and ``scripts/install-chromium``): log in, judge by keyboard,
undo, move back and forth, resume after a reload, two assessors at once on one topic, the
organiser's adjudication, export then evaluate; untrusted text never runs."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.unit.workbench.conftest import Team, make_team, write_inputs

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.slow


@dataclass
class Live:
    """A served project: its URL and team."""

    url: str
    team: Team
    server: Any
    thread: threading.Thread


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    """The workbench served by uvicorn on 127.0.0.1, a free port, in a thread."""
    import uvicorn

    from cranfield.workbench import create_app
    from cranfield.workbench.serve import bind, url_of

    team = make_team(tmp_path / "project", write_inputs(tmp_path / "inputs"))
    sock = bind("127.0.0.1", 0)
    config = uvicorn.Config(
        create_app(team.project), access_log=False, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a guard against a hang, far above any start-up
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield Live(url_of(sock).rstrip("/"), team, server, thread)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()
        team.project.close()


@dataclass
class Watched:
    """A browser context's page and what it must never do: errors, dialogs, other origins."""

    context: BrowserContext
    page: Page
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)

    def check(self) -> None:
        assert self.errors == []
        assert self.dialogs == []
        assert self.elsewhere == []


def watched(browser: Browser, live: Live) -> Watched:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    w = Watched(context, page)
    page.on("console", lambda m: w.errors.append(m.text) if m.type in ("error", "assert") else None)
    page.on("pageerror", lambda exc: w.errors.append(f"uncaught: {exc}"))

    def on_dialog(dialog: Any) -> None:
        w.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)

    def on_route(route: Any) -> None:
        if route.request.url.startswith(live.url + "/"):
            route.continue_()
        else:
            w.elsewhere.append(route.request.url)
            route.abort()

    context.route("**/*", on_route)
    return w


def log_in(w: Watched, live: Live, name: str) -> None:
    w.page.goto(live.url + "/login")
    w.page.fill("#name", name)
    w.page.fill("#password", live.team.passwords[name])
    with w.page.expect_navigation():
        w.page.click("#login")
    assert w.page.url == live.url + "/topics"


def doc_id(page: Page) -> str:
    return page.inner_text("#doc-id")


def press(page: Page, key: str) -> None:
    """A key that sends a form or follows a link: wait for the next page."""
    with page.expect_navigation():
        page.keyboard.press(key)


def test_judge_by_keyboard_undo_move_and_resume_after_reload(browser: Browser, live: Live) -> None:
    w = watched(browser, live)
    try:
        page = w.page
        log_in(w, live, "ann")
        page.goto(live.url + "/judge?topic=1")
        order = live.team.project.order()["1"]
        assert doc_id(page) == order[0]
        assert page.inner_text("#progress") == "0 / 4"
        # the hostile texts are shown as text
        assert (
            page.inner_text("#topic-narrative")
            == '<script>alert("x")</script><img src=x onerror=alert(1)>'
        )
        assert page.locator("mark").first.inner_text().lower() in ("organised", "crime")
        page.keyboard.press("?")
        assert page.is_visible("#help")
        press(page, "2")
        assert doc_id(page) == order[1]
        page.keyboard.press("n")
        page.keyboard.type("not sure <b>at all</b>")
        page.keyboard.press("Escape")
        press(page, "s")  # skip, with the note
        assert doc_id(page) == order[2]
        press(page, "0")
        assert doc_id(page) == order[3]
        press(page, "u")  # undo: order[2] comes back
        assert doc_id(page) == order[2]
        assert page.inner_text("#progress") == "2 / 4"
        press(page, "k")  # back to the skipped one, with its note
        assert doc_id(page) == order[1]
        assert page.input_value("#note") == "not sure <b>at all</b>"
        press(page, "k")
        assert doc_id(page) == order[0]
        assert page.inner_text("#your-label") == "2"
        press(page, "j")
        press(page, "j")  # past the last judged: where the assessor left off
        assert doc_id(page) == order[2]
        page.reload()
        assert doc_id(page) == order[2]
        page.goto(live.url + "/topics")
        page.goto(live.url + "/judge?topic=1")  # resume
        assert doc_id(page) == order[2]
        press(page, "3")
        ann = live.team.project.assessor("ann").id
        assert [(j.doc_id, j.label, j.note) for j in live.team.project.history(ann, "1")] == [
            (order[0], 2, ""),
            (order[1], None, "not sure <b>at all</b>"),
            (order[2], 3, ""),
        ]
        w.check()
    finally:
        w.context.close()


def test_two_assessors_on_one_topic_lose_nothing(browser: Browser, live: Live) -> None:
    ann, bob = watched(browser, live), watched(browser, live)
    try:
        log_in(ann, live, "ann")
        log_in(bob, live, "bob")
        for w in (ann, bob):
            w.page.goto(live.url + "/judge?topic=1")
        labels = {"ann": ["1", "0", "2", "3"], "bob": ["1", "1", "2", "0"]}
        for i in range(4):  # turn by turn, each on their own screen
            for name, w in (("ann", ann), ("bob", bob)):
                press(w.page, labels[name][i])
        for w in (ann, bob):
            assert w.page.is_visible("#done")
        p = live.team.project
        order = p.order()["1"]
        for name in ("ann", "bob"):
            got = [(j.doc_id, j.label) for j in p.history(p.assessor(name).id, "1")]
            assert got == [(d, int(label)) for d, label in zip(order, labels[name], strict=True)]
        ann.check()
        bob.check()
    finally:
        ann.context.close()
        bob.context.close()


def test_the_organiser_adjudicates_then_export_evaluates(
    browser: Browser, live: Live, tmp_path: Path
) -> None:
    import io
    import json

    from cranfield.cli.commands import main as cranfield

    p = live.team.project
    ann, bob = p.assessor("ann").id, p.assessor("bob").id
    for d in p.order()["1"]:
        p.judge(ann, "1", d, 1)
        p.judge(bob, "1", d, 0 if d == "d2" else 1)
    org = watched(browser, live)
    try:
        log_in(org, live, "org")
        page = org.page
        page.goto(live.url + "/organiser")
        assert page.locator("tr.disagreement").count() == 1
        assert page.inner_text("tr.disagreement td:nth-child(2)") == "d2"
        assert (
            page.inner_text("td.kappa") == "0.000"
        )  # ann all 1, bob 1 1 1 0: chance equals agreement
        with page.expect_navigation():
            page.click('tr.disagreement form.adjudicate button[value="0"]')
        assert page.inner_text("tr.disagreement td.adjudicated") == "0"
        org.check()
    finally:
        org.context.close()
    qrels = tmp_path / "qrels.txt"
    out, err = io.StringIO(), io.StringIO()
    assert cranfield(["judge", "export", str(p.folder), "-o", str(qrels)], out, err) == 0, (
        err.getvalue()
    )
    assert qrels.read_text() == "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n1 0 d6 1\n"
    out = io.StringIO()
    assert (
        cranfield(["evaluate", str(qrels), str(p.runs()["a"]), "-m", "P@3", "-f", "json"], out, err)
        == 0
    )
    # run a, topic 1: d1 d2 d3 -> 2 of 3 relevant (topic 2 is not judged)
    assert json.loads(out.getvalue())["results"][0]["P@3"] == pytest.approx(2 / 3)


def test_an_invitation_link_sets_a_password_once(browser: Browser, live: Live) -> None:
    token = live.team.project.invite("bob")
    w = watched(browser, live)
    try:
        page = w.page
        page.goto(f"{live.url}/invite/{token}")
        assert page.inner_text("h1") == "Welcome, bob"
        page.fill("#password", "correct horse battery")
        page.fill("#again", "correct horse battery")
        with page.expect_navigation():
            page.click("#set-password")
        assert page.url == live.url + "/topics"
        assert page.inner_text(".who") == "bob"
        w.check()
        response = page.goto(f"{live.url}/invite/{token}")  # the link works once
        assert response is not None
        assert response.status == 410
        assert "has been used already" in page.inner_text(".message")
        assert w.errors == [  # Chromium's console notes every answer that is not a success
            "Failed to load resource: the server responded with a status of 410 (Gone)"
        ]
        assert (w.dialogs, w.elsewhere) == ([], [])
    finally:
        w.context.close()
    other = watched(browser, live)
    try:
        live.team.passwords["bob"] = "correct horse battery"
        log_in(other, live, "bob")
        other.check()
    finally:
        other.context.close()
