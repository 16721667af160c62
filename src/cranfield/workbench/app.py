"""The judging workbench's web application (Starlette; served by uvicorn, :func:`serve`).

Pages: ``/login``; ``/invite/TOKEN`` (a one-time invitation: the assessor sets their
password); ``/topics`` (the assessor's topics and progress); ``/judge?topic=Q[&doc=D]``
(the judging screen); ``/organiser`` (organisers only: progress, rate, κ, disagreements and
their adjudication, live scores). Forms post to ``/login``, ``/invite/TOKEN``, ``/logout``,
``/judge``, ``/undo`` and ``/adjudicate``.

What every response promises:

* **Inert text.** Topics, documents and notes are untrusted: Jinja2 escapes every value
  (autoescape), and the Content-Security-Policy allows scripts, styles and images from this
  server only (no inline script, no remote load, no framing); the one script is a static file.
* **Sessions.** A random token in an ``HttpOnly``, ``SameSite=Strict`` cookie; the database
  keeps only its SHA-256 (:meth:`Project.login`). Every form carries the session's CSRF token
  (the log-in and invitation forms a double-submit cookie's); a POST without it is refused
  (403).
* **Invitations.** A link's token is kept only as its SHA-256; opening the link changes
  nothing (a mail scanner may open it first), only the form posted with a password uses it,
  once (:meth:`Project.accept`); a used, expired or unknown link gets a page that says so
  (410, 410, 404).
* **Only one's own.** An assessor reads and writes only the topics assigned to them; anything
  else is "not found" (404), the same answer as for what does not exist.
* **Bounded.** A request body over :data:`MAX_BODY` bytes is refused (413); form fields are
  bounded; wrong log-ins are limited per name and per address (:class:`Throttle`, 429).
* **No file system.** No request path is joined to a path: the static files are read once,
  at start, from the package, and served by name from a table.
* **One log line per request:** address, method, path, status, milliseconds.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from cranfield.errors import OptionError
from cranfield.workbench.project import (
    MAX_NOTE,
    MAX_PASSWORD,
    MIN_PASSWORD,
    NotAllowed,
    Project,
    Session,
)

if TYPE_CHECKING:
    from jinja2 import Environment
    from markupsafe import Markup
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["MAX_BODY", "Throttle", "create_app", "highlight"]

MAX_BODY: Final = 64 * 1024
SESSION_COOKIE: Final = "cranfield_session"
LOGIN_COOKIE: Final = "cranfield_login"
CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
)
STATIC: Final = {"workbench.js": "text/javascript", "workbench.css": "text/css"}

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Throttle:
    """Wrong log-ins allowed per key (a name, an address) within a window of seconds.

    Examples
    --------
    >>> t = Throttle(limit=2, window=60.0, clock=lambda: 0.0)
    >>> t.failed("ann"); t.allowed("ann"), t.failed("ann"), t.allowed("ann")
    (True, None, False)
    """

    def __init__(
        self, *, limit: int = 5, window: float = 300.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        found = self._failures.setdefault(key, deque())
        while found and found[0] <= self.clock() - self.window:
            found.popleft()
        return found

    def allowed(self, key: str) -> bool:
        """Whether ``key`` may try again."""
        return len(self._recent(key)) < self.limit

    def failed(self, key: str) -> None:
        """Count a wrong log-in of ``key``."""
        self._recent(key).append(self.clock())


def highlight(text: str, terms: set[str]) -> Markup:
    """``text`` escaped for HTML, each of ``terms`` (lower case, whole words) in it wrapped in
    ``<mark>``: one escape of the whole text, the marks added on the escaped text, never inside
    an entity.

    Examples
    --------
    >>> str(highlight("Organised crime, <b>crime</b> & rates.", {"crime", "amp"}))
    'Organised <mark>crime</mark>, &lt;b&gt;<mark>crime</mark>&lt;/b&gt; &amp; rates.'
    """
    from markupsafe import Markup, escape

    escaped = str(escape(text))
    if not terms:
        return Markup(escaped)
    words = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    pattern = re.compile(r"(&[#\w]+;)|\b(" + words + r")\b", re.IGNORECASE)
    return Markup(pattern.sub(lambda m: m.group(1) or f"<mark>{m.group(2)}</mark>", escaped))


def query_terms(title: str) -> set[str]:
    """The words of a topic's title that are highlighted: three letters or more, lower case."""
    return {w.lower() for w in re.findall(r"\w+", title) if len(w) >= 3}


