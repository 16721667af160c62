"""How the lab asks an HTTP endpoint for JSON: httpx, within stated limits.

:class:`JSONClient` sends one request (a GET, or a POST with a JSON body) and returns the
decoded JSON answer. It is the transport of :class:`cranfield.lab.HTTPSystem` and holds
every rule about what the lab will and will not do over HTTP:

* only ``http`` and ``https`` URLs, the configured one and every redirect target;
* redirects by the ``redirects`` policy: ``"same-origin"`` (the default: scheme, host and
  port of the configured URL), ``"any"`` or ``"none"``; at most :data:`MAX_REDIRECTS` of them;
* the configured headers (``Authorization``, ``X-Api-Key``, any other) and the
  ``user:password@`` of the URL go to the configured origin only, never to another one, even
  when ``redirects = "any"`` follows a redirect there (and never again after it);
* a POST stays a POST: a 307 or 308 is followed with the same body, a 301, 302 or 303
  (which would turn it into a GET) is an error;
* an answer of at most ``max_response_bytes`` bytes (:data:`MAX_RESPONSE_BYTES` by
  default), counted while it streams in, so a larger one is never held in memory; answers are
  asked for and read uncompressed (``Accept-Encoding: identity``), a compressed one is an error;
* ``timeout`` bounds the whole request, redirects and a server that trickles its headers or
  its answer included: at the deadline a watchdog closes the request's connection, whatever
  it waits for, and the request ends with the error of a late answer;
* no cookies are kept; proxies and certificates follow the environment as httpx reads it.

Every failure is an :class:`~cranfield.errors.EngineError` of one line that names the URL as
:func:`shown_url` prints it (no ``user:password@``, no query values) and what happened.
``httpx`` is imported on first use (``pip install '.[lab]'``).
"""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from cranfield._lazy import require
from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import EngineError, OptionError

if TYPE_CHECKING:
    import httpx

__all__ = [
    "MAX_REDIRECTS",
    "MAX_RESPONSE_BYTES",
    "REDIRECTS",
    "HTTPStatusError",
    "JSONClient",
    "Redirects",
    "check_url",
    "shown_url",
]

Redirects = Literal["same-origin", "any", "none"]
"""Which redirects are followed: to the configured origin only, to any http(s) URL, none."""

REDIRECTS: Final[tuple[str, ...]] = get_args(Redirects)
MAX_RESPONSE_BYTES: Final = 64 * 2**20
"""The default limit of an answer's size: 64 MiB, far above any search answer."""
MAX_REDIRECTS: Final = 10
_SCHEMES: Final = ("http", "https")
_FORBIDDEN_IN_HEADERS: Final = frozenset("\r\n\0")


def shown_url(url: str) -> str:
    """``url`` as an error message shows it: without ``user:password@`` and query values.

    Examples
    --------
    >>> shown_url("https://me:secret@search.example/find?q=wing+flutter&key=abc#top")
    'https://search.example/find?q=...&key=...'
    """
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    names = [name for name, _ in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)]
    query = "&".join(f"{name}=..." for name in names) or ("..." if parts.query else "")
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, query, ""))


_SECRET_NAMES: Final = re.compile(
    r"(?i)^(?:.*[-_.])?(?:key|apikey|token|secret|password|passwd|pwd|auth|sig|signature|"
    r"credential|credentials|session)$"
)
"""Query parameter names whose values :func:`recorded_url` hides (``key``, ``api_key``,
``X-Api-Key``, ``access_token``, ``client_secret``, ``sig`` ...)."""


def recorded_url(url: str) -> str:
    """``url`` as the work directory records it: without ``user:password@``, and with the
    values of query parameters named like secrets (`key`, `api_key`, `token`, `secret`,
    `password`, `sig` ...) hidden.

    Other query values stay: they are part of what the engine is asked (``mode=fuzzy``), so
    a change to them must still make the lab search again. Hiding a key's value is safe for
    the same reason the other way round: another key gives the same answers.

    Examples
    --------
    >>> recorded_url("https://me:pw@search.example/find?q={query}&api_key=abc&size={k}")
    'https://search.example/find?q={query}&api_key=...&size={k}'
    """
    parts = urllib.parse.urlsplit(url)
    pairs = parts.query.split("&") if parts.query else []
    shown = []
    for pair in pairs:
        name, sep, _ = pair.partition("=")
        secret = sep and _SECRET_NAMES.match(urllib.parse.unquote_plus(name))
        shown.append(f"{name}=..." if secret else pair)
    netloc = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query="&".join(shown)))


