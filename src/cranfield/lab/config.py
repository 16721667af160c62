"""Experiments described in TOML files (``cranfield lab run CONFIG``).

A configuration names the collection, the systems and the measures; relative paths are
relative to the configuration file::

    [experiment]
    name = "cranfield"
    workdir = "lab-out"              # default: lab-<collection> beside the file
    measures = ["AP", "nDCG@10", "P@10"]
    k = 1000                          # documents retrieved per topic
    baseline = "bm25s"                # default: the first system
    tests = ["t-test"]
    correction = "holm"
    seed = 0
    warmup = 20
    repetitions = 3
    concurrency = [1, 2, 4]

    [collection]
    format = "cranfield"              # or "trec" (qrels + topics + documents), "ir_datasets"
    path = "../../../shared/data/cranfield"

    [[systems]]
    name = "bm25s"
    engine = "bm25s"                  # bm25s | tantivy | sqlite-fts5 | http | python | run
    k1 = 1.2
    b = 0.75

    [evaluation]                      # optional: the evaluation options (EvalOptions)
    missing = "zero"
    relevance_level = 1
    depth = 1000

    [cross_validation]                # optional
    measure = "AP"
    n_folds = 5
    seed = 0

Engines and their keys: ``bm25s`` (``k1``, ``b``, ``method``, ``stopwords``, ``stemmer``),
``tantivy`` (``tokenizer``, ``heap_size``, ``threads``), ``sqlite-fts5`` (``tokenizer``),
``http`` (``url``, ``body``, ``hits``, ``doc_id``, ``score``, ``headers``, ``timeout``,
``max_response_bytes``, ``redirects``),
``python`` (``search = "module:function"`` with optional ``index`` and ``load``
functions, or ``factory = "module:function"`` called with ``name=`` and the ``params``
table as keyword arguments and returning a system; the module is imported from the
import path or, failing that, from the configuration file's folder) and ``run`` (``path``
of a TREC run file). The ``trec`` collection format takes ``qrels``, ``topics`` (any format of
:func:`~cranfield.lab.read_topics`) and ``documents``: a JSON-lines file of
``{"doc_id", "text", "title"?}`` objects, or TREC's classic SGML (``<DOC><DOCNO>…</DOCNO>
<TEXT>…</TEXT></DOC>``, :func:`~cranfield.lab.collections.read_trec_documents`, plain or
compressed), told apart by their first character (``<`` or ``{``); ``ir_datasets`` takes
``dataset``.

A configuration is code: a ``python`` system imports and calls whatever ``module:function``
it names (``os:system`` included), so read only a configuration you would run as a Python
script (``SECURITY.md``, "A configuration is code").
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import stat
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Literal

from cranfield.errors import CranfieldError, EvaluationError, InputError, OptionError
from cranfield.evaluation.options import OPTION_NAMES, EvalOptions
from cranfield.evaluation.provenance import file_sha256
from cranfield.io.source import open_source
from cranfield.lab.collections import (
    CRANFIELD_GAINS,
    Collection,
    Document,
    from_ir_datasets,
    read_cranfield,
    read_topics,
    read_trec_documents,
)
from cranfield.lab.experiment import Experiment
from cranfield.lab.folds import cross_validation_settings
from cranfield.lab.systems import (
    BM25S,
    CallableSystem,
    HTTPSystem,
    PrecomputedRun,
    SQLiteFTS5,
    System,
    Tantivy,
)
from cranfield.lab.workdir import check_system_names

__all__ = ["ENGINES", "declared_keys", "load_config", "make_collection", "make_system"]

ENGINES: Final = ("bm25s", "tantivy", "sqlite-fts5", "http", "python", "run")
_ALIASES: Final = {"sqlite": "sqlite-fts5", "fts5": "sqlite-fts5", "callable": "python"}


@dataclass(frozen=True)
class _Kind:
    """The TOML type a key takes: its words in an error and its test."""

    words: str
    test: Callable[[Any], bool]


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_STRING: Final = _Kind("a string", lambda v: isinstance(v, str))
_INTEGER: Final = _Kind("an integer", _integer)
_NUMBER: Final = _Kind("a number", lambda v: isinstance(v, float) or _integer(v))
_BOOLEAN: Final = _Kind("true or false", lambda v: isinstance(v, bool))
_TABLE: Final = _Kind("a table", lambda v: isinstance(v, Mapping))
_STRINGS: Final = _Kind(
    "a string or a list of strings",
    lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
)
_INTEGERS: Final = _Kind(
    "a list of integers", lambda v: isinstance(v, list) and all(map(_integer, v))
)
_TABLE_OF_STRINGS: Final = _Kind(
    "a table of strings",
    lambda v: isinstance(v, Mapping) and all(isinstance(x, str) for x in v.values()),
)

# Every key of the file with the type it takes, table by table: the one list of what a
# configuration may say (what each value means is checked by the object it builds).
_TABLES: Final[dict[str, _Kind]] = {
    "experiment": _TABLE,
    "collection": _TABLE,
    "systems": _Kind("a list of [[systems]] tables", lambda v: isinstance(v, list)),
    "evaluation": _TABLE,
    "cross_validation": _TABLE,
}
_EXPERIMENT_KEYS: Final[dict[str, _Kind]] = {
    "name": _STRING,
    "workdir": _STRING,
    "measures": _STRINGS,
    "k": _INTEGER,
    "query_field": _STRING,
    "baseline": _STRING,
    "tests": _STRINGS,
    "correction": _STRING,
    "alpha": _NUMBER,
    "seed": _INTEGER,
    "warmup": _INTEGER,
    "repetitions": _INTEGER,
    "concurrency": _INTEGERS,
    "throughput_passes": _INTEGER,
    "throughput_seconds": _NUMBER,
    "isolate": _BOOLEAN,
    "efficiency": _BOOLEAN,
}
_COLLECTION_KEYS: Final[dict[str, dict[str, _Kind]]] = {
    "cranfield": {"format": _STRING, "path": _STRING, "gains": _TABLE},
    "trec": {
        "format": _STRING,
        "name": _STRING,
        "qrels": _STRING,
        "topics": _STRING,
        "documents": _STRING,
    },
    "ir_datasets": {"format": _STRING, "dataset": _STRING},
}
_ENGINE_KEYS: Final[dict[str, dict[str, _Kind]]] = {
    "bm25s": {
        "k1": _NUMBER,
        "b": _NUMBER,
        "method": _STRING,
        "stopwords": _STRING,
        "stemmer": _STRING,
    },
    "tantivy": {"tokenizer": _STRING, "heap_size": _INTEGER, "threads": _INTEGER},
    "sqlite-fts5": {"tokenizer": _STRING},
    "http": {
        "url": _STRING,
        "body": _TABLE,
        "hits": _STRING,
        "doc_id": _STRING,
        "score": _STRING,
        "headers": _TABLE_OF_STRINGS,
        "timeout": _NUMBER,
        "max_response_bytes": _INTEGER,
        "redirects": _STRING,
    },
    "python": {
        "search": _STRING,
        "factory": _STRING,
        "params": _TABLE,
        "index": _STRING,
        "load": _STRING,
    },
    "run": {"path": _STRING},
}
_CROSS_VALIDATION_KEYS: Final[dict[str, _Kind]] = {
    "measure": _STRING,
    "n_folds": _INTEGER,
    "seed": _INTEGER,
}
# Where a setting of the Experiment that the file does not spell as a key is written.
_WRITTEN_IN: Final = {"systems": "[[systems]]", "options": "[evaluation]"}


def declared_keys() -> dict[str, tuple[str, ...]]:
    """Every key a configuration may hold, by where it is written.

    ``""`` lists the tables of the file; ``"experiment"``, ``"evaluation"`` and
    ``"cross_validation"`` their keys; ``"collection FORMAT"`` the keys of each collection
    format and ``"systems ENGINE"`` those of each engine (with ``name`` and ``engine``). The
    template of ``cranfield lab init`` (:mod:`cranfield.lab.config_template`) documents
    exactly these.

    Examples
    --------
    >>> declared_keys()["systems run"]
    ('name', 'engine', 'path')
    """
    keys = {"": tuple(_TABLES), "experiment": tuple(_EXPERIMENT_KEYS)}
    keys |= {f"collection {fmt}": tuple(kinds) for fmt, kinds in _COLLECTION_KEYS.items()}
    keys |= {f"systems {e}": ("name", "engine", *kinds) for e, kinds in _ENGINE_KEYS.items()}
    keys |= {"evaluation": _EVALUATION_KEYS, "cross_validation": tuple(_CROSS_VALIDATION_KEYS)}
    return keys


class _Source:
    """Error helper naming the configuration file and the table."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, where: str, problem: str) -> InputError:
        return InputError(str(self.path), None, f"{where}: {problem}")