class _Guard:
    """Bounded bodies, security headers and one log line per request (pure ASGI)."""

    def __init__(self, app: ASGIApp, log: logging.Logger, max_body: int) -> None:
        self.app, self.log, self.max_body = app, log, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [0]
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"0")
        too_big = not declared.isdigit() or int(declared) > self.max_body

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message["headers"] = [
                    *[(k, v) for k, v in message.get("headers", []) if k not in _OURS],
                    *SECURITY_HEADERS,
                ]
            await send(message)

        received = [0]

        async def receive_bounded() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                received[0] += len(message.get("body", b""))
                if received[0] > self.max_body:
                    raise _TooLarge
            return message

        try:
            if too_big:
                await _refuse(send_guarded, 413, "Request too large.")
            else:
                try:
                    await self.app(scope, receive_bounded, send_guarded)
                except _TooLarge:
                    if status[0] == 0:
                        await _refuse(send_guarded, 413, "Request too large.")
        finally:
            client = scope.get("client") or ("-", 0)
            path = scope.get("path", "")
            query = scope.get("query_string", b"").decode("latin-1")
            self.log.info(
                '%s "%s %s%s" %d %.1fms',
                client[0],
                scope.get("method", "-"),
                path,
                f"?{query}" if query else "",
                status[0],
                (time.perf_counter() - started) * 1000.0,
            )


_OURS: Final = frozenset(k for k, _ in SECURITY_HEADERS)


class _TooLarge(Exception):
    pass


