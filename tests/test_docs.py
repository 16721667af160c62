"""The pages of ``docs/`` as a user reads them: every ``bash`` block runs when pasted in a fresh
copy of the clone (``../shared`` beside it), and every line of the ``text`` block that follows
it is a line of what it prints: the numbers the prose quotes are the numbers cranfield gives."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_readme import runnable

DOCS = sorted((REPO / "docs").glob("*.md"))
_PAIR = re.compile(r"^```bash\n(.*?)^```\n\n```text\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str, str]]:
    found = []
    for page in DOCS:
        for command, excerpt in _PAIR.findall(page.read_text(encoding="utf-8")):
            found.append((page.name, command.strip(), excerpt))
    return found


EXAMPLES = _examples()


def test_every_page_shows_what_its_commands_print() -> None:
    assert DOCS, "docs/ has no page"
    for page in DOCS:
        text = page.read_text(encoding="utf-8")
        assert text.count("```bash") == len([e for e in EXAMPLES if e[0] == page.name]), (
            f"{page.name}: every bash block is followed by the text block of its output"
        )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "command", "excerpt"), EXAMPLES, ids=[f"{p}:{c[20:60]}" for p, c, _ in EXAMPLES]
)
def test_a_docs_command_prints_the_lines_the_page_shows(
    page: str, command: str, excerpt: str, clone: Path
) -> None:
    to_run = runnable(command)
    assert to_run is not None
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", to_run],
        cwd=clone,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{to_run}\n{done.stderr}"
    printed = set(done.stdout.splitlines())
    missing = [line for line in excerpt.splitlines() if line not in printed]
    assert not missing, f"{page}: lines shown but not printed by {command!r}:\n" + "\n".join(
        missing
    )
