"""The judging project's database: one schema for SQLite and PostgreSQL (SQLAlchemy Core).

The schema's version is the one row of ``schema_version``. :data:`MIGRATIONS` lists, for each
version, the step that brings a database of the version before it up to that version;
:func:`migrate` applies the missing steps in order, each in its own transaction, and records
the new version. A change to the tables adds a step here (an ``ALTER TABLE`` written with
SQLAlchemy, valid on both engines) and bumps :data:`SCHEMA_VERSION`; a database newer than
this cranfield is refused, never written.

Tables
------
``settings``: the project's settings (name, scale, seed, strategy, pool depth, versions).
``topics``, ``documents``: the texts shown. ``pool``: each topic's documents with their place
in the default order (the pool shuffled by the seed). ``runs``: the pooled runs (kept in the
project folder). ``assessors`` (with their role and argon2 hash), ``assignments`` (assessor x
topic), ``sessions`` (hash of the cookie's token, CSRF token, expiry). ``judgments``: one row
per assessor, topic and document (``label`` NULL for a skip), ``events``: every judgment,
skip, undo and adjudication in the order they happened (never updated). ``places``: where each
assessor is in each topic and since when (resume, time per judgment). ``adjudications``: the
organiser's label where assessors disagreed. ``invitations`` (version 2): one-time
invitation links (hash of the link's token, the assessor, expiry, when used).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from cranfield.errors import InputError

if TYPE_CHECKING:
    import sqlalchemy as sa

__all__ = ["SCHEMA_VERSION", "Tables", "migrate", "tables"]

SCHEMA_VERSION: Final = 2


class Tables:
    """The tables of one :class:`sqlalchemy.MetaData`."""

    def __init__(self) -> None:
        import sqlalchemy as sa

        m = sa.MetaData()
        self.metadata = m
        text, ident = sa.Text, sa.String(255)
        self.schema_version = sa.Table(
            "schema_version",
            m,
            sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("applied_at", sa.Float, nullable=False),
        )
        self.settings = sa.Table(
            "settings",
            m,
            sa.Column("key", ident, primary_key=True),
            sa.Column("value", text, nullable=False),
        )
        self.topics = sa.Table(
            "topics",
            m,
            sa.Column("query_id", ident, primary_key=True),
            sa.Column("title", text, nullable=False),
            sa.Column("description", text, nullable=False),
            sa.Column("narrative", text, nullable=False),
            sa.Column("position", sa.Integer, nullable=False),
        )
        self.documents = sa.Table(
            "documents",
            m,
            sa.Column("doc_id", ident, primary_key=True),
            sa.Column("title", text, nullable=False),
            sa.Column("text", text, nullable=False),
        )
        self.pool = sa.Table(
            "pool",
            m,
            sa.Column("query_id", ident, primary_key=True),
            sa.Column("doc_id", ident, primary_key=True),
            sa.Column("position", sa.Integer, nullable=False),
        )
        self.runs = sa.Table(
            "runs",
            m,
            sa.Column("name", ident, primary_key=True),
            sa.Column("file", text, nullable=False),
        )
        self.assessors = sa.Table(
            "assessors",
            m,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", ident, nullable=False, unique=True),
            sa.Column("role", sa.String(16), nullable=False),
            sa.Column("password_hash", text, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
        )
        self.assignments = sa.Table(
            "assignments",
            m,
            sa.Column("assessor_id", sa.Integer, sa.ForeignKey("assessors.id"), primary_key=True),
            sa.Column("query_id", ident, sa.ForeignKey("topics.query_id"), primary_key=True),
        )
        self.sessions = sa.Table(
            "sessions",
            m,
            sa.Column("token_hash", sa.String(64), primary_key=True),
            sa.Column("assessor_id", sa.Integer, sa.ForeignKey("assessors.id"), nullable=False),
            sa.Column("csrf", sa.String(64), nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
        )
        self.judgments = sa.Table(
            "judgments",
            m,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("assessor_id", sa.Integer, sa.ForeignKey("assessors.id"), nullable=False),
            sa.Column("query_id", ident, nullable=False),
            sa.Column("doc_id", ident, nullable=False),
            sa.Column("label", sa.Integer, nullable=True),
            sa.Column("note", text, nullable=False),
            sa.Column("seconds", sa.Float, nullable=True),
            sa.Column("judged_at", sa.Float, nullable=False),
            sa.UniqueConstraint("assessor_id", "query_id", "doc_id", name="one_judgment"),
            sa.ForeignKeyConstraint(["query_id", "doc_id"], ["pool.query_id", "pool.doc_id"]),
        )
        self.events = sa.Table(
            "events",
            m,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("assessor_id", sa.Integer, nullable=False),
            sa.Column("query_id", ident, nullable=False),
            sa.Column("doc_id", ident, nullable=False),
            sa.Column("action", sa.String(16), nullable=False),
            sa.Column("label", sa.Integer, nullable=True),
            sa.Column("at", sa.Float, nullable=False),
        )
        self.places = sa.Table(
            "places",
            m,
            sa.Column("assessor_id", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("query_id", ident, primary_key=True),
            sa.Column("doc_id", ident, nullable=False),
            sa.Column("shown_at", sa.Float, nullable=False),
        )
        self.adjudications = sa.Table(
            "adjudications",
            m,
            sa.Column("query_id", ident, primary_key=True),
            sa.Column("doc_id", ident, primary_key=True),
            sa.Column("label", sa.Integer, nullable=False),
            sa.Column("assessor_id", sa.Integer, nullable=False),
            sa.Column("at", sa.Float, nullable=False),
        )
        self.invitations = sa.Table(
            "invitations",
            m,
            sa.Column("token_hash", sa.String(64), primary_key=True),
            sa.Column("assessor_id", sa.Integer, sa.ForeignKey("assessors.id"), nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
            sa.Column("used_at", sa.Float, nullable=True),
        )
        sa.Index("judgments_by_topic", self.judgments.c.query_id, self.judgments.c.doc_id)
        sa.Index("pool_order", self.pool.c.query_id, self.pool.c.position)


_TABLES: list[Tables] = []


def tables() -> Tables:
    """The one :class:`Tables` of this process (built on first use: SQLAlchemy is imported then)."""
    if not _TABLES:
        _TABLES.append(Tables())
    return _TABLES[0]


_ADDED_LATER: Final = {"invitations": 2}  # table -> the version that added it


def _create_version_1(conn: sa.Connection) -> None:
    m = tables().metadata
    m.create_all(conn, tables=[t for t in m.sorted_tables if t.name not in _ADDED_LATER])


def _add_invitations(conn: sa.Connection) -> None:
    tables().invitations.create(conn)


MIGRATIONS: Final[dict[int, Callable[[sa.Connection], None]]] = {
    1: _create_version_1,
    2: _add_invitations,
}
"""The step that brings a database to each version from the version before it."""


def current_version(engine: sa.Engine) -> int:
    """The database's schema version (0: an empty database)."""
    import sqlalchemy as sa

    if not sa.inspect(engine).has_table("schema_version"):
        return 0
    with engine.connect() as conn:
        found = conn.execute(sa.select(sa.func.max(tables().schema_version.c.version))).scalar()
    return int(found or 0)


def migrate(engine: sa.Engine, label: str) -> int:
    """Bring the database up to :data:`SCHEMA_VERSION`; return the version it had.

    Raises
    ------
    InputError
        If the database was made by a newer cranfield (its version is higher).
    """
    had = current_version(engine)
    if had > SCHEMA_VERSION:
        raise InputError(
            label,
            None,
            f"has schema version {had}, newer than this cranfield's {SCHEMA_VERSION}; "
            "upgrade cranfield to open it",
        )
    for version in range(had + 1, SCHEMA_VERSION + 1):
        with engine.begin() as conn:
            MIGRATIONS[version](conn)
            conn.execute(
                tables().schema_version.insert().values(version=version, applied_at=time.time())
            )
    return had
