"""The README's shell blocks, pasted as a new user would: every command runs (issue 18).

Each ```bash block of README.md is split into its command lines, in order. They run with
bash in a fresh copy of the clone's ``examples/`` (so that the files they write, such as
``report.html`` and the lab's ``lab-out/``, never land in the repository), beside a
``../shared`` that is the shared data, with ``.venv`` being the virtualenv running these
tests. Each ```python block runs there too, with ``.venv/bin/python``.

Three kinds of step are checked by reading them instead of running them:

* ``python3.11 -m venv .venv`` and ``.venv/bin/pip install ...``: installing takes minutes
  and the network, which a test cannot; each install must install the clone itself (``.``
  or ``-e '.[extra]'``, never a name on a package index, where cranfield is not) with
  extras that pyproject.toml declares. CI runs the README's install in ``.ci/run``.
* ``.venv/bin/pytest``: the test suite itself, which ``.ci/run`` runs.

A line that ends with ``&`` (the Dask scheduler and workers) is started in the background, as
a shell pasted into would, kept running for the lines after it and stopped when the module's
commands have run; it must still be running a second after it started. The README's Dask
block listens on 127.0.0.1 only (checked); its ports, Dask's usual 8786 and 8787, are
replaced here by a free port chosen now and by ``:0`` (any free port), so two test runs on
one machine, or a Dask already running, never collide.

Running the blocks is slow (a subprocess per line, the lab, the Dask cluster): those tests
are marked ``slow``; the checks of what the README says are not.

The lab example runs with ``--no-efficiency``: its efficiency phase (warm-up, repeated
timed passes, threads) is most of its time and is tested with small settings in
tests/unit/cli/test_lab.py; everything else of the pasted command runs as written.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
_EXTRAS = set(
    tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
)
_CLONE_SPEC = re.compile(r"^\.(\[(?P<extras>[a-z0-9_,-]+)\])?$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def readme_commands(text: str) -> list[str]:
    """The command lines of the ```bash blocks of ``text``, in order (comments dropped)."""
    commands = []
    for block in _BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            command = line.split(" #", 1)[0].strip()
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


def _install_problem(step: list[str]) -> str | None:
    """Why a ``pip install`` step would fail when pasted, or None."""
    if step[:2] != [".venv/bin/pip", "install"]:
        return "pip must be the virtualenv's: .venv/bin/pip install"
    args = [a for a in step[2:] if a != "-e"]
    if len(args) != 1:
        return f"expected one thing to install, got {args}"
    found = _CLONE_SPEC.match(args[0])
    if found is None:
        return f"{args[0]!r} is not the clone ('.' or '.[extra]'): cranfield is on no index"
    unknown = set((found["extras"] or "").split(",")) - _EXTRAS - {""}
    if unknown:
        return f"extras {sorted(unknown)} are not in pyproject.toml"
    return None


def runnable(command: str) -> str | None:
    """``command`` without the steps checked statically (see the module docstring); None if
    nothing is left to run. Raises AssertionError for a step that would fail when pasted."""
    kept = []
    for part in command.split(" && "):
        step = shlex.split(part)
        if step[:3] == ["python3.11", "-m", "venv"]:
            assert step[3:] == [".venv"], part
        elif "pip" in step[0] or step[1:3] == ["-m", "pip"]:
            problem = _install_problem(step)
            assert problem is None, f"{part}: {problem}"
        elif step[0] == ".venv/bin/pytest":
            continue
        else:
            program = next(w for w in step if not _ASSIGNMENT.match(w))  # VAR=value first
            assert program.startswith(".venv/bin/"), f"{part}: run the virtualenv's programs"
            if step[1:3] == ["lab", "run"]:
                kept.append(part.replace(" lab run ", " lab run --no-efficiency ", 1))
            else:
                kept.append(part)
    return " && ".join(kept) or None


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))
_SCHEDULER_PORT = re.compile(r"(?<=[: ])8786\b")
_DASHBOARD = "127.0.0.1:8787"


def on_free_ports(command: str, port: int) -> str:
    """``command`` with the Dask scheduler's port 8786 replaced by ``port`` and the
    dashboard's 127.0.0.1:8787 by 127.0.0.1:0 (a free port)."""
    return _SCHEDULER_PORT.sub(str(port), command).replace(_DASHBOARD, "127.0.0.1:0")


def test_ports_are_replaced_only_where_they_are_ports() -> None:
    assert on_free_ports("dask scheduler --port 8786 --dashboard-address 127.0.0.1:8787", 5) == (
        "dask scheduler --port 5 --dashboard-address 127.0.0.1:0"
    )
    assert on_free_ports("--scheduler tcp://127.0.0.1:8786 -m P@87860", 5) == (
        "--scheduler tcp://127.0.0.1:5 -m P@87860"
    )


def test_the_dask_cluster_of_the_readme_listens_on_this_machine_only() -> None:
    dask = [c for c in COMMANDS if re.search(r"\.venv/bin/dask (scheduler|worker)\b", c)]
    assert len(dask) == 2
    for command in dask:
        assert "--host 127.0.0.1 " in command, command
        assert "--dashboard-address 127.0.0.1:" in command, command
        assert "8786" in command  # so that on_free_ports moves it


def test_the_readme_has_commands_and_ci_installs_as_it_says() -> None:
    assert len(COMMANDS) >= 10
    assert COMMANDS[0].startswith("python3.11 -m venv .venv && .venv/bin/pip install .")
    test_install = "python3.11 -m venv .venv && .venv/bin/pip install -e '.[test]'"
    assert test_install in COMMANDS[1]
    assert test_install in (REPO / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("pip install 'cranfield[plot]'", "the virtualenv's"),
        ("python3.11 -m pip install .", "the virtualenv's"),
        (".venv/bin/pip install 'cranfield[plot]'", "is on no index"),
        (".venv/bin/pip install -e '.[plots]'", "not in pyproject.toml"),
        ("cranfield evaluate q r", "the virtualenv's programs"),
    ],
)
def test_a_command_that_would_fail_when_pasted_is_caught(bad: str, why: str) -> None:
    with pytest.raises(AssertionError, match=why):
        runnable(bad)


@pytest.fixture(scope="module")
def scheduler_port() -> int:
    """A port free on 127.0.0.1 now, for the README's Dask scheduler."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def background() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The servers the README starts in the background (``... &``: a Dask scheduler and its
    workers), stopped with their children when the README's commands have run."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for server in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
    for server in started:
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=[f"{i}:{c[:40]}" for i, c in enumerate(COMMANDS)])
def test_a_readme_command_runs_when_pasted(
    command: str, clone: Path, background: list[subprocess.Popen[bytes]], scheduler_port: int
) -> None:
    to_run = runnable(command)
    if to_run is None:
        return  # only steps checked statically (installs, the test suite)
    to_run = on_free_ports(to_run, scheduler_port)
    if to_run.endswith("&"):  # a server the next commands use: started, and kept running
        server = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", to_run.removesuffix("&")],
            cwd=clone,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        background.append(server)
        time.sleep(1.0)
        assert server.poll() is None, f"{to_run} stopped at once, with {server.returncode}"
        return
    # the subprocess imports the code under test as this process does (PYTHONPATH kept)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", to_run],
        cwd=clone,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{to_run}\n{done.stderr}"
    assert "Traceback" not in done.stderr
    assert done.stdout or "-o " in to_run


@pytest.mark.slow
@pytest.mark.parametrize("block", _PYTHON_BLOCK.findall(README.read_text(encoding="utf-8")))
def test_a_readme_python_block_runs_when_pasted(block: str, clone: Path) -> None:
    done = subprocess.run(
        [".venv/bin/python", "-c", block],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
