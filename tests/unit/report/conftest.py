"""Fixtures of the report tests: a folder for artifacts (screenshots) and a watched page.
Debian's Chromium driven by Playwright (the session's one ``browser``) is in ``tests/conftest.py``.

The browser is the system's ``/usr/bin/chromium`` (Debian packages ``chromium`` and
``chromium-driver``); Playwright never downloads one. It is a prerequisite of the suite,
installed by ``scripts/install-chromium`` (which ``.ci/run`` calls before the tests); a test
never changes the machine, so when it is missing the browser tests fail naming the script,
never skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import CHROMIUM, CHROMIUM_FLAGS, REPO, ensure_chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

ARTIFACTS = Path(os.environ.get("CRANFIELD_ARTIFACTS", REPO / "test-artifacts")) / "report"


@dataclass
class Watched:
    """A page and what it did that a report must never do."""

    page: Page
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def open(self, path: Path) -> None:
        """Open a report from disk and wait until its per-query table has rendered."""
        self.page.goto(path.resolve().as_uri(), wait_until="load")
        self.page.wait_for_selector("#query-table[data-ready='true']", state="attached")

    def check(self) -> None:
        """Fail on a JavaScript error, a console error, a network request or a dialog."""
        assert self.errors == [], f"console errors: {self.errors}"
        assert self.requests == [], f"network requests: {self.requests}"
        assert self.dialogs == [], f"dialogs opened: {self.dialogs}"


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    """A fresh offline page whose errors, requests and dialogs fail the test."""
    context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    w = Watched(page)

    def on_console(msg: Any) -> None:
        if msg.type in ("error", "assert"):
            w.errors.append(msg.text)

    def on_route(route: Any) -> None:
        url = route.request.url
        if url.startswith(("file:", "data:", "about:")):
            route.continue_()
        else:
            w.requests.append(url)
            route.abort()

    def on_dialog(dialog: Any) -> None:
        w.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("console", on_console)
    page.on("pageerror", lambda exc: w.errors.append(f"uncaught: {exc}"))
    page.on("dialog", on_dialog)
    context.route("**/*", on_route)
    try:
        yield w
        w.check()
    finally:
        context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots are kept after the run (``test-artifacts/report``, git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


__all__ = ["ARTIFACTS", "CHROMIUM", "CHROMIUM_FLAGS", "Watched", "ensure_chromium"]
