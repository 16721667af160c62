"""Systems under test: a small protocol and adapters for real engines.

A *system* indexes a stream of :class:`~cranfield.lab.Document` objects into a directory
and answers a query with its top ``k`` documents and scores. Anything with these members
is a system (:class:`System` is a structural protocol):

* ``name``: a short name (run tag, report row);
* ``config()``: JSON-ready parameters that identify the configuration (the cache key of
  its index and runs);
* ``index(documents, directory)``: build the index in an empty directory;
* ``load(directory)``: open an index built earlier by ``index``;
* ``search(query, k)``: up to ``k`` ``(doc_id, score)`` pairs, best first.

``search`` may be called from several threads at once (throughput is measured with a thread
pool). An optional attribute ``builds_index = False`` tells the experiment that the system
keeps no index of its own (its index figures are then reported as not applicable).

Adapters: :class:`SQLiteFTS5` (SQLite's FTS5 with its bm25 ranking, part of Python),
:class:`BM25S` (the ``bm25s`` package), :class:`Tantivy` (the ``tantivy`` package),
:class:`HTTPSystem` (any JSON search endpoint), :class:`CallableSystem` (a Python function)
and :class:`PrecomputedRun` (a run file, effectiveness only). ``bm25s``, ``PyStemmer`` and
``tantivy`` are optional: ``pip install '.[lab]'``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import sqlite3
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol, runtime_checkable

from cranfield._lazy import install_hint
from cranfield._validate import check_choice, check_float, check_int
from cranfield.data.run import Run
from cranfield.errors import EngineError, OptionError
from cranfield.io.load import RunLike, load_run
from cranfield.io.sink import write_text
from cranfield.lab.collections import Document
from cranfield.lab.http import (
    MAX_RESPONSE_BYTES,
    JSONClient,
    Redirects,
    check_url,
    recorded_url,
    shown_url,
)

__all__ = [
    "BM25S",
    "CallableSystem",
    "EngineError",
    "HTTPSystem",
    "Hits",
    "PrecomputedRun",
    "SQLiteFTS5",
    "System",
    "Tantivy",
    "query_terms",
]

Hits = list[tuple[str, float]]
_WORD: Final = re.compile(r"\w+")


def query_terms(query: str) -> list[str]:
    """Lower-cased word tokens of ``query`` (``\\w+`` runs), first occurrence order, no repeats.

    The adapters build their engine's query from these, so punctuation in topics can never
    be read as query syntax.

    Examples
    --------
    >>> query_terms("What (is) the drag? drag-free: NO")
    ['what', 'is', 'the', 'drag', 'free', 'no']
    """
    return list(dict.fromkeys(t.lower() for t in _WORD.findall(query)))


@runtime_checkable
class System(Protocol):
    """What :class:`cranfield.lab.Experiment` needs from a system under test (see module doc)."""

    name: str

    def config(self) -> dict[str, Any]:
        """JSON-ready parameters identifying this configuration."""
        ...

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Build the index of ``documents`` inside the empty ``directory`` (created if missing)."""
        ...

    def load(self, directory: Path) -> None:
        """Open the index that :meth:`index` built in ``directory``."""
        ...

    def search(self, query: str, k: int) -> Sequence[tuple[str, float]]:
        """Up to ``k`` ``(doc_id, score)`` pairs, best first (thread-safe)."""
        ...


