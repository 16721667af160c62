"""A real PostgreSQL server for the workbench's tests, started from the binaries of the
``pgserver`` wheel (PostgreSQL 16, in the ``test`` extra; nothing is installed here).

The server runs from a fresh temporary folder on 127.0.0.1 and a free port, with trust
authentication, and is stopped and deleted at the end of the session. PostgreSQL refuses to
run as root: under root the server runs as the existing user ``nobody`` (``setpriv``), its
folder given to that user. A missing wheel fails the test, naming the extra that installs it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _binaries() -> Path:
    # found, not imported: importing pgserver makes folders in the user's runtime directory
    spec = importlib.util.find_spec("pgserver")
    if spec is None or spec.origin is None:
        pytest.fail(
            "The PostgreSQL tests need the pgserver wheel's binaries: install the test extra "
            "(pip install -e '.[test]')."
        )
    return Path(spec.origin).parent / "pginstall" / "bin"


def _run(argv: list[str]) -> None:
    # the timeout is a guard against a hang, far above any start-up, not a timing
    subprocess.run(argv, check=True, capture_output=True, timeout=300)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def postgres_server() -> Iterator[str]:
    """``postgresql://postgres@127.0.0.1:PORT``: a running server, stopped on exit."""
    bin_ = _binaries()
    folder = Path(tempfile.mkdtemp(prefix="cranfield-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, user="nobody")
        as_user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    data, log = folder / "data", folder / "server.log"
    port = _free_port()
    try:
        _run(
            [
                *as_user,
                str(bin_ / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        )
        _run(
            [
                *as_user,
                str(bin_ / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-w",
                "-o",
                f"-h 127.0.0.1 -p {port} -k {folder} -F",
                "start",
            ]
        )
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}"
        finally:
            _run([*as_user, str(bin_ / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server: str, name: str) -> str:
    """A fresh database ``name`` on ``server``; its URL."""
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"
