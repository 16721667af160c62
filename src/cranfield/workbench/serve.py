"""Serving the workbench: uvicorn on a socket bound here, so that port 0 (a free port) has its
number before the server starts and the URL printed is the one that answers."""

from __future__ import annotations

import logging
import logging.handlers
import queue
import socket
from typing import TYPE_CHECKING, TextIO

from cranfield._lazy import install_hint

if TYPE_CHECKING:
    from cranfield.workbench.project import Project

__all__ = ["bind", "serve"]


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (``0``: a free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """The address a browser opens for ``sock``."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(project: Project, sock: socket.socket, log: TextIO) -> None:
    """Serve ``project`` on ``sock`` until interrupted; one line per request on ``log``."""
    try:
        import uvicorn
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("serving the workbench needs uvicorn; " + install_hint("judge")) from None
    from cranfield.workbench.app import create_app

    logger = logging.getLogger("cranfield.workbench.requests")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler = logging.StreamHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    # the event loop only queues a request's line; a thread writes it: a write that blocks
    # (a file under writeback, a slow terminal) never holds up the requests
    lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    writer = logging.handlers.QueueListener(lines, handler)
    logger.handlers[:] = [logging.handlers.QueueHandler(lines)]
    app = create_app(project, log=logger)
    project.checkpoint_in_background()
    config = uvicorn.Config(app, access_log=False, log_level="warning", lifespan="off")
    writer.start()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        writer.stop()  # every line queued is written
