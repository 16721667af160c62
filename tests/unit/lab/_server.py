"""A real search engine (SQLite FTS5) behind an HTTP server on 127.0.0.1, for the HTTP tests.

The server answers ``GET /search?q=...&k=...`` and ``POST /search`` with a JSON body
``{"query": {"text": ...}, "size": k}``; ``/boom`` answers 500 and ``/text`` plain text. For
the security tests: ``/to?status=302&location=URL`` (GET or POST) redirects, ``/loop`` to itself;
``/trickle`` sends a JSON answer one byte at a time, ``pause`` seconds apart;
``/big?bytes=N&length=1`` sends N bytes (with a ``Content-Length`` if ``length=1``) and counts
in ``sent`` what it could write before the client hung up (``big_done`` is set then);
``/gzip`` answers compressed and ``/deep`` with JSON nested 100,000 deep. Every request is
recorded in ``seen`` as ``(method, path, headers with lower-case names, body)``.

It binds an ephemeral port on the loopback address only, serves at most ``max_requests``
requests and stops by itself after ``lifetime`` seconds, whatever the test does.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from cranfield.lab import SQLiteFTS5


class EngineServer:
    """Serve ``engine`` (an indexed system) over HTTP in a background thread."""

    def __init__(self, engine: SQLiteFTS5, *, max_requests: int = 2000, lifetime: float = 60.0):
        self.engine = engine
        self.max_requests = max_requests
        self.requests = 0
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        self.sent = 0
        self.big_done = threading.Event()
        self.slow_cut = threading.Event()  # /slow-headers: the client hung up before the end
        self.pause = 0.02
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _count(self, body: bytes = b"") -> bool:
                headers = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests += 1
                    server.seen.append((self.command, self.path, headers, body))
                    over = server.requests > server.max_requests
                if over:
                    self.send_error(503, "request budget spent")
                    threading.Thread(target=server.stop, daemon=True).start()
                return not over

            def _answer(self, query: str, k: int) -> None:
                hits = [{"doc_id": d, "score": s} for d, s in server.engine.search(query, k)]
                body = json.dumps({"took": 0, "hits": hits}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _plain(self, body: bytes, **headers: str) -> None:
                self.send_response(200)
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _redirect(self, params: dict[str, list[str]]) -> None:
                self.send_response(int(params["status"][0]))
                self.send_header("Location", params["location"][0])
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _trickle(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                try:
                    for byte in b'{"hits": []' + b" " * 500 + b"}":
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(server.pause)
                except OSError:
                    pass

            def _slow_headers(self) -> None:
                """A status line and headers one byte at a time (a slowloris answer)."""
                head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                head += b"X-Padding: " + b"p" * 400 + b"\r\nContent-Length: 12\r\n\r\n"
                try:
                    for byte in head:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(server.pause)
                    self.wfile.write(b'{"hits": []}')
                except OSError:
                    server.slow_cut.set()

            def _big(self, params: dict[str, list[str]]) -> None:
                total = int(params["bytes"][0])
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if params.get("length") == ["1"]:
                    self.send_header("Content-Length", str(total))
                self.end_headers()
                piece = b"[" + b" " * 65534 + b"]"
                try:
                    while server.sent < total:
                        self.wfile.write(piece)
                        server.sent += len(piece)
                except OSError:
                    pass
                finally:
                    server.big_done.set()

            def do_GET(self) -> None:
                if not self._count():
                    return
                url = urllib.parse.urlsplit(self.path)
                params = urllib.parse.parse_qs(url.query)
                if url.path == "/to":
                    self._redirect(params)
                    return
                if url.path == "/loop":
                    self._redirect({"status": ["302"], "location": ["/loop"]})
                    return
                if url.path == "/trickle":
                    self._trickle()
                    return
                if url.path == "/slow-headers":
                    self._slow_headers()
                    return
                if url.path == "/big":
                    self._big(params)
                    return
                if url.path == "/gzip":
                    self._plain(gzip.compress(b'{"hits": []}'), Content_Encoding="gzip")
                    return
                if url.path == "/deep":
                    self._plain(b"[" * 100_000 + b"]" * 100_000)
                    return
                if url.path == "/boom":
                    self.send_error(500, "engine exploded")
                    return
                if url.path == "/text":
                    body = b"not json"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self._answer(params["q"][0], int(params["k"][0]))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if not self._count(body):
                    return
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/to":
                    self._redirect(urllib.parse.parse_qs(url.query))
                    return
                payload = json.loads(body)
                self._answer(payload["query"]["text"], int(payload["size"]))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> EngineServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._timer.cancel()
        self.httpd.shutdown()

    def __enter__(self) -> EngineServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
        self._thread.join(timeout=10)
        self.httpd.server_close()
        self.engine.close()
