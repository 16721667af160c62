"""The judging workbench: assessors judge pooled documents in a browser; the judgments become
qrels (``cranfield judge``; ``docs/judging-workbench.md``).

* :func:`create_project`, :func:`open_project`, :class:`Project`: a project's folder and
  database (:mod:`.schema`: SQLite in WAL mode, or PostgreSQL), its assessors, sessions and
  judgments.
* :class:`Strategy`, :class:`PoolOrder`: which document comes next.
* :func:`create_app`: the web application (Starlette); :func:`serve` runs it with uvicorn.
* :func:`export`: the qrels and their provenance; :mod:`.organiser`: progress, κ,
  disagreements, live scores.

Its dependencies are the ``judge`` extra: ``pip install '.[judge]' (from the clone)``.
"""

from __future__ import annotations

from cranfield.workbench.export import Export, export
from cranfield.workbench.project import (
    DEFAULT_SCALE,
    Project,
    create_project,
    open_project,
    parse_scale,
)
from cranfield.workbench.strategy import PoolOrder, Strategy

__all__ = [
    "DEFAULT_SCALE",
    "Export",
    "PoolOrder",
    "Project",
    "Strategy",
    "create_app",
    "create_project",
    "export",
    "open_project",
    "parse_scale",
    "serve",
]


def __getattr__(name: str) -> object:
    # the web stack (starlette, uvicorn) is imported only when the application is made
    if name == "create_app":
        from cranfield.workbench.app import create_app

        return create_app
    if name == "serve":
        from cranfield.workbench.serve import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