def _shown(value: Any) -> str:
    """``value`` as an error shows it: its start, if it is long."""
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _problem(exc: Exception) -> str:
    """An error of the object a table builds, worded for the file: an option is its key."""
    if isinstance(exc, OptionError):
        note = f"; {exc.note[:1].lower()}{exc.note[1:].rstrip('.')}" if exc.note else ""
        return f"{exc.option!r} must be {exc.expected}, got {_shown(exc.value)}{note}"
    return str(exc).rstrip(".")


def _checked(src: _Source, where: str, table: Any, kinds: Mapping[str, _Kind]) -> Mapping[str, Any]:
    """``table``, a table whose keys are all known and of the type they take."""
    if not isinstance(table, Mapping):
        raise src.error(where, f"must be a table, got {_shown(table)}")
    for key, value in table.items():
        kind = kinds.get(key)
        if kind is None:
            allowed = ", ".join(sorted(kinds))
            raise src.error(where, f"unknown key {key!r} (allowed: {allowed})")
        if not kind.test(value):
            raise src.error(where, f"{key!r} must be {kind.words}, got {_shown(value)}")
    return table


_EVALUATION_KEYS: Final = tuple(name for name in OPTION_NAMES if name != "run_format")
"""The keys of ``[evaluation]``: every evaluation option but ``run_format`` (the lab reads
only the runs it writes, in TREC text)."""