def check_url(url: object) -> str:
    """``url`` if it is an ``http``/``https`` URL that httpx can send (its ``url`` option).

    ``{query}`` and ``{k}`` may stand in its path and query, not in its scheme, host or port,
    so that the origin the configured headers go to is fixed before any query is sent.
    """
    if not isinstance(url, str) or urllib.parse.urlsplit(url).scheme.lower() not in _SCHEMES:
        shown = shown_url(url) if isinstance(url, str) else url
        raise OptionError("url", "a URL that starts with http:// or https://", shown)
    require(("httpx",), "lab", "the HTTP search adapter (HTTPSystem)")
    import httpx

    netloc = urllib.parse.urlsplit(url).netloc
    try:
        parsed = httpx.URL(url.replace("{query}", "q").replace("{k}", "1"))
    except httpx.InvalidURL:
        parsed = None
    if parsed is None or not parsed.host or "{" in netloc or "}" in netloc:
        raise OptionError(
            "url", "an http(s) URL with a host ('{query}' and '{k}' only after it)", shown_url(url)
        )
    return url


def _check_headers(headers: object) -> dict[str, str]:
    """The ``headers`` option: header names mapped to ASCII string values, each one line.

    A refused table is shown with its values hidden: they are often secrets.
    """
    table = {} if headers is None else headers
    if not isinstance(table, Mapping) or not all(
        isinstance(name, str)
        and isinstance(value, str)
        and name.isascii()
        and value.isascii()
        and name.strip()
        and ":" not in name
        and not any(c.isspace() or c in _FORBIDDEN_IN_HEADERS for c in name)
        and not _FORBIDDEN_IN_HEADERS & set(value)
        for name, value in table.items()
    ):
        shown = {str(name): "..." for name in table} if isinstance(table, Mapping) else table
        raise OptionError(
            "headers", "a table of header names to one-line ASCII string values", shown
        )
    return dict(table)


