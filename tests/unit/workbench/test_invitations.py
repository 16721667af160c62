"""One-time invitation links (``judge assessor add --invite``, ``/invite/TOKEN``): the link's
token is kept only as its SHA-256, works once, expires, and a used, expired or unknown link
gets a page that says so; opening the link changes nothing; its form needs its CSRF token."""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from typing import Any

import pytest
from starlette.testclient import TestClient

from cranfield.errors import OptionError
from cranfield.workbench import create_app
from cranfield.workbench.app import LOGIN_COOKIE
from tests.unit.workbench.conftest import Team, csrf_of, log_in
from tests.unit.workbench.test_export import cli

NEW = "correct horse battery"


def accept(c: TestClient, token: str, password: str = NEW, again: str | None = None) -> Any:
    page = c.get(f"/invite/{token}")
    assert page.status_code == 200, page.text
    form = {"csrf": csrf_of(page.text), "password": password, "again": again or password}
    return c.post(f"/invite/{token}", data=form, follow_redirects=False)


def stored(team: Team) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(team.project.folder / "judgments.sqlite")
    try:
        return db.execute("select * from invitations").fetchall()
    finally:
        db.close()


def test_a_link_sets_the_password_once_and_starts_a_session(team: Team) -> None:
    token = team.project.invite("bob")
    c = TestClient(create_app(team.project))
    first = c.get(f"/invite/{token}")
    assert "Welcome, bob" in first.text
    assert c.get(f"/invite/{token}").status_code == 200  # opening it twice uses nothing
    r = accept(c, token)
    assert (r.status_code, r.headers["location"]) == (303, "/topics")
    assert "organised crime" in c.get("/topics").text  # logged in as bob
    again = TestClient(create_app(team.project))
    used = again.get(f"/invite/{token}")
    assert used.status_code == 410
    assert "This invitation link has been used already" in used.text
    # the new password logs in; the old one no longer does
    assert log_in(again, "bob", NEW).status_code == 303
    assert (
        log_in(TestClient(create_app(team.project)), "bob", team.passwords["bob"]).status_code
        == 401
    )


def test_only_the_hash_of_the_token_is_stored(team: Team) -> None:
    token = team.project.invite("ann", hours=2)
    [(token_hash, assessor_id, created, expires, used)] = stored(team)
    assert token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in (team.project.folder / "judgments.sqlite").read_bytes().decode("latin-1")
    assert assessor_id == team.project.assessor("ann").id
    assert expires - created == pytest.approx(2 * 3600.0)
    assert used is None


def test_a_used_link_posted_again_changes_nothing(team: Team) -> None:
    token = team.project.invite("bob")
    c = TestClient(create_app(team.project))
    page = c.get(f"/invite/{token}")
    form = {"csrf": csrf_of(page.text), "password": NEW, "again": NEW}
    assert c.post(f"/invite/{token}", data=form, follow_redirects=False).status_code == 303
    other = {**form, "password": "someone else's", "again": "someone else's"}
    c.cookies.set(LOGIN_COOKIE, form["csrf"])  # the form kept open in a second tab
    r = c.post(f"/invite/{token}", data=other, follow_redirects=False)
    assert r.status_code == 410
    assert team.project.accept(token, "yet another one") == "used"
    assert team.project.login("bob", NEW) is not None  # the first password stands
    assert team.project.login("bob", "someone else's") is None


def test_an_expired_or_unknown_link_is_a_page_that_says_so(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = team.project.invite("bob", hours=1)
    c = TestClient(create_app(team.project))
    later = time.time() + 3601.0
    monkeypatch.setattr("cranfield.workbench.project.time.time", lambda: later)
    r = c.get(f"/invite/{token}")
    assert r.status_code == 410
    assert "This invitation link has expired. Ask the organiser for a new one." in r.text
    assert team.project.accept(token, NEW) == "expired"
    monkeypatch.undo()
    r = c.get("/invite/" + "x" * 43)
    assert r.status_code == 404
    assert "This invitation link is not valid." in r.text
    assert c.get("/invite/" + "x" * 500).status_code == 404
    assert team.project.login("bob", NEW) is None


def test_the_form_needs_its_csrf_token_and_two_equal_passwords(team: Team) -> None:
    token = team.project.invite("bob")
    c = TestClient(create_app(team.project))
    forged = {"password": NEW, "again": NEW}
    assert c.post(f"/invite/{token}", data=forged).status_code == 403
    forged["csrf"] = "guessed"
    assert c.post(f"/invite/{token}", data=forged).status_code == 403
    r = accept(c, token, NEW, "a different one")
    assert r.status_code == 400
    assert "The two passwords differ." in r.text
    r = accept(c, token, "short")
    assert r.status_code == 400
    assert "A password has 10 to 256 characters." in r.text
    assert team.project.invitation(token)[0] == "valid"  # nothing used by the refusals
    with pytest.raises(OptionError):
        team.project.accept(token, "short")


def test_using_one_link_uses_up_the_assessors_other_links(team: Team) -> None:
    first, second = team.project.invite("bob"), team.project.invite("bob")
    assert isinstance(team.project.accept(second, NEW), str)
    assert team.project.invitation(first)[0] == "used"


def test_the_command_line_prints_a_link_instead_of_a_password(team: Team) -> None:
    folder = str(team.project.folder)
    code, out, err = cli(
        ["judge", "assessor", "add", folder, "cy", "--query", "1", "--invite", "--expires", "24"]
    )
    assert code == 0, err
    found = re.fullmatch(
        rf"assessor cy added to {re.escape(folder)}; invitation link \(shown once; it works "
        r"once, for 24 hours\): http://127\.0\.0\.1:8000/invite/(\S{43})\ncy's topics: 1\n",
        out,
    )
    assert found is not None, out
    assert "password" not in out.split(";")[1]
    c = TestClient(create_app(team.project))
    assert accept(c, found.group(1)).status_code == 303
    code, out, _ = cli(
        ["judge", "assessor", "invite", folder, "cy", "--site", "https://judge.example.org/"]
    )
    assert code == 0
    assert re.fullmatch(
        r"cy: invitation link \(shown once; it works once, for 72 hours\): "
        r"https://judge\.example\.org/invite/\S{43}\ncy's topics: 1\n",
        out,
    )
    code, out, err = cli(["judge", "assessor", "invite", folder, "ghost"])
    assert (code, out) == (2, "")
    assert err == f"cranfield judge assessor invite: {folder}: has no assessor named 'ghost'\n"
    code, _, err = cli(["judge", "assessor", "invite", folder, "cy", "--expires", "0"])
    assert code == 1
    assert "--expires" in err