def _evaluation_options(table: Any, src: _Source) -> EvalOptions | None:
    """The ``[evaluation]`` table as the one :class:`EvalOptions` of the experiment."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise src.error("[evaluation]", "must be a table")
    _unknown(src, "[evaluation]", table, _EVALUATION_KEYS)
    try:
        return EvalOptions(**table)
    except OptionError as exc:
        raise src.error("[evaluation]", _problem(exc)) from None


def _unknown(src: _Source, where: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            raise src.error(where, f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")


def _resolve(
    base: Path,
    value: Any,
    src: _Source,
    where: str,
    *,
    must_be: Literal["file", "folder"] | None = None,
) -> Path:
    """The path ``value`` names, relative to the configuration file's folder; ``must_be``: a
    file or folder to read, which must be there."""
    if not isinstance(value, str) or not value:
        raise src.error(where, f"must be a path string, got {_shown(value)}")
    p = Path(value).expanduser()
    p = p if p.is_absolute() else (base / p).resolve()
    if must_be is not None:
        try:
            folder = stat.S_ISDIR(p.stat().st_mode)
        except OSError as exc:
            raise src.error(where, f"cannot use {p} ({exc.strerror or exc})") from None
        if folder != (must_be == "folder"):
            raise src.error(where, f"{p} is {'a folder' if folder else 'not a folder'}")
    return p


def _import(module: str, base: Path) -> ModuleType:
    """``module`` from the import path or, if it is not there, from ``base`` (the folder of
    the configuration file), as if ``PYTHONPATH`` ended with it.

    The folder then stays at the end of ``sys.path`` (as ``python script.py`` keeps the
    script's): a system is indexed in a spawned process (``isolate``), which must import
    the same module to unpickle it, and starts with this process's ``sys.path``. Being
    last, it never hides a module found elsewhere.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        folder = str(base)
        if exc.name != module.partition(".")[0] or folder in sys.path:
            raise
    sys.path.append(folder)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError:
        sys.path.remove(folder)  # not there either: leave the path as it was
        raise


def _object(spec: Any, src: _Source, where: str, base: Path) -> Any:
    if not isinstance(spec, str) or ":" not in spec:
        raise src.error(where, f"must be 'module:attribute', got {spec!r}")
    module, _, attr = spec.partition(":")
    try:
        obj: Any = _import(module, base)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise src.error(where, f"cannot import {spec!r} ({exc})") from None
    return obj


def make_system(  # noqa: C901, PLR0912 -- one branch per engine kind of the config file
    spec: Mapping[str, Any], *, base: Path = Path(), source: str | Path = "<config>"
) -> System | PrecomputedRun:
    """A system from one ``[[systems]]`` table (keys as in the module documentation).

    Raises
    ------
    cranfield.errors.InputError
        Missing name or engine, an unknown engine or key, or a value the adapter refuses;
        the message names the file and the system.
    """
    src = _Source(Path(source))
    if not isinstance(spec, Mapping):
        raise src.error("[[systems]]", f"each entry must be a table, got {_shown(spec)}")
    name = spec.get("name")
    label = f"systems entry {name!r}" if name else "a systems entry"
    if not isinstance(name, str) or not name:
        raise src.error(label, "needs a 'name' string")
    engine = spec.get("engine")
    engine = _ALIASES.get(engine, engine) if isinstance(engine, str) else engine
    if engine not in ENGINES:
        raise src.error(
            label,
            f"'engine' must be one of {', '.join(map(repr, ENGINES))}, got {spec.get('engine')!r}",
        )
    opts = dict(
        _checked(
            src,
            label,
            {k: v for k, v in spec.items() if k not in ("name", "engine")},
            _ENGINE_KEYS[engine],
        )
    )
    try:
        if engine == "bm25s":
            return BM25S(name, **opts)
        if engine == "tantivy":
            return Tantivy(name, **opts)
        if engine == "sqlite-fts5":
            return SQLiteFTS5(name, **opts)
        if engine == "http":
            if "url" not in opts:
                raise src.error(label, "an http system needs a 'url'")
            return HTTPSystem(name, **opts)
        if engine == "run":
            if "path" not in opts:
                raise src.error(label, "a run needs a 'path'")
            return PrecomputedRun(
                name, _resolve(base, opts["path"], src, f"{label} path", must_be="file")
            )
        params = opts.get("params", {})
        if "factory" in opts:
            factory = _object(opts["factory"], src, f"{label} factory", base)
            try:
                system = factory(name=name, **params)
            except (CranfieldError, TypeError, ValueError, ImportError):
                raise
            except Exception as exc:  # the user's code failed: say so in one line
                problem = f"{type(exc).__name__}: {exc}"
                raise src.error(label, f"its factory {opts['factory']} failed ({problem})") from exc
            if not isinstance(system, System):
                raise src.error(label, "the factory did not return a system")
            return system
        if "search" not in opts:
            raise src.error(label, "a python system needs 'search' or 'factory'")
        return CallableSystem(
            name,
            _object(opts["search"], src, f"{label} search", base),
            index=_object(opts["index"], src, f"{label} index", base) if "index" in opts else None,
            load=_object(opts["load"], src, f"{label} load", base) if "load" in opts else None,
            config={"search": opts["search"], **params},
        )
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise src.error(label, _problem(exc)) from None


def _documents(path: Path) -> Iterator[Document]:
    """The documents of a ``trec`` collection: TREC SGML when the file's first character
    that is not a blank is ``<``, JSON lines otherwise."""
    with open_source(path) as raw:
        head = b""
        while not head:
            chunk = raw.read(4096)
            if not chunk:
                break
            head = chunk.lstrip()
    if head.startswith(b"<"):
        return read_trec_documents(path)
    return _jsonl_documents(path)


def _jsonl_documents(path: Path) -> Iterator[Document]:
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                yield Document(
                    str(obj["doc_id"]), str(obj.get("text", "")), str(obj.get("title", ""))
                )
            except (ValueError, KeyError, TypeError):
                raise InputError(
                    str(path),
                    number,
                    "expected a JSON object with 'doc_id' and 'text'",
                    line.strip(),
                ) from None


def make_collection(
    spec: Mapping[str, Any],
    *,
    base: Path = Path(),
    source: str | Path = "<config>",
    evaluation: EvalOptions | None = None,
) -> Collection:
    """A collection from the ``[collection]`` table; the judgments of a ``trec`` collection
    read as the ``[evaluation]`` options say (their ``duplicates`` policy and
    ``qrels_format``; ``run_format`` has nothing to read: the lab writes its runs)."""
    from cranfield.evaluation.evaluator import load_judgments

    src = _Source(Path(source))
    fmt = spec.get("format", "cranfield")
    if not isinstance(fmt, str) or fmt not in _COLLECTION_KEYS:
        raise src.error(
            "[collection] format",
            f"must be 'cranfield', 'trec' or 'ir_datasets', got {_shown(fmt)}",
        )
    _checked(src, "[collection]", spec, _COLLECTION_KEYS[fmt])
    if fmt == "cranfield":
        gains: Mapping[int, int | None] = CRANFIELD_GAINS
        if "gains" in spec:
            raw = spec["gains"]
            try:
                gains = {int(k): (None if v == "drop" else int(v)) for k, v in raw.items()}
            except (TypeError, ValueError):
                raise src.error(
                    "[collection] gains", "keys must be codes and values gains or 'drop'"
                ) from None
        return read_cranfield(
            _resolve(base, spec.get("path"), src, "[collection] path", must_be="folder"),
            gains=gains,
        )
    if fmt == "trec":
        docs_path, topics_path, qrels_path = (
            _resolve(base, spec.get(key), src, f"[collection] {key}", must_be="file")
            for key in ("documents", "topics", "qrels")
        )
        topics = read_topics(topics_path)
        qrels = load_judgments(qrels_path, evaluation or EvalOptions())
        h = hashlib.sha256()
        try:
            h.update(bytes.fromhex(file_sha256(docs_path)))
        except OSError as exc:
            raise InputError(
                str(docs_path), None, f"cannot read file ({exc.strerror or exc})"
            ) from None
        h.update(repr(topics).encode())
        h.update(qrels.frame.write_csv().encode())
        return Collection(
            name=str(spec.get("name", docs_path.stem)),
            documents=lambda: _documents(docs_path),
            topics=topics,
            qrels=qrels,
            fingerprint=h.hexdigest(),
            size_bytes=docs_path.stat().st_size,
        )
    dataset = spec.get("dataset")
    if not isinstance(dataset, str):
        raise src.error("[collection] dataset", f"must be an ir_datasets id, got {dataset!r}")
    return from_ir_datasets(dataset)


def load_config(
    path: str | Path, *, workdir: str | Path | None = None, **overrides: Any
) -> Experiment:
    """Read a TOML experiment description and build the :class:`~cranfield.lab.Experiment`.

    Parameters
    ----------
    path:
        The TOML file.
    workdir:
        Overrides ``[experiment] workdir``.
    **overrides:
        Further :class:`~cranfield.lab.Experiment` keyword arguments (``reuse``,
        ``progress``, ``log`` ...).

    Raises
    ------
    cranfield.errors.InputError
        Unreadable or invalid TOML (with its line), unknown keys, bad values; the message
        names the file and the table.
    """
    cfg_path = Path(path)
    src = _Source(cfg_path)
    try:
        data = tomllib.loads(cfg_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(str(cfg_path), None, f"cannot read file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        first_bad = exc.object[: exc.start].count(b"\n") + 1
        raise InputError(str(cfg_path), first_bad, "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(found.group(1)) if found else None
        raise InputError(str(cfg_path), line, f"is not valid TOML ({exc})") from None
    _checked(src, "the file", data, _TABLES)
    base = cfg_path.resolve().parent
    exp = _checked(src, "[experiment]", data.get("experiment", {}), _EXPERIMENT_KEYS)
    if "collection" not in data:
        raise src.error("the file", "needs a [collection] table")
    systems_spec = data.get("systems")
    if not systems_spec:
        raise src.error("the file", "needs at least one [[systems]] table")
    cv = data.get("cross_validation")
    if cv is not None:
        _checked(src, "[cross_validation]", cv, _CROSS_VALIDATION_KEYS)
        try:
            cross_validation_settings(cv, "AP", 0)
        except (TypeError, ValueError) as exc:
            raise src.error("[cross_validation]", _problem(exc)) from None
    evaluation = _evaluation_options(data.get("evaluation"), src)
    systems = [make_system(s, base=base, source=cfg_path) for s in systems_spec]
    try:
        check_system_names(s.name for s in systems)
    except OptionError as exc:
        raise src.error("[[systems]]", _problem(exc)) from None
    collection = make_collection(
        data["collection"],
        base=base,
        source=cfg_path,
        evaluation=evaluation,
    )
    settings = {**exp, **overrides}
    where = settings.pop("workdir", None)
    if workdir is None:
        workdir = (
            _resolve(base, where, src, "[experiment] workdir")
            if where is not None
            else base / f"lab-{collection.name}"
        )
    measures = settings.pop("measures", ("AP", "nDCG@10", "P@10"))
    try:
        return Experiment(
            collection,
            systems,
            measures,
            workdir=workdir,
            cross_validation=cv,
            config_file=cfg_path,
            options=evaluation,
            **settings,
        )
    except (TypeError, ValueError, EvaluationError) as exc:  # a query field without text
        if isinstance(exc, InputError):
            raise
        where = _WRITTEN_IN.get(getattr(exc, "option", ""), "[experiment]")
        raise src.error(where, _problem(exc)) from None
