"""A model judge behind an OpenAI-compatible chat-completions endpoint, and its answer cache.

:class:`ChatJudge` sends one prompt as one user message to ``POST {url}/chat/completions``
(vLLM, llama.cpp's server, Ollama and hosted services speak it) and returns the answer's text
and token counts. The transport is the lab's :class:`~cranfield.lab.http.JSONClient`, with all
its rules: http(s) only, redirects to the same origin only, the ``Authorization`` header to the
configured origin only and never across a redirect to another, answers bounded in size and
time. On top of it:

* **The key** comes from an environment variable (``api_key_env``, ``OPENAI_API_KEY`` by
  default; none when unset) and lives only in the request header: it is not an argument, not
  in any file, cache key, message or repr.
* **Retries**: a 429 or 5xx answer, a time-out or a broken connection is retried up to
  ``retries`` times, after ``backoff``, ``2·backoff``, ``4·backoff`` ... seconds (capped at 60);
  any other failure (4xx, an answer that is not chat-completions JSON) is not.
* **Rate**: at most ``rate`` requests are started per second, across threads (none by default).

:class:`AnswerCache` keeps every answer received, content-addressed: the key is the SHA-256 of
the model, the endpoint's origin, the template's identity (name, version, digest), the
parameters (temperature, max tokens, seed), the query id and text and the passage id and text.
A rerun with the same key sends nothing and reads the same answer, so it gives the same qrels.
Each answer is one JSON file (``ab/abcdef....json``) written whole or not at all
(:mod:`cranfield.io.sink`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from cranfield._validate import check_float, check_int
from cranfield.errors import EngineError, OptionError
from cranfield.lab.http import HTTPStatusError, JSONClient, check_url, shown_url

__all__ = ["RETRIED_STATUSES", "AnswerCache", "ChatAnswer", "ChatJudge"]

RETRIED_STATUSES: Final = frozenset({408, 429, 500, 502, 503, 504})
_MAX_WAIT: Final = 60.0


@dataclass(frozen=True)
class ChatAnswer:
    """One answer: its text, tokens counted by the server, attempts it took."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int


class _Rate:
    """At most ``rate`` starts a second across threads (``None``: no limit)."""

    def __init__(
        self, rate: float | None, clock: Callable[[], float], sleep: Callable[[float], None]
    ):
        self.gap = 0.0 if rate is None else 1.0 / rate
        self.clock, self.sleep = clock, sleep
        self.next = 0.0
        self.lock = threading.Lock()

    def wait(self) -> None:
        if not self.gap:
            return
        with self.lock:
            now = self.clock()
            start = max(now, self.next)
            self.next = start + self.gap
        if start > now:
            self.sleep(start - now)


class ChatJudge:
    """Chat-completions requests under the rules of the module documentation; thread-safe.

    Parameters
    ----------
    url:
        The API's base URL (``http://127.0.0.1:8000/v1``); ``/chat/completions`` is appended.
    model:
        The model's name as the endpoint knows it.
    api_key_env:
        The environment variable holding the API key (read here, once).
    temperature, max_tokens, seed:
        Sent with every request (``seed`` only when given); part of the cache key.
    timeout, max_response_bytes:
        The limits of one request (:class:`~cranfield.lab.http.JSONClient`).
    retries, backoff:
        Retries of a 429, 5xx, time-out or broken connection, and the first wait in seconds.
    rate:
        Most requests started per second (``None``: no limit).
    sleep, clock:
        How to wait and read the time (tests replace them).
    """

    def __init__(  # noqa: PLR0913 -- the endpoint, the request, the limits, the clock
        self,
        url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = None,
        timeout: float = 120.0,
        max_response_bytes: int = 1 * 2**20,
        retries: int = 4,
        backoff: float = 1.0,
        rate: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_url(url)
        if "{" in url or "}" in url:
            raise OptionError("url", "a base URL without '{' or '}'", shown_url(url))
        if urllib.parse.urlsplit(url).username is not None:
            raise OptionError(
                "url",
                "a URL without user:password@ (the key comes from api_key_env)",
                shown_url(url),
            )
        if not isinstance(model, str) or not model.strip():
            raise OptionError("model", "the model's name", model)
        self.url = url.rstrip("/") + "/chat/completions"
        self.model = model
        self.temperature = check_float("temperature", temperature, minimum=0)
        self.max_tokens = check_int("max_tokens", max_tokens, minimum=1)
        self.seed = check_int("seed", seed, none=True)
        self.retries = check_int("retries", retries, minimum=0)
        self.backoff = check_float("backoff", backoff, minimum=0)
        if rate is not None:
            check_float("rate", rate, minimum=0, above=True)
        self.api_key_env = api_key_env
        key = os.environ.get(api_key_env, "") if api_key_env else ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = JSONClient(
            headers=headers, timeout=timeout, max_response_bytes=max_response_bytes
        )
        self._sleep = sleep
        self._rate = _Rate(rate, clock, sleep)
        self.requests = 0
        self._count = threading.Lock()

    def __repr__(self) -> str:
        return f"ChatJudge(url={shown_url(self.url)!r}, model={self.model!r})"

    @property
    def origin(self) -> str:
        """Scheme, host and port of the endpoint (part of the cache key)."""
        parts = urllib.parse.urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"

    @property
    def parameters(self) -> dict[str, Any]:
        """What is sent with every prompt (part of the cache key)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def ask(self, prompt: str) -> ChatAnswer:
        """The answer to ``prompt``, retried as the module documentation says.

        Raises
        ------
        EngineError
            The last failure, once the retries are spent or at once for one not retried.
        """
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            **{k: v for k, v in self.parameters.items() if v is not None},
        }
        data = json.dumps(body).encode("utf-8")
        for attempt in range(1, self.retries + 2):
            self._rate.wait()
            with self._count:
                self.requests += 1
            try:
                return _answer(self._client.fetch(self.url, data), shown_url(self.url), attempt)
            except EngineError as exc:
                if attempt > self.retries or not _retried(exc):
                    raise
                self._sleep(min(self.backoff * 2 ** (attempt - 1), _MAX_WAIT))
        raise AssertionError("unreachable")  # pragma: no cover


def _retried(exc: EngineError) -> bool:
    if isinstance(exc, HTTPStatusError):
        return exc.status in RETRIED_STATUSES
    text = str(exc)
    return any(w in text for w in ("did not answer within", "could not be reached", " failed: "))


def _answer(data: Any, where: str, attempts: int) -> ChatAnswer:
    try:
        text = data["choices"][0]["message"]["content"]
        if not isinstance(text, str):
            raise TypeError(type(text).__name__)
    except (KeyError, IndexError, TypeError):
        raise EngineError(
            f"{where} did not answer as a chat-completions endpoint (no choices[0].message."
            "content text)."
        ) from None
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    tokens = [usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens")]
    counts = [t if isinstance(t, int) and not isinstance(t, bool) and t >= 0 else 0 for t in tokens]
    return ChatAnswer(text, counts[0], counts[1], attempts)


class AnswerCache:
    """Answers kept on disk by content (module documentation)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    @staticmethod
    def key(identity: dict[str, Any]) -> str:
        """The SHA-256 (hex) of ``identity`` as canonical JSON."""
        text = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The answer kept under ``key``, or ``None``."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise EngineError(f"The cached answer {path} cannot be read ({exc}).") from None
        return data if isinstance(data, dict) else None

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Keep ``record`` under ``key`` (written whole, or not at all)."""
        from cranfield.io.sink import write_text

        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(record, sort_keys=True, ensure_ascii=False, indent=1) + "\n")
