"""A judging project: its folder, its database, and every operation on the judgments.

:func:`create_project` pools the runs (:func:`cranfield.lab.pooling.pool`), reads the topics
and documents, checks that they fit together and writes the project; :func:`open_project`
opens one. :class:`Project` holds the operations the web application and the commands call:
assessors and their topics, log-in sessions, the judging screen (what to show, judge, skip,
undo), and the judgments read back. The organiser's figures and the export are in
:mod:`cranfield.workbench.organiser` and :mod:`cranfield.workbench.export`.

The project folder holds ``project.json`` (the database's URL; SQLite by default, the file
``judgments.sqlite`` beside it, in WAL mode) and ``runs/`` (the pooled runs as TREC files, for
the organiser's live scores). Everything else is in the database (:mod:`.schema`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from cranfield._lazy import install_hint
from cranfield._version import __version__
from cranfield.errors import InputError, OptionError
from cranfield.io.documents import DocumentRecord, TopicRecord
from cranfield.workbench.schema import migrate, tables
from cranfield.workbench.strategy import PoolOrder, Strategy

if TYPE_CHECKING:
    import sqlalchemy as sa

__all__ = [
    "DEFAULT_SCALE",
    "Assessor",
    "Judgment",
    "NotAllowed",
    "Project",
    "Screen",
    "create_project",
    "open_project",
    "parse_scale",
]

Role = Literal["assessor", "organiser"]
InvitationState = Literal["valid", "used", "expired", "unknown"]
ROLES: Final = ("assessor", "organiser")
PROJECT_FILE: Final = "project.json"
SQLITE_FILE: Final = "judgments.sqlite"
SESSION_SECONDS: Final = 12 * 3600.0
INVITATION_HOURS: Final = 72.0
MIN_PASSWORD: Final = 10
MAX_PASSWORD: Final = 256
SESSION_CACHE_SECONDS: Final = 10.0
_CACHED_SESSIONS: Final = 10_000
MAX_NOTE: Final = 2000
_CACHED_DOCUMENTS: Final = 10_000
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")

DEFAULT_SCALE: Final[tuple[tuple[int, str], ...]] = (
    (0, "Not relevant"),
    (1, "Related"),
    (2, "Highly relevant"),
    (3, "Perfectly relevant"),
)
"""The graded scale of a project made without ``scale``: TREC Deep Learning's four grades."""


class NotAllowed(Exception):
    """A request for something the assessor may not see or do (the web answers 404)."""


def parse_scale(text: str) -> tuple[tuple[int, str], ...]:
    """A scale written ``0=Not relevant,1=Relevant,2=Highly relevant``: digits 0-9 (the keys that
    judge), each once, with their wording.

    Examples
    --------
    >>> parse_scale("0=Not relevant,1=Relevant")
    ((0, 'Not relevant'), (1, 'Relevant'))
    """
    grades: list[tuple[int, str]] = []
    for item in text.split(","):
        label, sep, words = item.partition("=")
        label = label.strip()
        if not sep or len(label) != 1 or not label.isdigit() or not words.strip():
            raise OptionError("scale", "grades written 'DIGIT=wording', separated by commas", text)
        grades.append((int(label), words.strip()))
    if len({g for g, _ in grades}) != len(grades) or len(grades) < 2:
        raise OptionError("scale", "at least two grades, each digit once", text)
    return tuple(sorted(grades))


@dataclass(frozen=True)
class Assessor:
    """Someone who logs in: an assessor judges the topics assigned; an organiser also sees the
    organiser's pages."""

    id: int
    name: str
    role: str


@dataclass(frozen=True)
class Session:
    """A logged-in assessor and the CSRF token of every form they send."""

    assessor: Assessor
    csrf: str


@dataclass(frozen=True)
class Judgment:
    """One assessor's judgment of one pooled document (``label`` ``None``: skipped/unsure)."""

    assessor_id: int
    query_id: str
    doc_id: str
    label: int | None
    note: str
    seconds: float | None
    judged_at: float


@dataclass(frozen=True)
class Screen:
    """What the judging screen shows: the topic, the document (``None`` when the assessor has
    done the topic), the assessor's own label and note of it when revisited, the progress and
    the documents before and after it in the assessor's own history."""

    topic: TopicRecord
    document: DocumentRecord | None
    label: int | None
    skipped: bool
    note: str
    done: int
    total: int
    previous: str | None
    next: str | None