async def _refuse(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _templates() -> Environment:
    from jinja2 import Environment, PackageLoader

    # autoescape on for every template: every value a page shows is escaped
    return Environment(
        loader=PackageLoader("cranfield.workbench", "templates"),
        autoescape=True,
        auto_reload=False,
    )


def _static() -> dict[str, bytes]:
    folder = resources.files("cranfield.workbench") / "static"
    return {name: (folder / name).read_bytes() for name in STATIC}


def create_app(  # noqa: C901, PLR0915 -- the routes of one small application, kept together
    project: Project,
    *,
    log: logging.Logger | None = None,
    throttle: Throttle | None = None,
    max_body: int = MAX_BODY,
) -> Starlette:
    """The workbench's ASGI application over an open :class:`Project`."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.responses import HTMLResponse, RedirectResponse, Response
    from starlette.routing import Route

    env = _templates()
    static = _static()
    limiter = throttle or Throttle()
    logger = log or logging.getLogger("cranfield.workbench")
    scale = project.scale
    settings = project.settings()

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = env.get_template(name).render(project=settings["name"], scale=scale, **values)
        return HTMLResponse(html, status_code=status)

    async def session_of(request: Request) -> Session | None:
        token = request.cookies.get(SESSION_COOKIE)
        # one read of the database every few seconds a session; in between, no thread
        found = project.cached_session(token)
        return found if found is not None else await run_in_threadpool(project.session, token)

    async def form_of(request: Request) -> dict[str, str]:
        form = await request.form(max_files=0, max_fields=16, max_part_size=16 * 1024)
        return {k: v for k, v in form.items() if isinstance(v, str)}

    async def checked(request: Request) -> tuple[Session, dict[str, str]]:
        """The session and form of a POST, its CSRF token checked."""
        session = await session_of(request)
        if session is None:
            raise HTTPException(403, "Log in first.")
        form = await form_of(request)
        if not project.csrf_ok(session, form.get("csrf")):
            raise HTTPException(403, "The form's CSRF token is missing or wrong.")
        return session, form

    def set_cookie(response: Response, request: Request, name: str, value: str) -> None:
        response.set_cookie(
            name,
            value,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )

    async def home(request: Request) -> Response:
        session = await session_of(request)
        return RedirectResponse("/topics" if session else "/login", status_code=303)

    async def login_page(request: Request) -> Response:
        token = secrets.token_urlsafe(32)
        response = page("login.html", csrf=token, error=None)
        set_cookie(response, request, LOGIN_COOKIE, token)
        return response

    async def login(request: Request) -> Response:
        form = await form_of(request)
        sent, cookie = form.get("csrf", ""), request.cookies.get(LOGIN_COOKIE, "")
        if not sent or not secrets.compare_digest(sent.encode(), cookie.encode()):
            raise HTTPException(403, "The form's CSRF token is missing or wrong.")
        name, password = form.get("name", "")[:64], form.get("password", "")[:256]
        address = request.client.host if request.client else "-"
        keys = (f"name:{name}", f"address:{address}")
        if not all(limiter.allowed(k) for k in keys):
            return page(
                "login.html", 429, csrf=sent, error="Too many wrong log-ins: wait a few minutes."
            )
        token = await run_in_threadpool(project.login, name, password)
        if token is None:
            for k in keys:
                limiter.failed(k)
            return page("login.html", 401, csrf=sent, error="Wrong name or password.")
        response = RedirectResponse("/topics", status_code=303)
        set_cookie(response, request, SESSION_COOKIE, token)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    def invitation_refused(state: str) -> HTMLResponse:
        why = {
            "used": "This invitation link has been used already: it works once. Log in with "
            "the password you chose, or ask the organiser for a new link.",
            "expired": "This invitation link has expired. Ask the organiser for a new one.",
        }
        return page(
            "message.html",
            410 if state in why else 404,
            title="Invitation",
            message=why.get(state, "This invitation link is not valid."),
        )

    def invite_form(
        request: Request, token: str, name: str, csrf: str, status: int, error: str | None
    ) -> HTMLResponse:
        response = page(
            "invite.html",
            status,
            token=token,
            who=name,
            csrf=csrf,
            error=error,
            min_password=MIN_PASSWORD,
            max_password=MAX_PASSWORD,
        )
        set_cookie(response, request, LOGIN_COOKIE, csrf)
        return response

    async def invite_page(request: Request) -> Response:
        token = request.path_params["token"]
        state, who = await run_in_threadpool(project.invitation, token)
        if who is None:
            return invitation_refused(state)
        return invite_form(request, token, who.name, secrets.token_urlsafe(32), 200, None)

    async def invite(request: Request) -> Response:
        token = request.path_params["token"]
        form = await form_of(request)
        sent, cookie = form.get("csrf", ""), request.cookies.get(LOGIN_COOKIE, "")
        if not sent or not secrets.compare_digest(sent.encode(), cookie.encode()):
            raise HTTPException(403, "The form's CSRF token is missing or wrong.")
        state, who = await run_in_threadpool(project.invitation, token)
        if who is None:
            return invitation_refused(state)
        password = form.get("password", "")
        error = None
        if password != form.get("again", ""):
            error = "The two passwords differ."
        elif not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            error = f"A password has {MIN_PASSWORD} to {MAX_PASSWORD} characters."
        if error is not None:
            return invite_form(request, token, who.name, sent, 400, error)
        accepted = await run_in_threadpool(project.accept, token, password)
        if accepted in ("valid", "used", "expired", "unknown"):
            return invitation_refused(accepted)
        response = RedirectResponse("/topics", status_code=303)
        set_cookie(response, request, SESSION_COOKIE, accepted)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    async def logout(request: Request) -> Response:
        await checked(request)
        await run_in_threadpool(project.logout, request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def topics(request: Request) -> Response:
        session = await session_of(request)
        if session is None:
            return RedirectResponse("/login", status_code=303)

        def rows() -> list[dict[str, Any]]:
            order = project.order()
            out = []
            for q in project.assigned(session.assessor.id):
                done = len(project.history(session.assessor.id, q))
                out.append(
                    {"topic": project.topic(q), "done": done, "total": len(order.get(q, ()))}
                )
            return out

        return page("topics.html", session=session, rows=await run_in_threadpool(rows))

    async def judge_page(request: Request) -> Response:
        session = await session_of(request)
        if session is None:
            return RedirectResponse("/login", status_code=303)
        q = request.query_params.get("topic", "")
        doc = request.query_params.get("doc") or None
        screen = await run_in_threadpool(project.screen, session.assessor.id, q, doc)
        terms = query_terms(screen.topic.title)
        pieces = highlight(screen.document.text, terms) if screen.document else ""
        title = highlight(screen.document.title, terms) if screen.document else ""
        return page("judge.html", session=session, screen=screen, pieces=pieces, title_pieces=title)

    async def judge(request: Request) -> Response:
        session, form = await checked(request)
        q, doc = form.get("topic", ""), form.get("doc", "")
        note = form.get("note", "")[: MAX_NOTE + 1]
        if "skip" in form:
            label: int | None = None
        else:
            text = form.get("label", "")
            if not (len(text) == 1 and text.isdigit()):
                raise HTTPException(400, "A judgment needs a grade of the scale.")
            label = int(text)
        try:
            await run_in_threadpool(project.judge, session.assessor.id, q, doc, label, note)
        except OptionError as exc:
            raise HTTPException(400, str(exc)) from None
        return RedirectResponse(_judge_url(q), status_code=303)

    async def undo(request: Request) -> Response:
        session, form = await checked(request)
        q = form.get("topic", "")
        await run_in_threadpool(project.undo, session.assessor.id, q)
        return RedirectResponse(_judge_url(q), status_code=303)

    async def organiser(request: Request) -> Response:
        from cranfield.workbench import organiser as views

        session = await session_of(request)
        if session is None or session.assessor.role != "organiser":
            raise NotAllowed("organiser")

        def data() -> dict[str, Any]:
            return {
                "progress": views.progress(project),
                "kappas": views.agreement(project),
                "disagreements": views.disagreements(project),
                "scores": views.live_scores(project),
            }

        return page("organiser.html", session=session, **await run_in_threadpool(data))

    async def adjudicate(request: Request) -> Response:
        session, form = await checked(request)
        if session.assessor.role != "organiser":
            raise NotAllowed("organiser")
        text = form.get("label", "")
        if not (len(text) == 1 and text.isdigit()):
            raise HTTPException(400, "An adjudication needs a grade of the scale.")
        try:
            await run_in_threadpool(
                project.adjudicate,
                session.assessor.id,
                form.get("topic", ""),
                form.get("doc", ""),
                int(text),
            )
        except OptionError as exc:
            raise HTTPException(400, str(exc)) from None
        return RedirectResponse("/organiser#disagreements", status_code=303)

    async def static_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:  # a table of names, never a path
            raise NotAllowed(name)
        return Response(static[name], media_type=STATIC[name])

    async def not_found(request: Request, exc: Exception) -> Response:
        return page(
            "message.html", 404, title="Not found", message="There is nothing here for you."
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if status == 404:
            return await not_found(request, exc)
        return page("message.html", status, title="Refused", message=getattr(exc, "detail", ""))

    routes = [
        Route("/", home),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/invite/{token}", invite_page, methods=["GET"]),
        Route("/invite/{token}", invite, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/topics", topics, methods=["GET"]),
        Route("/judge", judge_page, methods=["GET"]),
        Route("/judge", judge, methods=["POST"]),
        Route("/undo", undo, methods=["POST"]),
        Route("/organiser", organiser, methods=["GET"]),
        Route("/adjudicate", adjudicate, methods=["POST"]),
        Route("/static/{name}", static_file, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(_Guard, log=logger, max_body=max_body)],
        exception_handlers={NotAllowed: not_found, HTTPException: http_error},
    )


def _judge_url(query_id: str) -> str:
    from urllib.parse import urlencode

    return "/judge?" + urlencode({"topic": query_id})
