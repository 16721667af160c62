"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1:0, for the judges' tests.

The answer is chosen by a marker in the prompt's passage: ``ANSWER=<text>`` answers ``<text>``
(up to the end of its line), ``SLOW`` answers after ``slow_seconds``, ``HUGE`` answers 200 kB,
``BUSY`` answers 429 to its first two requests, ``DOWN`` always 500, ``NOTCHAT`` a JSON
without choices; with no marker, a prompt that repeats one phrase (keyword stuffing) gets
``stuffed_answer``. Every request is counted, its Authorization header kept.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (it gave up on a slow answer) is not an error here."""


class ChatServer:
    """Start with ``with ChatServer() as server:``; ``server.url`` is the API's base URL."""

    def __init__(self, *, stuffed_answer: str = "##final score: 0", slow_seconds: float = 2.0):
        self.requests = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self.by_marker: Counter[str] = Counter()
        self.authorizations: list[str | None] = []
        self.bodies: list[dict[str, Any]] = []
        self.stuffed_answer = stuffed_answer
        self.slow_seconds = slow_seconds
        self.lock = threading.Lock()
        self.server = _QuietServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                # A request is in flight from its arrival until its answer starts to go out
                # (:meth:`_send`): once the client has the answer it may send the next one,
                # which must not find this one still counted.
                self.counted = True
                with owner.lock:
                    owner.in_flight += 1
                    owner.most_in_flight = max(owner.most_in_flight, owner.in_flight)
                try:
                    self._post()
                finally:
                    self._answered()

            def _answered(self) -> None:
                if self.counted:
                    self.counted = False
                    with owner.lock:
                        owner.in_flight -= 1

            def _post(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                prompt = body["messages"][0]["content"]
                with owner.lock:
                    owner.requests += 1
                    owner.authorizations.append(self.headers.get("Authorization"))
                    owner.bodies.append(body)
                if self.path != "/v1/chat/completions":
                    return self._send(404, b"{}")
                marker = next(
                    (m for m in ("SLOW", "HUGE", "BUSY", "DOWN", "NOTCHAT") if m in prompt), None
                )
                with owner.lock:
                    owner.by_marker[marker or "ANSWER"] += 1
                    seen = owner.by_marker[marker or "ANSWER"]
                if marker == "DOWN":
                    return self._send(500, b'{"error": "down"}')
                if marker == "BUSY" and seen <= 2:
                    return self._send(429, b'{"error": "slow down"}')
                if marker == "NOTCHAT":
                    return self._send(200, b'{"result": "2"}')
                if marker == "HUGE":
                    return self._chat("x" * 200_000)
                if marker == "SLOW":
                    time.sleep(owner.slow_seconds)
                    return self._chat("##final score: 1")
                found = re.search(r"ANSWER=(.*)", prompt)
                if found is not None:
                    return self._chat(found.group(1).replace("\\n", "\n"))
                return self._chat(owner.stuffed_answer)

            def _chat(self, text: str) -> None:
                data = {
                    "choices": [{"message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 7},
                }
                self._send(200, json.dumps(data).encode())

            def _send(self, status: int, data: bytes) -> None:
                self._answered()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