def _engine(url: str, checkpoints: list[bool]) -> sa.Engine:
    """The engine of ``url``; on SQLite, a connection made while ``checkpoints[0]`` is false
    leaves the WAL's checkpoints to :meth:`Project.checkpoint` (none on commit)."""
    try:
        import sqlalchemy as sa
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the judging workbench needs SQLAlchemy; " + install_hint("judge")
        ) from None
    if url.startswith("postgresql://"):  # the driver cranfield installs: psycopg 3
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        engine = sa.create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30, "isolation_level": None}
        )

        @sa.event.listens_for(engine, "connect")
        def _pragmas(dbapi: Any, _record: Any) -> None:
            cursor = dbapi.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            # WAL with synchronous=NORMAL: a commit is written to the WAL (the OS has it) but
            # not synced; a killed server loses nothing committed, a power cut may lose the
            # commits since the last checkpoint (the database itself is never corrupted)
            cursor.execute("PRAGMA synchronous=NORMAL")
            if not checkpoints[0]:
                cursor.execute("PRAGMA wal_autocheckpoint=0")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _begin(conn: Any) -> None:
            # take the write lock at once: two writers never deadlock on an upgrade
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return sa.create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _hasher() -> Any:
    try:
        from argon2 import PasswordHasher
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the judging workbench needs argon2-cffi; " + install_hint("judge")
        ) from None
    return PasswordHasher()


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class _Prepared:
    """One statement compiled once for the engine's dialect and run on the driver's cursor
    with its bound values, inside the SQLAlchemy transaction of ``conn``: the judging path's
    statements skip SQLAlchemy's per-call building, cache key, compile lookup and result
    set-up (most of a step's time when they did not)."""

    def __init__(self, statement: Any, dialect: Any) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql: str = compiled.string
        self.names: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positional else None
        )

    def _run(self, conn: sa.Connection, values: dict[str, Any]) -> Any:
        cursor = conn.connection.cursor()
        if self.names is None:
            cursor.execute(self.sql, values)
        else:
            cursor.execute(self.sql, tuple(values[n] for n in self.names))
        return cursor

    def rows(self, conn: sa.Connection, **values: Any) -> list[tuple[Any, ...]]:
        """Every row the statement selects."""
        cursor = self._run(conn, values)
        try:
            return [tuple(r) for r in cursor.fetchall()]
        finally:
            cursor.close()

    def row(self, conn: sa.Connection, **values: Any) -> tuple[Any, ...] | None:
        """The first row the statement selects, ``None`` for none."""
        cursor = self._run(conn, values)
        try:
            found = cursor.fetchone()
        finally:
            cursor.close()
        return None if found is None else tuple(found)

    def run(self, conn: sa.Connection, **values: Any) -> int:
        """Run an insert, update or delete; the number of rows it changed."""
        cursor = self._run(conn, values)
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()


class _Statements:
    """The statements of a judging step (session, judge, show next), prepared once."""

    def __init__(self, t: Any, dialect: Any) -> None:
        import sqlalchemy as sa

        p = sa.bindparam
        s, a, g, j, pl_ = t.sessions, t.assessors, t.assignments, t.judgments, t.places
        mine = (j.c.assessor_id == p("aid"), j.c.query_id == p("q"))
        here = (pl_.c.assessor_id == p("aid"), pl_.c.query_id == p("q"))

        def prepared(statement: Any) -> _Prepared:
            return _Prepared(statement, dialect)

        self.session = prepared(
            sa.select(s.c.csrf, s.c.expires_at, a.c.id, a.c.name, a.c.role)
            .join(a, a.c.id == s.c.assessor_id)
            .where(s.c.token_hash == p("key"))
        )
        self.assigned = prepared(
            sa.select(g.c.query_id).where(g.c.assessor_id == p("aid"), g.c.query_id == p("q"))
        )
        self.done = prepared(sa.select(j.c.doc_id, j.c.label).where(*mine).order_by(j.c.id))
        self.note = prepared(sa.select(j.c.note).where(*mine, j.c.doc_id == p("doc")))
        self.place = prepared(sa.select(pl_.c.doc_id, pl_.c.shown_at).where(*here))
        self.shown = prepared(sa.select(pl_.c.shown_at).where(*here, pl_.c.doc_id == p("doc")))
        self.new_place = prepared(
            pl_.insert().values(
                assessor_id=p("aid"), query_id=p("q"), doc_id=p("doc"), shown_at=p("at")
            )
        )
        self.move_place = prepared(
            pl_.update().where(*here).values(doc_id=p("doc"), shown_at=p("at"))
        )
        values: dict[str, Any] = {
            "label": p("label"),
            "note": p("note"),
            "seconds": p("seconds"),
            "judged_at": p("at"),
        }
        self.rejudge = prepared(j.update().where(*mine, j.c.doc_id == p("doc")).values(**values))
        self.judge = prepared(
            j.insert().values(assessor_id=p("aid"), query_id=p("q"), doc_id=p("doc"), **values)
        )
        self.event = prepared(
            t.events.insert().values(
                assessor_id=p("aid"),
                query_id=p("q"),
                doc_id=p("doc"),
                action=p("action"),
                label=p("label"),
                at=p("at"),
            )
        )
        d = t.documents
        self.document = prepared(
            sa.select(d.c.doc_id, d.c.title, d.c.text).where(d.c.doc_id == p("doc"))
        )


