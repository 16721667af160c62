"""A real search engine (SQLite FTS5) behind an HTTP server on 127.0.0.1, for the HTTP tests.

The server answers ``GET /search?q=...&k=...`` and ``POST /search`` with a JSON body
``{"query": {"text": ...}, "size": k}``; ``/boom`` answers 500 and ``/text`` plain text. It
binds an ephemeral port on the loopback address only, serves at most ``max_requests``
requests and stops by itself after ``lifetime`` seconds, whatever the test does.
"""

from __future__ import annotations

import json
import threading
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
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _count(self) -> bool:
                with server._lock:
                    server.requests += 1
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

            def do_GET(self) -> None:
                if not self._count():
                    return
                url = urllib.parse.urlsplit(self.path)
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
                params = urllib.parse.parse_qs(url.query)
                self._answer(params["q"][0], int(params["k"][0]))

            def do_POST(self) -> None:
                if not self._count():
                    return
                length = int(self.headers.get("Content-Length", "0"))
                payload = json.loads(self.rfile.read(length))
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