def _require(module: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(
            f"this system needs the optional package {package}; {install_hint('lab')} "
            f"(or pip install {package})"
        ) from None


def _check_name(name: str) -> str:
    """A system's name: it names its index, run and report rows, so one word."""
    if not isinstance(name, str) or not name or any(c.isspace() for c in name):
        raise OptionError("name", "a non-empty word without blanks", name)
    return name


def _rebuild(cls: type[Any], name: str, params: dict[str, Any]) -> Any:
    """Unpickle an adapter: a fresh instance with the same parameters and no open index."""
    return cls(name, **params)


def _not_loaded(name: str) -> EngineError:
    return EngineError(f"system {name!r} has no index open; call index() or load() first.")


# --------------------------------------------------------------------------- SQLite FTS5


class SQLiteFTS5:
    """SQLite's full-text index FTS5, ranked by its built-in ``bm25()`` (k1 = 1.2, b = 0.75).

    Parameters
    ----------
    name:
        System name.
    tokenizer:
        FTS5 tokenizer specification (default ``"porter unicode61 remove_diacritics 2"``:
        Porter stemming over Unicode word splitting).

    Notes
    -----
    The query is the OR of its terms (:func:`query_terms`), each quoted so that FTS5 syntax
    characters in topics are inert. FTS5's ``bm25()`` is negative (smaller is better); the
    score reported is its negation. The FTS5 table is contentless (the text is not stored);
    a second table maps row ids to document ids. Each searching thread opens its own read-only
    connection. Needs only the standard library (SQLite with FTS5, as in CPython's builds).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> s = SQLiteFTS5()
    >>> s.index([Document("d1", "wind tunnel tests"), Document("d2", "heat transfer")],
    ...         Path(tempfile.mkdtemp()))
    >>> [doc for doc, _ in s.search("wind tunnels?", 10)]
    ['d1']
    >>> s.close()
    """

    builds_index = True

    def __init__(
        self, name: str = "sqlite-fts5", *, tokenizer: str = "porter unicode61 remove_diacritics 2"
    ) -> None:
        self.name = _check_name(name)
        if not isinstance(tokenizer, str) or "'" in tokenizer:
            raise OptionError("tokenizer", "an FTS5 tokenizer spec without a quote", tokenizer)
        self.tokenizer = tokenizer
        self._path: Path | None = None
        self._doc_ids: dict[int, str] = {}
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: list[sqlite3.Connection] = []

    def __repr__(self) -> str:
        return f"SQLiteFTS5(name={self.name!r}, tokenizer={self.tokenizer!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (type(self), self.name, {"tokenizer": self.tokenizer})

    def config(self) -> dict[str, Any]:
        """Engine, SQLite version and tokenizer."""
        return {
            "engine": "sqlite-fts5",
            "sqlite": sqlite3.sqlite_version,
            "tokenizer": self.tokenizer,
        }

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Build a contentless FTS5 table and a rowid -> doc id table in ``index.sqlite``."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        path = Path(directory) / "index.sqlite"
        try:
            con = sqlite3.connect(path)
        except sqlite3.Error as exc:
            raise EngineError(f"SQLite could not create the index {path}: {exc}.") from exc
        try:
            con.execute("PRAGMA journal_mode=OFF")
            con.execute(
                f"CREATE VIRTUAL TABLE docs USING fts5(body, content='', tokenize='{self.tokenizer}')"
            )
            con.execute("CREATE TABLE ids(rowid INTEGER PRIMARY KEY, doc_id TEXT NOT NULL)")
            for ordinal, d in enumerate(documents, start=1):
                con.execute("INSERT INTO ids(rowid, doc_id) VALUES (?, ?)", (ordinal, d.doc_id))
                con.execute("INSERT INTO docs(rowid, body) VALUES (?, ?)", (ordinal, d.contents))
            con.execute("INSERT INTO docs(docs) VALUES ('optimize')")
            con.commit()
        except sqlite3.Error as exc:
            raise EngineError(f"SQLite could not build the index {path}: {exc}.") from exc
        finally:
            con.close()
        self.load(directory)

    def load(self, directory: Path) -> None:
        """Use ``directory/index.sqlite`` (its doc id table is read into memory)."""
        path = Path(directory) / "index.sqlite"
        if not path.is_file():
            raise EngineError(f"no SQLite index at {path}.")
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT rowid, doc_id FROM ids ORDER BY rowid").fetchall()
        except sqlite3.Error as exc:
            raise EngineError(f"{path} is not an index of this adapter: {exc}.") from exc
        finally:
            con.close()
        self._doc_ids = {int(r): str(d) for r, d in rows}
        self._path = path
        self.close()

    def _connection(self) -> sqlite3.Connection:
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        if con is None:
            if self._path is None:
                raise _not_loaded(self.name)
            con = sqlite3.connect(
                f"{self._path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            self._local.con = con
            with self._lock:
                self._open.append(con)
        return con

    def close(self) -> None:
        """Close the connections every searching thread opened."""
        with self._lock:
            for con in self._open:
                con.close()
            self._open.clear()
        self._local = threading.local()

    def search(self, query: str, k: int) -> Hits:
        """Top ``k`` documents by FTS5 bm25 for the OR of the query's terms."""
        k = check_int("k", k, minimum=1)
        terms = query_terms(query)
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        try:
            rows = (
                self._connection()
                .execute(
                    "SELECT rowid, bm25(docs) AS s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT ?",
                    (match, k),
                )
                .fetchall()
            )
            ids = self._doc_ids
            return [(ids[int(r)], -float(s)) for r, s in rows]
        except sqlite3.Error as exc:
            raise EngineError(f"SQLite failed on the query {query!r}: {exc}.") from exc


# --------------------------------------------------------------------------- bm25s

BM25S_METHODS: Final = ("lucene", "robertson", "atire", "bm25l", "bm25+")
"""The BM25 variants bm25s implements (its ``method`` option)."""


class BM25S:
    """BM25 from the ``bm25s`` package (sparse matrices of precomputed term scores).

    Parameters
    ----------
    name:
        System name.
    k1, b:
        BM25 parameters.
    method:
        bm25s variant, one of :data:`BM25S_METHODS`: ``"lucene"`` (default),
        ``"robertson"``, ``"atire"``, ``"bm25l"``, ``"bm25+"``.
    stopwords:
        bm25s stop word list (``"en"``) or ``None`` (or ``""``) for none.
    stemmer:
        Snowball language for PyStemmer (``"english"``) or ``None`` (or ``""``) for no
        stemming.

    Notes
    -----
    Documents and queries are tokenised by ``bm25s.tokenize`` (lower case, words of two or
    more characters). Documents without any query term (score 0) are not returned.
    """

    builds_index = True

    def __init__(
        self,
        name: str = "bm25s",
        *,
        k1: float = 1.2,
        b: float = 0.75,
        method: str = "lucene",
        stopwords: str | None = "en",
        stemmer: str | None = "english",
    ) -> None:
        self.name = _check_name(name)
        self.k1 = check_float("k1", k1, minimum=0)
        self.b = check_float("b", b, minimum=0, maximum=1)
        self.method = check_choice("method", method, BM25S_METHODS)
        self.stopwords, self.stemmer = (stopwords or None), (stemmer or None)
        stemmer = self.stemmer
        self._bm25s = _require("bm25s", "bm25s")
        self._stem: Any = None
        if stemmer is not None:
            stem_module = _require("Stemmer", "PyStemmer")
            try:
                self._stem = stem_module.Stemmer(stemmer)
            except KeyError:
                raise OptionError("stemmer", "a Snowball language or None", stemmer) from None
        self._retriever: Any = None
        self._doc_ids: list[str] = []

    def __repr__(self) -> str:
        return f"BM25S(name={self.name!r}, k1={self.k1}, b={self.b}, stemmer={self.stemmer!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        params = {
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "stopwords": self.stopwords,
            "stemmer": self.stemmer,
        }
        return _rebuild, (type(self), self.name, params)

    def config(self) -> dict[str, Any]:
        """Engine, version and every parameter."""
        return {
            "engine": "bm25s",
            "version": str(getattr(self._bm25s, "__version__", "?")),
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "stopwords": self.stopwords,
            "stemmer": self.stemmer,
        }

    def _tokenize(self, texts: list[str], *, ids: bool) -> Any:
        return self._bm25s.tokenize(
            texts,
            stopwords=self.stopwords,
            stemmer=self._stem,
            return_ids=ids,
            show_progress=False,
        )

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Tokenise, score and save the sparse index (and the doc id list) to ``directory``."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        ids: list[str] = []
        texts: list[str] = []
        for d in documents:
            ids.append(d.doc_id)
            texts.append(d.contents)
        retriever = self._bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        retriever.index(self._tokenize(texts, ids=True), show_progress=False)
        retriever.save(str(directory), show_progress=False)
        write_text(Path(directory) / "doc_ids.json", json.dumps(ids))
        self._retriever, self._doc_ids = retriever, ids

    def load(self, directory: Path) -> None:
        """Load the saved index."""
        ids_path = Path(directory) / "doc_ids.json"
        if not ids_path.is_file():
            raise EngineError(f"no bm25s index at {directory} (doc_ids.json is missing).")
        self._doc_ids = json.loads(ids_path.read_text(encoding="utf-8"))
        self._retriever = self._bm25s.BM25.load(str(directory), show_progress=False)

    def search(self, query: str, k: int) -> Hits:
        """Top ``k`` documents with a positive BM25 score."""
        k = check_int("k", k, minimum=1)
        if self._retriever is None:
            raise _not_loaded(self.name)
        tokens = self._tokenize([query], ids=False)[0]
        if not tokens:
            return []
        n = min(k, len(self._doc_ids))
        docs, scores = self._retriever.retrieve([tokens], k=n, show_progress=False, n_threads=1)
        ids = self._doc_ids
        return [(ids[int(i)], float(s)) for i, s in zip(docs[0], scores[0], strict=True) if s > 0]


# --------------------------------------------------------------------------- tantivy


class Tantivy:
    """The Tantivy engine (a Rust Lucene-like library) through its Python bindings.

    Parameters
    ----------
    name:
        System name.
    tokenizer:
        Tantivy analyser of the text field: ``"en_stem"`` (default: lower case, English
        stemming) or ``"default"`` (lower case, no stemming).
    heap_size:
        Indexing memory budget of the writer, bytes.
    threads:
        Indexing threads.

    Notes
    -----
    Ranking is Tantivy's BM25 (k1 = 1.2, b = 0.75) over the OR of the query's terms
    (:func:`query_terms`). Each document gets a fast field with its ordinal so ids are read
    without touching the document store.
    """

    builds_index = True

    def __init__(
        self,
        name: str = "tantivy",
        *,
        tokenizer: str = "en_stem",
        heap_size: int = 50_000_000,
        threads: int = 1,
    ) -> None:
        self.name = _check_name(name)
        self.tokenizer = tokenizer
        self.heap_size = check_int("heap_size", heap_size, minimum=15_000_000)
        self.threads = check_int("threads", threads, minimum=1)
        self._tantivy = _require("tantivy", "tantivy")
        self._index: Any = None
        self._searcher: Any = None
        self._doc_ids: list[str] = []

    def __repr__(self) -> str:
        return f"Tantivy(name={self.name!r}, tokenizer={self.tokenizer!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        params = {"tokenizer": self.tokenizer, "heap_size": self.heap_size, "threads": self.threads}
        return _rebuild, (type(self), self.name, params)

    def config(self) -> dict[str, Any]:
        """Engine, version and analyser (indexing threads and memory do not change results)."""
        return {
            "engine": "tantivy",
            "version": str(getattr(self._tantivy, "__version__", "?")),
            "tokenizer": self.tokenizer,
        }

    def _schema(self) -> Any:
        builder = self._tantivy.SchemaBuilder()
        builder.add_integer_field("ord", stored=False, indexed=False, fast=True)
        builder.add_text_field("body", stored=False, tokenizer_name=self.tokenizer)
        return builder.build()

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Add every document, commit and wait for segment merges."""
        tv = self._tantivy
        Path(directory).mkdir(parents=True, exist_ok=True)
        try:
            index = tv.Index(self._schema(), path=str(directory))
            writer = index.writer(heap_size=self.heap_size, num_threads=self.threads)
            ids: list[str] = []
            for d in documents:
                writer.add_document(tv.Document(ord=len(ids), body=d.contents))
                ids.append(d.doc_id)
            writer.commit()
            writer.wait_merging_threads()
        except ValueError as exc:
            raise EngineError(f"Tantivy could not build the index in {directory}: {exc}.") from exc
        write_text(Path(directory) / "doc_ids.json", json.dumps(ids))
        self.load(directory)

    def load(self, directory: Path) -> None:
        """Open the index and a searcher."""
        ids_path = Path(directory) / "doc_ids.json"
        if not ids_path.is_file():
            raise EngineError(f"no tantivy index at {directory} (doc_ids.json is missing).")
        self._doc_ids = json.loads(ids_path.read_text(encoding="utf-8"))
        self._index = self._tantivy.Index.open(str(directory))
        self._index.reload()
        self._searcher = self._index.searcher()

    def search(self, query: str, k: int) -> Hits:
        """Top ``k`` documents by Tantivy's BM25."""
        k = check_int("k", k, minimum=1)
        if self._searcher is None:
            raise _not_loaded(self.name)
        terms = query_terms(query)
        if not terms:
            return []
        try:
            parsed = self._index.parse_query(" ".join(terms), ["body"])
            hits = self._searcher.search(parsed, k).hits
            ords = self._searcher.fast_field_values("ord", [a for _, a in hits])
        except ValueError as exc:
            raise EngineError(f"Tantivy failed on the query {query!r}: {exc}.") from exc
        ids = self._doc_ids
        return [(ids[int(o)], float(s)) for (s, _), o in zip(hits, ords, strict=True)]


# --------------------------------------------------------------------------- HTTP


def _fill(template: Any, query: str, k: int) -> Any:
    """Substitute ``{query}`` and ``{k}`` in every string of a JSON template."""
    if isinstance(template, str):
        if template == "{k}":
            return k
        return template.replace("{query}", query).replace("{k}", str(k))
    if isinstance(template, Mapping):
        return {key: _fill(value, query, k) for key, value in template.items()}
    if isinstance(template, list):
        return [_fill(value, query, k) for value in template]
    return template


def _path(obj: Any, path: str, what: str, url: str) -> Any:
    for part in path.split(".") if path else []:
        if isinstance(obj, Mapping) and part in obj:
            obj = obj[part]
        elif isinstance(obj, list) and part.isdigit() and int(part) < len(obj):
            obj = obj[int(part)]
        else:
            raise EngineError(f"the answer of {url} has no {what} at {path!r} (missing {part!r}).")
    return obj


class HTTPSystem:
    """Any HTTP search endpoint that answers with JSON.

    Parameters
    ----------
    name:
        System name.
    url:
        URL template; ``{query}`` is replaced by the URL-encoded query (every character
        but letters, digits and ``_.-~`` encoded, ``/`` included, so a topic's text never
        changes the URL's path) and ``{k}`` by the depth, e.g.
        ``"http://127.0.0.1:8080/search?q={query}&k={k}"``. An ``http`` or ``https`` URL
        whose scheme, host and port are fixed (the placeholders come after).
    body:
        JSON request template (sends a POST): every string ``"{query}"``/``"{k}"`` inside
        it is replaced (a string that is exactly ``"{k}"`` becomes the integer), e.g.
        ``{"query": {"match": {"body": "{query}"}}, "size": "{k}"}`` for Elasticsearch.
    hits:
        Dotted path of the hit list in the answer (``"hits"``; ``"hits.hits"`` for
        Elasticsearch); ``""`` if the answer is the list itself.
    doc_id, score:
        Dotted paths of the id and score inside a hit (``"_id"``, ``"_score"`` for
        Elasticsearch). A hit may also be a ``[doc_id, score]`` pair.
    headers:
        Extra request headers (``Authorization``, ``X-Api-Key`` ...), string values; sent
        to the origin of ``url`` only, never to another one.
    timeout:
        Seconds the whole request may take: connecting, redirects and reading the whole
        answer (a server that trickles its answer is cut off).
    max_response_bytes:
        The largest answer read, in bytes (default 64 MiB); counted as it arrives, so a
        larger answer is refused without being held in memory.
    redirects:
        Which redirects are followed: ``"same-origin"`` (default: to the scheme, host and
        port of ``url`` only), ``"any"`` (to any http or https URL; the configured headers
        are not sent there) or ``"none"``. A POST is never re-sent as a GET: a 301, 302 or
        303 answer to it is an error, a 307 or 308 is followed with the same body.

    Notes
    -----
    The engine behind the endpoint indexes on its own (``builds_index = False``); the
    experiment measures latency and throughput as seen by this client, one connection per
    request, so the figures include HTTP and JSON costs. The requests are sent by httpx
    (``pip install '.[lab]'``) under the rules of :mod:`cranfield.lab.http`;
    every failure is an :class:`~cranfield.errors.EngineError` naming the URL without its
    ``user:password@`` and query values.
    """

    builds_index = False

    def __init__(  # noqa: PLR0913 -- the request template and its limits, all keyword-only
        self,
        name: str,
        url: str,
        *,
        body: Mapping[str, Any] | None = None,
        hits: str = "hits",
        doc_id: str = "doc_id",
        score: str = "score",
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        redirects: Redirects = "same-origin",
    ) -> None:
        self.name = _check_name(name)
        self.url = check_url(url)
        if body is None and "{query}" not in url:
            raise OptionError(
                "url", "a URL with '{query}' in it when no JSON body is given", shown_url(url)
            )
        self.body = dict(body) if body is not None else None
        self.hits, self.doc_id, self.score = hits, doc_id, score
        self._client = JSONClient(
            headers=headers,
            timeout=timeout,
            max_response_bytes=max_response_bytes,
            redirects=redirects,
        )
        self.headers = self._client.headers
        self.timeout = self._client.timeout
        self.max_response_bytes = self._client.max_response_bytes
        self.redirects = self._client.redirects

    def __repr__(self) -> str:
        return f"HTTPSystem(name={self.name!r}, url={shown_url(self.url)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        params = {
            "url": self.url,
            "body": self.body,
            "hits": self.hits,
            "doc_id": self.doc_id,
            "score": self.score,
            "headers": self.headers,
            "timeout": self.timeout,
            "max_response_bytes": self.max_response_bytes,
            "redirects": self.redirects,
        }
        return _rebuild, (type(self), self.name, params)

    def config(self) -> dict[str, Any]:
        """The endpoint and the request/answer templates.

        This goes into the workdir's manifests and results, so the URL is as
        :func:`~cranfield.lab.http.recorded_url` shows it: without its ``user:password@`` and
        the values of secret-named query parameters (the configured headers are never part
        of it either).
        """
        return {
            "engine": "http",
            "url": recorded_url(self.url),
            "body": self.body,
            "hits": self.hits,
            "doc_id": self.doc_id,
            "score": self.score,
        }

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Nothing to do: the server holds its own index."""

    def load(self, directory: Path) -> None:
        """Nothing to do: the server holds its own index."""

    def close(self) -> None:
        """Close the HTTP client (a later search opens a new one)."""
        self._client.close()

    def search(self, query: str, k: int) -> Hits:
        """Send the request and read ``(doc_id, score)`` pairs from the JSON answer."""
        k = check_int("k", k, minimum=1)
        # safe="": a '/' (or '?', '#', '&') in a topic's text is data, never a new path
        # segment or parameter of the URL ("../admin" stays inside its placeholder).
        url = self.url.replace("{query}", urllib.parse.quote(query, safe="")).replace("{k}", str(k))
        data = None
        if self.body is not None:
            data = json.dumps(_fill(self.body, query, k)).encode()
        payload = self._client.fetch(url, data)
        where = shown_url(url)
        found = _path(payload, self.hits, "hit list", where)
        if not isinstance(found, list):
            raise EngineError(f"the answer of {where} has no list at {self.hits!r}.")
        out: Hits = []
        for hit in found[:k]:
            if isinstance(hit, list) and len(hit) == 2:
                doc, value = hit
            else:
                doc = _path(hit, self.doc_id, "document id", where)
                value = _path(hit, self.score, "score", where)
            try:
                out.append((str(doc), float(value)))
            except (TypeError, ValueError):
                raise EngineError(
                    f"the answer of {where} has a non-numeric score {value!r}."
                ) from None
        return out


# --------------------------------------------------------------------------- callables


def _code_hash(fn: object) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return type(fn).__qualname__
    return hashlib.sha256(code.co_code + repr(code.co_consts).encode()).hexdigest()[:16]


class CallableSystem:
    """A plain Python function as a system.

    Parameters
    ----------
    name:
        System name.
    search:
        ``search(query, k)`` returning ``(doc_id, score)`` pairs or a ``{doc_id: score}``
        mapping.
    index, load:
        Optional ``index(documents, directory)`` and ``load(directory)``; without
        ``index`` the system keeps no index (``builds_index`` is false).
    config:
        JSON-ready parameters for the cache key; the function's code is hashed as well.

    Examples
    --------
    >>> s = CallableSystem("const", lambda query, k: {"d1": 1.0, "d2": 0.5})
    >>> s.search("anything", 1)
    [('d1', 1.0)]
    """

    def __init__(
        self,
        name: str,
        search: Callable[[str, int], Iterable[tuple[str, float]] | Mapping[str, float]],
        *,
        index: Callable[[Iterable[Document], Path], None] | None = None,
        load: Callable[[Path], None] | None = None,
        config: Mapping[str, Any] | None = None,
    ) -> None:
        if not callable(search):
            raise OptionError("search", "a function of (query, k)", search)
        self.name = _check_name(name)
        self._search, self._index, self._load = search, index, load
        self._config = dict(config or {})
        self.builds_index = index is not None

    def __repr__(self) -> str:
        return f"CallableSystem(name={self.name!r})"

    def config(self) -> dict[str, Any]:
        """The given parameters plus the function's name and code hash."""
        fn = self._search
        return {
            "engine": "python",
            "function": f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}",
            "code": _code_hash(fn),
            "index_code": _code_hash(self._index) if self._index is not None else None,
            **self._config,
        }

    def index(self, documents: Iterable[Document], directory: Path) -> None:
        """Call the given ``index`` function, if any."""
        if self._index is not None:
            self._index(documents, directory)

    def load(self, directory: Path) -> None:
        """Call the given ``load`` function, if any."""
        if self._load is not None:
            self._load(directory)

    def search(self, query: str, k: int) -> Hits:
        """The function's answer as ``(doc_id, score)`` pairs, best first, cut at ``k``."""
        k = check_int("k", k, minimum=1)
        answer = self._search(query, k)
        pairs = answer.items() if isinstance(answer, Mapping) else answer
        try:
            hits = [(str(d), float(s)) for d, s in pairs]
        except (TypeError, ValueError) as exc:
            raise EngineError(
                f"system {self.name!r} must return (doc_id, score) pairs, got {answer!r:.80}."
            ) from exc
        hits.sort(key=lambda h: -h[1])
        return hits[:k]


# --------------------------------------------------------------------------- precomputed


@dataclass(frozen=True, eq=False)
class PrecomputedRun:
    """A run computed elsewhere (a TREC file, a DataFrame, a dict): effectiveness only.

    The experiment evaluates it with the other systems; it has no index, latency or
    throughput figures.
    """

    name: str
    run: RunLike

    def load(self) -> Run:
        """The run, read and validated."""
        return load_run(self.run, name=self.name)

    def config(self) -> dict[str, Any]:
        """The source (a file path with its size and the SHA-256 of its bytes, or the object
        type): the content, not the file's times, identifies a run."""
        if isinstance(self.run, (str, Path)):
            from cranfield.evaluation.provenance import file_sha256

            p = Path(self.run)
            found = p.is_file()
            return {
                "engine": "run",
                "path": str(p.resolve()),
                "size": p.stat().st_size if found else None,
                "sha256": file_sha256(p) if found else None,
            }
        return {"engine": "run", "object": type(self.run).__name__, "id": id(self.run)}