class Project:
    """An open judging project (see the module's notes); made by :func:`create_project` or
    :func:`open_project`."""

    def __init__(self, folder: Path, url: str, *, strategy: Strategy | None = None) -> None:
        self.folder = folder
        self.url = url
        self._checkpoints = [True]  # on commit, SQLite's default (see checkpoint_in_background)
        self._checkpointer: tuple[threading.Thread, threading.Event] | None = None
        self.engine = _engine(url, self._checkpoints)
        self.t = tables()
        migrate(self.engine, str(folder / PROJECT_FILE))
        self._sql = _Statements(self.t, self.engine.dialect)
        self._strategy = strategy
        self._lock: AbstractContextManager[object] = (
            threading.RLock() if self.engine.dialect.name == "sqlite" else nullcontext()
        )
        # what never changes after 'judge init', read once: the pool, topics, scale, texts
        self._order: dict[str, tuple[str, ...]] | None = None
        self._pool_sets: dict[str, frozenset[str]] | None = None
        self._topics: dict[str, TopicRecord] | None = None
        self._scale: tuple[tuple[int, str], ...] | None = None
        self._documents: dict[str, DocumentRecord] = {}
        # what this server process knows: sessions (read again after a few seconds), and
        # assignments found (never taken back)
        self._sessions: dict[str, tuple[Session, float, float]] = {}
        self._assigned: set[tuple[int, str]] = set()
        self._strategy_noted = False
        self._dummy_hash: str | None = None

    # ------------------------------------------------------------------ settings

    @contextmanager
    def _tx(self) -> Iterator[sa.Connection]:
        """One transaction. On SQLite, one at a time in this process: the threads of the server
        queue on a lock instead of SQLite's busy handler, which sleeps ever longer while the
        write lock is taken."""
        with self._lock, self.engine.begin() as conn:
            yield conn

    def setting(self, key: str) -> Any:
        """A project setting (JSON value): ``name``, ``scale``, ``seed``, ``strategy``, ..."""
        import sqlalchemy as sa

        with self._tx() as conn:
            value = conn.execute(
                sa.select(self.t.settings.c.value).where(self.t.settings.c.key == key)
            ).scalar()
        return None if value is None else json.loads(value)

    def settings(self) -> dict[str, Any]:
        """Every setting."""
        with self._tx() as conn:
            rows = conn.execute(self.t.settings.select()).all()
        return {k: json.loads(v) for k, v in rows}

    @property
    def scale(self) -> tuple[tuple[int, str], ...]:
        """The graded scale: ``(label, wording)`` pairs."""
        if self._scale is None:
            self._scale = tuple((int(g), str(w)) for g, w in self.setting("scale"))
        return self._scale

    @property
    def strategy(self) -> Strategy:
        """The strategy choosing the next document (:class:`PoolOrder` by default)."""
        if self._strategy is None:
            self._strategy = PoolOrder(self.order())
        return self._strategy

    def order(self) -> dict[str, tuple[str, ...]]:
        """Each topic's pooled documents in the default order."""
        if self._order is None:
            p = self.t.pool
            with self._tx() as conn:
                rows = conn.execute(p.select().order_by(p.c.query_id, p.c.position)).all()
            order: dict[str, list[str]] = {}
            for row in rows:
                order.setdefault(row.query_id, []).append(row.doc_id)
            self._order = {q: tuple(d) for q, d in order.items()}
        return self._order

    def topic(self, query_id: str) -> TopicRecord:
        """The topic ``query_id``."""
        if self._topics is None:
            self._topics = {t.query_id: t for t in self.topics()}
        found = self._topics.get(query_id)
        if found is None:
            raise NotAllowed(query_id)
        return found

    def topics(self) -> list[TopicRecord]:
        """Every topic, in the project's order."""
        with self._tx() as conn:
            rows = conn.execute(self.t.topics.select().order_by(self.t.topics.c.position)).all()
        return [TopicRecord(r.query_id, r.title, r.description, r.narrative) for r in rows]

    def document(self, doc_id: str) -> DocumentRecord:
        """The document ``doc_id``."""
        found = self._documents.get(doc_id)
        if found is not None:
            return found
        with self._tx() as conn:
            return self._document(conn, doc_id)

    def _document(self, conn: sa.Connection, doc_id: str) -> DocumentRecord:
        found = self._documents.get(doc_id)
        if found is not None:
            return found
        row = self._sql.document.row(conn, doc=doc_id)
        if row is None:
            raise NotAllowed(doc_id)
        found = DocumentRecord(*row)
        if len(self._documents) >= _CACHED_DOCUMENTS:
            self._documents.pop(next(iter(self._documents)))
        self._documents[doc_id] = found
        return found

    def runs(self) -> dict[str, Path]:
        """``{run name: its TREC file in the project folder}``."""
        with self._tx() as conn:
            rows = conn.execute(self.t.runs.select().order_by(self.t.runs.c.name)).all()
        return {r.name: self.folder / r.file for r in rows}

    # ------------------------------------------------------------------ assessors

    def add_assessor(
        self, name: str, *, role: Role = "assessor", queries: Sequence[str] = ()
    ) -> str:
        """Create an assessor (or organiser) assigned ``queries``; return their password, which
        is shown once and kept only as an argon2 hash.

        Raises
        ------
        InputError
            A name already taken, or a topic the project does not have.
        """
        import sqlalchemy as sa

        if not _NAME.fullmatch(name):
            raise OptionError(
                "name", "letters, digits and . _ @ - (at most 64, a letter or digit first)", name
            )
        if role not in ROLES:
            raise OptionError("role", "assessor or organiser", role)
        password = secrets.token_urlsafe(12)
        hashed = _hasher().hash(password)
        with self._tx() as conn:
            taken = conn.execute(
                sa.select(self.t.assessors.c.id).where(self.t.assessors.c.name == name)
            ).first()
            if taken is not None:
                raise InputError(self.label, None, f"already has an assessor named {name!r}")
            conn.execute(
                self.t.assessors.insert().values(
                    name=name, role=role, password_hash=hashed, created_at=time.time()
                )
            )
        if queries:
            self.assign(name, queries)
        return password

    @property
    def label(self) -> str:
        """How errors name the project: its folder."""
        return str(self.folder)

    def assessor(self, name: str) -> Assessor:
        """The assessor ``name``.

        Raises
        ------
        InputError
            If the project has no assessor of that name.
        """
        import sqlalchemy as sa

        a = self.t.assessors
        with self._tx() as conn:
            row = conn.execute(sa.select(a).where(a.c.name == name)).first()
        if row is None:
            raise InputError(self.label, None, f"has no assessor named {name!r}")
        return Assessor(row.id, row.name, row.role)

    def assessors(self) -> list[Assessor]:
        """Every assessor and organiser, in the order they were added."""
        a = self.t.assessors
        with self._tx() as conn:
            rows = conn.execute(a.select().order_by(a.c.id)).all()
        return [Assessor(r.id, r.name, r.role) for r in rows]

    def assign(self, name: str, queries: Sequence[str]) -> None:
        """Give the assessor ``name`` the topics ``queries`` (already given ones stay).

        Raises
        ------
        InputError
            An unknown assessor or topic.
        """
        import sqlalchemy as sa

        who = self.assessor(name)
        known = {t.query_id for t in self.topics()}
        unknown = [q for q in queries if q not in known]
        if unknown:
            raise InputError(self.label, None, f"has no topic {unknown[0]!r}")
        g = self.t.assignments
        with self._tx() as conn:
            have = set(
                conn.execute(sa.select(g.c.query_id).where(g.c.assessor_id == who.id)).scalars()
            )
            new = [q for q in dict.fromkeys(queries) if q not in have]
            if new:
                conn.execute(g.insert(), [{"assessor_id": who.id, "query_id": q} for q in new])

    def assigned(self, assessor_id: int) -> list[str]:
        """The topics of an assessor, in the project's order."""
        import sqlalchemy as sa

        g, t = self.t.assignments, self.t.topics
        with self._tx() as conn:
            return list(
                conn.execute(
                    sa.select(g.c.query_id)
                    .join(t, t.c.query_id == g.c.query_id)
                    .where(g.c.assessor_id == assessor_id)
                    .order_by(t.c.position)
                ).scalars()
            )

    # ------------------------------------------------------------------ sessions

    def login(self, name: str, password: str) -> str | None:
        """A new session token for a right name and password, ``None`` otherwise (the same
        work either way: an unknown name is checked against a dummy hash)."""
        import sqlalchemy as sa
        from argon2.exceptions import VerificationError

        a = self.t.assessors
        with self._tx() as conn:
            row = conn.execute(sa.select(a).where(a.c.name == name)).first()
        hasher = _hasher()
        if row is None and self._dummy_hash is None:
            self._dummy_hash = hasher.hash(secrets.token_urlsafe(12))
        try:
            hasher.verify(row.password_hash if row is not None else self._dummy_hash, password)
        except VerificationError:
            return None
        if row is None:  # pragma: no cover - a dummy hash of a random password never verifies
            return None
        with self._tx() as conn:
            return self._new_session(conn, row.id)

    def _new_session(self, conn: sa.Connection, assessor_id: int) -> str:
        """A new session of the assessor; its token (the database keeps only its hash)."""
        token = secrets.token_urlsafe(32)
        conn.execute(
            self.t.sessions.insert().values(
                token_hash=_token_hash(token),
                assessor_id=assessor_id,
                csrf=secrets.token_urlsafe(32),
                expires_at=time.time() + SESSION_SECONDS,
            )
        )
        return token

    # ------------------------------------------------------------------ invitations

    def invite(self, name: str, *, hours: float = INVITATION_HOURS) -> str:
        """A one-time invitation for the assessor ``name``, valid ``hours``: its token (for the
        link ``/invite/TOKEN``), shown once; the database keeps only its SHA-256. Following
        the link lets the assessor set their password (:meth:`accept`), once.

        Raises
        ------
        InputError
            An unknown assessor.
        OptionError
            ``hours`` not above 0.
        """
        if not hours > 0:
            raise OptionError("hours", "a number of hours above 0", str(hours))
        who = self.assessor(name)
        token, now = secrets.token_urlsafe(32), time.time()
        with self._tx() as conn:
            conn.execute(
                self.t.invitations.insert().values(
                    token_hash=_token_hash(token),
                    assessor_id=who.id,
                    created_at=now,
                    expires_at=now + hours * 3600.0,
                    used_at=None,
                )
            )
        return token

    def invitation(self, token: str | None) -> tuple[InvitationState, Assessor | None]:
        """What the invitation ``token`` is (``valid``, ``used``, ``expired`` or ``unknown``)
        and, when valid, whose it is."""
        import sqlalchemy as sa

        if not token or len(token) > 128:
            return "unknown", None
        i, a = self.t.invitations, self.t.assessors
        with self._tx() as conn:
            row = conn.execute(
                sa.select(i.c.expires_at, i.c.used_at, a.c.id, a.c.name, a.c.role)
                .join(a, a.c.id == i.c.assessor_id)
                .where(i.c.token_hash == _token_hash(token))
            ).first()
        if row is None:
            return "unknown", None
        if row.used_at is not None:
            return "used", None
        if row.expires_at <= time.time():
            return "expired", None
        return "valid", Assessor(row.id, row.name, row.role)

    def accept(self, token: str, password: str) -> str | InvitationState:
        """Use the invitation ``token``: the assessor's password becomes ``password`` (every
        other invitation of theirs is used up too) and a session starts; return its token.
        An invitation that is not valid changes nothing: its state is returned instead.
        Two uses at once: one wins, the other finds it used.

        Raises
        ------
        OptionError
            A password shorter than :data:`MIN_PASSWORD` or longer than :data:`MAX_PASSWORD`.
        """

        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise OptionError(
                "password",
                f"{MIN_PASSWORD} to {MAX_PASSWORD} characters",
                f"{len(password)} characters",
            )
        state, who = self.invitation(token)
        if who is None:
            return state
        hashed = _hasher().hash(password)  # slow on purpose: before the transaction
        i, now = self.t.invitations, time.time()
        with self._tx() as conn:
            taken = conn.execute(
                i.update()
                .where(
                    i.c.token_hash == _token_hash(token),
                    i.c.used_at.is_(None),
                    i.c.expires_at > now,
                )
                .values(used_at=now)
            ).rowcount
            if taken != 1:  # used (or expired) since it was read
                return "used"
            conn.execute(
                i.update()
                .where(i.c.assessor_id == who.id, i.c.used_at.is_(None))
                .values(used_at=now)
            )
            conn.execute(
                self.t.assessors.update()
                .where(self.t.assessors.c.id == who.id)
                .values(password_hash=hashed)
            )
            return self._new_session(conn, who.id)

    def cached_session(self, token: str | None) -> Session | None:
        """The live session of a cookie's token when this process read it within the last
        :data:`SESSION_CACHE_SECONDS` (no database access: the web application asks this
        first, on its event loop); ``None``: ask :meth:`session`."""
        if not token or len(token) > 128:
            return None
        now = time.time()
        cached = self._sessions.get(_token_hash(token))
        if cached is not None and cached[2] > now and cached[1] > now:
            return cached[0]
        return None

    def session(self, token: str | None) -> Session | None:
        """The live session of a cookie's token, ``None`` for none or an expired one."""
        if not token or len(token) > 128:
            return None
        key, now = _token_hash(token), time.time()
        cached = self._sessions.get(key)
        if cached is not None and cached[2] > now:  # read again after SESSION_CACHE_SECONDS
            return cached[0] if cached[1] > now else None
        with self._tx() as conn:
            row = self._sql.session.row(conn, key=key)
        if row is None or row[1] < now:
            self._sessions.pop(key, None)
            return None
        csrf, expires_at, assessor_id, name, role = row
        session = Session(Assessor(assessor_id, name, role), csrf)
        if len(self._sessions) >= _CACHED_SESSIONS:
            self._sessions.clear()
        self._sessions[key] = (session, expires_at, now + SESSION_CACHE_SECONDS)
        return session

    def logout(self, token: str) -> None:
        """End the session of ``token``."""
        self._sessions.pop(_token_hash(token), None)
        with self._tx() as conn:
            conn.execute(
                self.t.sessions.delete().where(self.t.sessions.c.token_hash == _token_hash(token))
            )

    @staticmethod
    def csrf_ok(session: Session, sent: str | None) -> bool:
        """Whether a form's CSRF token is the session's."""
        return sent is not None and hmac.compare_digest(session.csrf.encode(), sent.encode())

    # ------------------------------------------------------------------ judging

    def _check(
        self, conn: sa.Connection, assessor_id: int, query_id: str, doc_id: str | None
    ) -> None:
        # an assignment is never taken back: one found once is kept, the others asked again
        if (assessor_id, query_id) not in self._assigned:
            if self._sql.assigned.row(conn, aid=assessor_id, q=query_id) is None:
                raise NotAllowed(query_id)
            self._assigned.add((assessor_id, query_id))
        if doc_id is not None and doc_id not in self._pooled().get(query_id, ()):
            raise NotAllowed(doc_id)

    def _note_strategy(self, conn: sa.Connection, strategy: Strategy) -> None:
        """Add the strategy's name (its ``name``, else its class's) to the setting
        ``strategies``: every strategy that has chosen a document, for the provenance."""
        import sqlalchemy as sa

        name = str(getattr(strategy, "name", type(strategy).__name__))
        st = self.t.settings
        found = conn.execute(sa.select(st.c.value).where(st.c.key == "strategies")).scalar()
        names: list[str] = [] if found is None else json.loads(found)
        if name not in names:
            value = json.dumps([*names, name])
            if found is None:
                conn.execute(st.insert().values(key="strategies", value=value))
            else:
                conn.execute(st.update().where(st.c.key == "strategies").values(value=value))
        self._strategy_noted = True

    def _pooled(self) -> dict[str, frozenset[str]]:
        """Each topic's pooled documents (the pool never changes: read once)."""
        if self._pool_sets is None:
            self._pool_sets = {q: frozenset(d) for q, d in self.order().items()}
        return self._pool_sets

    def history(self, assessor_id: int, query_id: str) -> list[Judgment]:
        """An assessor's judgments of a topic, in the order they were first made."""
        with self._tx() as conn:
            return self._history(conn, assessor_id, query_id)

    def _history(self, conn: sa.Connection, assessor_id: int, query_id: str) -> list[Judgment]:
        import sqlalchemy as sa

        j = self.t.judgments
        rows = conn.execute(
            sa.select(j)
            .where(j.c.assessor_id == assessor_id, j.c.query_id == query_id)
            .order_by(j.c.id)
        ).all()
        return [
            Judgment(r.assessor_id, r.query_id, r.doc_id, r.label, r.note, r.seconds, r.judged_at)
            for r in rows
        ]

    def _place(
        self,
        conn: sa.Connection,
        assessor_id: int,
        query_id: str,
        doc_id: str,
        *,
        keep: bool,
        was: str | Literal[False] | None = False,
    ) -> None:
        """Record that ``doc_id`` is on the assessor's screen (since now, or since it was first
        shown when ``keep`` and it is the same document); ``was``: the document the place
        held, when the caller has read it (``None``: no place yet)."""
        if was is False:
            row = self._sql.place.row(conn, aid=assessor_id, q=query_id)
            was = None if row is None else row[0]
        values = {"aid": assessor_id, "q": query_id, "doc": doc_id, "at": time.time()}
        if was is None:
            self._sql.new_place.run(conn, **values)
        elif not (keep and was == doc_id):
            self._sql.move_place.run(conn, **values)

    def screen(self, assessor_id: int, query_id: str, doc_id: str | None = None) -> Screen:
        """What the assessor sees of ``query_id``: ``doc_id`` (one of their own judged documents,
        or the current one), else where they left off, else the strategy's next document.

        :attr:`Screen.next` is ``""`` on the last document the assessor judged: the way forward
        is where they left off.

        Raises
        ------
        NotAllowed
            A topic not assigned to the assessor, or a document they may not see there.
        """
        pooled = self._pooled().get(query_id, frozenset())  # read before the transaction
        strategy = self.strategy
        topic = self.topic(query_id)  # NotAllowed for an unknown topic, as for another's
        sql, mine = self._sql, {"aid": assessor_id, "q": query_id}
        with self._tx() as conn:
            self._check(conn, assessor_id, query_id, doc_id)
            # (doc_id, label) in the order first judged: plain tuples, no objects per row
            done: dict[str, int | None] = dict(sql.done.rows(conn, **mine))
            row = sql.place.row(conn, **mine)
            place: str | None = None if row is None else row[0]
            current: str | None
            if doc_id is not None:
                if doc_id not in done and doc_id != place:
                    raise NotAllowed(doc_id)
                current = doc_id
            elif place is not None and place not in done:
                current = place  # resume exactly where the assessor left off
            else:
                judged = {d: math.nan if g is None else float(g) for d, g in done.items()}
                current = strategy.propose(query_id, judged)
                if not self._strategy_noted:
                    self._note_strategy(conn, strategy)
                if current is not None and (current in done or current not in pooled):
                    raise RuntimeError(
                        f"the strategy proposed {current!r} for topic {query_id}, which is not "
                        "a pooled document the assessor has still to judge"
                    )
            note = ""
            document = None
            if current is not None:
                self._place(conn, assessor_id, query_id, current, keep=True, was=place)
                if current in done:
                    found = sql.note.row(conn, doc=current, **mine)
                    note = "" if found is None else str(found[0])
                document = self._document(conn, current)
        order = list(done)
        last = order[-1] if order else None
        if current is None or current not in done:
            return Screen(topic, document, None, False, "", len(done), len(pooled), last, None)
        i = order.index(current)
        return Screen(
            topic,
            document,
            done[current],
            done[current] is None,
            note,
            len(done),
            len(pooled),
            order[i - 1] if i > 0 else None,
            order[i + 1] if i + 1 < len(order) else "",
        )

    def judge(
        self,
        assessor_id: int,
        query_id: str,
        doc_id: str,
        label: int | None,
        note: str = "",
    ) -> Judgment:
        """Record the assessor's ``label`` of ``doc_id`` (``None``: skipped or unsure) with a
        note; a second judgment of the same document replaces the first. The time spent is
        the time since the document was put on the assessor's screen.

        Raises
        ------
        NotAllowed
            A topic not assigned to the assessor or a document not pooled for it.
        OptionError
            A label not on the project's scale, or a note over 2000 characters.
        """
        import sqlalchemy as sa

        if label is not None and label not in {g for g, _ in self.scale}:
            raise OptionError("label", f"a grade of the scale {self.scale}", str(label))
        if len(note) > MAX_NOTE:
            raise OptionError("note", f"at most {MAX_NOTE} characters", f"{len(note)} characters")
        self._pooled()  # read before the transaction: one at a time
        sql, now = self._sql, time.time()
        key = {"aid": assessor_id, "q": query_id, "doc": doc_id}
        for attempt in range(3):  # two requests for the same document: the second updates
            try:
                with self._tx() as conn:
                    self._check(conn, assessor_id, query_id, doc_id)
                    found = sql.shown.row(conn, **key)
                    shown = None if found is None else float(found[0])
                    seconds = None if shown is None else max(0.0, now - shown)
                    values = {"label": label, "note": note, "seconds": seconds, "at": now}
                    if sql.rejudge.run(conn, **key, **values) == 0:
                        sql.judge.run(conn, **key, **values)
                    action = "judge" if label is not None else "skip"
                    sql.event.run(conn, **key, action=action, label=label, at=now)
                return Judgment(assessor_id, query_id, doc_id, label, note, seconds, now)
            except (sa.exc.IntegrityError, self.engine.dialect.loaded_dbapi.IntegrityError):
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def undo(self, assessor_id: int, query_id: str) -> str | None:
        """Take back the assessor's latest judgment of ``query_id`` and put its document back
        on the screen; return its id (``None`` when there is nothing to undo)."""
        import sqlalchemy as sa

        j = self.t.judgments
        with self._tx() as conn:
            self._check(conn, assessor_id, query_id, None)
            row = conn.execute(
                sa.select(j.c.id, j.c.doc_id)
                .where(j.c.assessor_id == assessor_id, j.c.query_id == query_id)
                .order_by(j.c.judged_at.desc(), j.c.id.desc())
                .limit(1)
            ).first()
            if row is None:
                return None
            conn.execute(j.delete().where(j.c.id == row.id))
            conn.execute(
                self.t.events.insert().values(
                    assessor_id=assessor_id,
                    query_id=query_id,
                    doc_id=row.doc_id,
                    action="undo",
                    label=None,
                    at=time.time(),
                )
            )
            self._place(conn, assessor_id, query_id, row.doc_id, keep=False)
        return str(row.doc_id)

    def judgments(self) -> list[Judgment]:
        """Every judgment (skips included), by topic, document and assessor."""
        j = self.t.judgments
        with self._tx() as conn:
            rows = conn.execute(
                j.select().order_by(j.c.query_id, j.c.doc_id, j.c.assessor_id)
            ).all()
        return [
            Judgment(r.assessor_id, r.query_id, r.doc_id, r.label, r.note, r.seconds, r.judged_at)
            for r in rows
        ]

    def adjudications(self) -> dict[tuple[str, str], int]:
        """``{(query_id, doc_id): label}`` the organiser settled."""
        with self._tx() as conn:
            rows = conn.execute(self.t.adjudications.select()).all()
        return {(r.query_id, r.doc_id): r.label for r in rows}

    def adjudicate(self, organiser_id: int, query_id: str, doc_id: str, label: int) -> None:
        """The organiser's label of a pooled document, which the export takes over the
        assessors' (replacing an earlier adjudication)."""
        import sqlalchemy as sa

        if label not in {g for g, _ in self.scale}:
            raise OptionError("label", f"a grade of the scale {self.scale}", str(label))
        a, p = self.t.adjudications, self.t.pool
        now = time.time()
        with self._tx() as conn:
            pooled = conn.execute(
                sa.select(p.c.doc_id).where(p.c.query_id == query_id, p.c.doc_id == doc_id)
            ).first()
            if pooled is None:
                raise NotAllowed(doc_id)
            conn.execute(a.delete().where(a.c.query_id == query_id, a.c.doc_id == doc_id))
            conn.execute(
                a.insert().values(
                    query_id=query_id, doc_id=doc_id, label=label, assessor_id=organiser_id, at=now
                )
            )
            conn.execute(
                self.t.events.insert().values(
                    assessor_id=organiser_id,
                    query_id=query_id,
                    doc_id=doc_id,
                    action="adjudicate",
                    label=label,
                    at=now,
                )
            )

    def checkpoint(self) -> tuple[int, int]:
        """SQLite: copy the WAL's committed pages into the database file (a passive
        checkpoint: writers go on meanwhile); the WAL's pages and how many of them are in the
        database now. Other databases: ``(0, 0)``, nothing to do."""
        if self.engine.dialect.name != "sqlite":
            return (0, 0)
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            row = cursor.fetchone()
            cursor.close()
        finally:
            raw.close()
        return (0, 0) if row is None else (int(row[1]), int(row[2]))

    def checkpoint_in_background(self, every: float = 1.0) -> None:
        """SQLite: take the WAL's checkpoints (and their fsyncs) out of the commits: no commit
        checkpoints any more; a thread does, every ``every`` seconds, until :meth:`close`.
        The server calls this: a commit that checkpoints holds up every request behind it.
        Other databases: nothing."""
        if self.engine.dialect.name != "sqlite" or self._checkpointer is not None:
            return
        self._checkpoints[0] = False
        self.engine.dispose()  # the connections made before keep checkpointing: new ones
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(every):
                self.checkpoint()

        thread = threading.Thread(target=loop, name="cranfield-checkpoints", daemon=True)
        self._checkpointer = (thread, stop)
        thread.start()

    def close(self) -> None:
        """Close the database's connections (SQLite checkpoints the WAL as the last one
        closes)."""
        if self._checkpointer is not None:
            thread, stop = self._checkpointer
            stop.set()
            thread.join()
            self._checkpointer = None
        self.engine.dispose()