class HTTPStatusError(EngineError):
    """An answer with an HTTP error status; :attr:`status` says which (a client that retries
    429 and 5xx answers reads it)."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port (the scheme's default when none is written)."""
    port = url.port if url.port is not None else {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, port


class JSONClient:
    """Requests for JSON under the rules of the module documentation; thread-safe.

    Parameters
    ----------
    headers:
        Extra request headers, sent to the configured origin only.
    timeout:
        Seconds the whole request may take (connection, redirects and the whole answer).
    max_response_bytes:
        The largest answer read, in bytes.
    redirects:
        ``"same-origin"``, ``"any"`` or ``"none"``.

    Notes
    -----
    One httpx client is opened on the first request and kept until :meth:`close`; it keeps no
    connection alive between requests (each request opens its own, as a fresh client would)
    and no cookies.
    """

    def __init__(
        self,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        redirects: Redirects = "same-origin",
    ) -> None:
        self.headers = _check_headers(headers)
        self.timeout = check_float("timeout", timeout, minimum=0, above=True)
        self.max_response_bytes = check_int("max_response_bytes", max_response_bytes, minimum=1)
        self.redirects: Redirects = check_choice("redirects", redirects, REDIRECTS)
        require(("httpx",), "lab", "the HTTP search adapter (HTTPSystem)")
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None

    def _open(self) -> httpx.Client:
        import httpx

        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    follow_redirects=False,
                    limits=httpx.Limits(max_connections=None, max_keepalive_connections=0),
                    cookies=http.cookiejar.CookieJar(
                        http.cookiejar.DefaultCookiePolicy(allowed_domains=())
                    ),
                )
            return self._client

    def close(self) -> None:
        """Close the httpx client (a later request opens a new one)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def fetch(self, url: str, body: bytes | None = None) -> Any:
        """The JSON answer of ``url`` to a GET, or to a POST of the JSON ``body``.

        Raises
        ------
        cranfield.errors.EngineError
            The server could not be reached, answered an HTTP error status, too much, too
            late, not JSON, or redirected where the rules forbid.
        """
        import httpx

        deadline = time.monotonic() + self.timeout
        where = shown_url(url)
        watchdog = _Watchdog(deadline)
        try:
            return self._exchange(httpx.URL(url), body, deadline, watchdog)
        except httpx.InvalidURL as exc:
            raise EngineError(f"{where} is not a URL httpx can send: {_one_line(exc)}.") from None
        except httpx.TimeoutException:
            raise self._late(where) from None
        except (httpx.HTTPError, OSError) as exc:
            if watchdog.fired:  # its connection closed at the deadline
                raise self._late(where) from None
            if isinstance(exc, httpx.ConnectError):
                raise EngineError(f"{where} could not be reached: {_one_line(exc)}.") from exc
            raise EngineError(f"{where} failed: {_one_line(exc)}.") from exc
        finally:
            watchdog.stop()

    def _exchange(
        self, home: httpx.URL, body: bytes | None, deadline: float, watchdog: _Watchdog
    ) -> Any:
        import httpx

        client = self._open()
        auth = httpx.BasicAuth(home.username, home.password) if home.userinfo else None
        method = "GET" if body is None else "POST"
        target, trusted = home.copy_with(userinfo=b""), True
        for _ in range(MAX_REDIRECTS + 1):
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._late(shown_url(str(target)))
            request = client.build_request(
                method,
                target,
                headers=self._headers(trusted, body),
                content=body,
                timeout=left,
                extensions={"trace": watchdog.trace},
            )
            response = client.send(request, stream=True, auth=auth if trusted else None)
            try:
                if response.next_request is not None:
                    target = self._redirect(home, target, method, response)
                    trusted = trusted and _origin(target) == _origin(home)
                    continue
                return self._json(response, deadline)
            finally:
                response.close()
        raise EngineError(f"{shown_url(str(home))} redirected more than {MAX_REDIRECTS} times.")

    def _headers(self, trusted: bool, body: bytes | None) -> dict[str, str]:
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if trusted:
            headers.update(self.headers)
        return headers

    def _redirect(
        self, home: httpx.URL, here: httpx.URL, method: str, response: httpx.Response
    ) -> httpx.URL:
        """Where ``response`` redirects to, if the rules allow following it."""
        follow = response.next_request
        if follow is None:  # pragma: no cover - only called for a redirect
            raise EngineError(f"{shown_url(str(here))} answered a redirect without a target.")
        target = follow.url.copy_with(userinfo=b"")
        where = f"{shown_url(str(here))} redirected (HTTP {response.status_code})"
        there = shown_url(str(target))
        if target.scheme not in _SCHEMES:
            raise EngineError(
                f"{where} to a URL with scheme {target.scheme!r}; only http and https are followed."
            )
        if self.redirects == "none":
            raise EngineError(f"{where} to {there}; not followed (redirects='none').")
        if self.redirects == "same-origin" and _origin(target) != _origin(home):
            raise EngineError(
                f"{where} to another origin, {there}; not followed (redirects='same-origin'; "
                "redirects='any' follows it, without the configured headers)."
            )
        if follow.method != method:
            raise EngineError(
                f"{where} to {there}, which would send the {method} again as a {follow.method}; "
                "not followed (only 307 and 308 keep a POST a POST)."
            )
        return target

    def _json(self, response: httpx.Response, deadline: float) -> Any:
        """The JSON of a final answer, read within the size limit and the deadline."""
        where = shown_url(str(response.url))
        if not response.is_success:
            raise HTTPStatusError(
                f"{where} answered HTTP {response.status_code} {response.reason_phrase}.",
                status=response.status_code,
            )
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise EngineError(
                f"{where} answered compressed ({encoding!r}) although asked for "
                "'Accept-Encoding: identity'."
            )
        limit = self.max_response_bytes
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._large(where, f"announced {int(declared)} bytes")
        data = bytearray()
        for piece in response.iter_raw():
            data += piece
            if len(data) > limit:
                raise self._large(where, f"sent more than {limit} bytes")
            if time.monotonic() > deadline:
                raise self._late(where)
        if time.monotonic() >= deadline:  # the watchdog ended the answer early
            raise self._late(where)
        try:
            return json.loads(data)
        except (ValueError, RecursionError) as exc:
            problem = _one_line(exc) if isinstance(exc, ValueError) else "nested too deeply"
            raise EngineError(f"{where} did not answer with JSON: {problem}.") from None

    def _large(self, where: str, what: str) -> EngineError:
        return EngineError(
            f"{where} {what}, over the limit of {self.max_response_bytes} bytes "
            "(the 'max_response_bytes' setting)."
        )

    def _late(self, where: str) -> EngineError:
        return EngineError(
            f"{where} did not answer within {self.timeout:g} s (the 'timeout' setting)."
        )


class _Watchdog:
    """Closes the connections of one request when its deadline passes, whatever they wait for
    (a server that sends its status line and headers a byte at a time gets through every
    per-read timeout). It learns each connection's socket from httpcore's ``trace`` events."""

    def __init__(self, deadline: float) -> None:
        self.fired = False
        self._lock = threading.Lock()
        self._sockets: list[Any] = []
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace callback: keep the socket of each connection made."""
        if not event.endswith(("connect_tcp.complete", "start_tls.complete")):
            return
        stream = info.get("return_value")
        sock = None if stream is None else stream.get_extra_info("socket")
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            late = self.fired
        if late:
            _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def stop(self) -> None:
        """The request ended: no need to close anything."""
        self._timer.cancel()


def _shut(sock: Any) -> None:
    """End a socket's exchange at once: a read blocked on it returns (it is closed by its
    owner, httpcore)."""
    import socket

    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line, without a final period."""
    return " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