# ---------------------------------------------------------------------- making and opening


def _topics_of(path: str | Path) -> tuple[TopicRecord, ...]:
    from cranfield.io import irds
    from cranfield.io.documents import is_json_lines, read_topic_records

    if irds.is_irds_id(path):  # a str that is no file and names a dataset: ir_datasets' cache
        return irds.read_topics(str(path))
    if is_json_lines(path):
        return read_topic_records(path)
    from cranfield.lab.collections import read_topics

    return tuple(
        TopicRecord(t.query_id, t.title, t.description, t.narrative) for t in read_topics(path)
    )


def _is_id(source: str | Path) -> bool:
    from cranfield.io.irds import looks_like_id

    return looks_like_id(source)


def _sample(items: Sequence[str]) -> str:
    shown = ", ".join(items[:3])
    return shown + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def create_project(  # noqa: PLR0915 -- one transaction writes the whole project
    folder: str | Path,
    *,
    runs: Sequence[str | Path],
    topics: str | Path,
    documents: str | Path,
    pool_depth: int = 100,
    scale: Sequence[tuple[int, str]] = DEFAULT_SCALE,
    seed: int = 0,
    db: str | None = None,
) -> Project:
    """Make a judging project in ``folder`` (which must not exist, or be empty): the depth-
    ``pool_depth`` pool of ``runs``, its topics and documents, a database (SQLite in the folder,
    or the URL ``db``, e.g. ``postgresql://user@host/name``). ``topics`` is a file (TREC SGML
    or XML, ``query_id<TAB>title`` lines, JSON Lines) or, as a ``str`` that is no file, an
    ir_datasets id (``msmarco-passage/trec-dl-2019/judged``) whose queries are read from
    ir_datasets' local cache, never downloaded (:func:`cranfield.io.irds.read_topics`).

    Raises
    ------
    InputError
        Unreadable inputs; a pooled topic missing from ``topics``; a pooled document missing from
        ``documents``; a folder that is not empty; a database that already holds a project.

    Notes
    -----
    Topics of the topics file that no run answers are left out (the return's
    ``setting("topics_left_out")`` counts them); documents of the documents file that no run
    pooled are left out too: an assessor sees only pooled documents.
    """
    from cranfield.io.documents import read_documents
    from cranfield.io.load import save_run
    from cranfield.lab.pooling import load_runs, pool

    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(str(target), None, "already exists and is not an empty folder")
    if not runs:
        raise OptionError("runs", "at least one run", "none")
    loaded = load_runs(list(runs))
    the_pool = pool(loaded, pool_depth)
    topic_list = _topics_of(topics)
    by_id = {t.query_id: t for t in topic_list}
    pooled_topics = the_pool.topics
    missing_topics = [q for q in pooled_topics if q not in by_id]
    if missing_topics:
        raise InputError(
            str(topics),
            None,
            f"lacks {len(missing_topics)} of the runs' {len(pooled_topics)} topics "
            f"({_sample(missing_topics)}): the topics and the pool must share their topics",
        )
    docs = {d.doc_id: d for d in read_documents(documents)}
    order = the_pool.shuffled(seed)
    pooled_docs = sorted(set(order.get_column("doc_id").to_list()))
    missing_docs = [d for d in pooled_docs if d not in docs]
    if missing_docs:
        raise InputError(
            str(documents),
            None,
            f"lacks {len(missing_docs)} of the {len(pooled_docs)} pooled documents "
            f"({_sample(missing_docs)})",
        )
    made = not target.exists()
    target.mkdir(parents=True, exist_ok=True)
    url = db or f"sqlite:///{(target / SQLITE_FILE).resolve()}"
    project: Project | None = None
    try:
        project = Project(target, url)
        t = project.t
        with project._tx() as conn:
            if conn.execute(t.settings.select().limit(1)).first() is not None:
                raise InputError(url, None, "already holds a judging project")
            (target / "runs").mkdir(exist_ok=True)
            run_rows = []
            for i, (name, run) in enumerate(loaded.items(), start=1):
                file = f"runs/{i:03d}.txt"
                save_run(run, target / file)
                run_rows.append({"name": name, "file": file})
            conn.execute(t.runs.insert(), run_rows)
            shared = [q for q in (t_.query_id for t_ in topic_list) if q in set(pooled_topics)]
            conn.execute(
                t.topics.insert(),
                [
                    {
                        "query_id": q,
                        "title": by_id[q].title,
                        "description": by_id[q].description,
                        "narrative": by_id[q].narrative,
                        "position": i,
                    }
                    for i, q in enumerate(shared)
                ],
            )
            conn.execute(
                t.documents.insert(),
                [{"doc_id": d, "title": docs[d].title, "text": docs[d].text} for d in pooled_docs],
            )
            positions: dict[str, int] = {}
            pool_rows = []
            for q, d in order.iter_rows():
                positions[q] = positions.get(q, 0) + 1
                pool_rows.append({"query_id": q, "doc_id": d, "position": positions[q]})
            conn.execute(t.pool.insert(), pool_rows)
            settings: Mapping[str, Any] = {
                "name": target.resolve().name,
                "scale": [list(g) for g in scale],
                "seed": seed,
                "strategy": PoolOrder.name,
                "pool_depth": pool_depth,
                "created_at": time.time(),
                "cranfield": __version__,
                "topics_file": str(topics) if _is_id(topics) else Path(topics).name,
                "documents_file": Path(documents).name,
                "topics_left_out": len(topic_list) - len(shared),
                "documents_left_out": len(docs) - len(pooled_docs),
                "pooled": len(pool_rows),
            }
            conn.execute(
                t.settings.insert(),
                [{"key": k, "value": json.dumps(v)} for k, v in settings.items()],
            )
        (target / PROJECT_FILE).write_text(
            json.dumps({"db": url, "cranfield": __version__}, indent=2) + "\n", encoding="utf-8"
        )
    except BaseException:
        if project is not None:
            project.close()
        if made:  # nothing half made is left behind
            shutil.rmtree(target, ignore_errors=True)
        raise
    return project


def open_project(folder: str | Path, *, strategy: Strategy | None = None) -> Project:
    """Open the judging project in ``folder`` (its database migrated to this cranfield's
    schema); ``strategy`` chooses the next document instead of the pool's order.

    Raises
    ------
    InputError
        A folder without ``project.json``, or one that cannot be read.
    """
    target = Path(folder)
    config = target / PROJECT_FILE
    if not config.is_file():
        raise InputError(str(target), None, f"is not a judging project (no {PROJECT_FILE})")
    try:
        url = json.loads(config.read_text(encoding="utf-8"))["db"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(str(config), None, f"is not a project file ({exc})") from None
    if not isinstance(url, str):
        raise InputError(str(config), None, "has no database URL under 'db'")
    project = Project(target, url, strategy=strategy)
    if project.setting("scale") is None:
        raise InputError(str(target), None, "has an empty database: make it with 'judge init'")
    return project
