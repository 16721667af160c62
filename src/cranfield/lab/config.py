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
``http`` (``url``, ``body``, ``hits``, ``doc_id``, ``score``, ``headers``, ``timeout``),
``python`` (``search = "module:function"`` with optional ``index`` and ``load``
functions, or ``factory = "module:function"`` called with ``name=`` and the ``params``
table as keyword arguments and returning a system) and ``run`` (``path`` of a
TREC run file). The ``trec`` collection format takes ``qrels``, ``topics`` (any format of
:func:`~cranfield.lab.read_topics`) and ``documents`` (a JSON-lines file of
``{"doc_id", "text", "title"?}`` objects); ``ir_datasets`` takes ``dataset``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from cranfield.errors import EvaluationError, InputError, OptionError
from cranfield.evaluation.options import OPTION_NAMES, EvalOptions
from cranfield.lab.collections import (
    CRANFIELD_GAINS,
    Collection,
    Document,
    from_ir_datasets,
    read_cranfield,
    read_topics,
)
from cranfield.lab.experiment import Experiment
from cranfield.lab.systems import (
    BM25S,
    CallableSystem,
    HTTPSystem,
    PrecomputedRun,
    SQLiteFTS5,
    System,
    Tantivy,
)

__all__ = ["ENGINES", "load_config", "make_collection", "make_system"]

ENGINES: Final = ("bm25s", "tantivy", "sqlite-fts5", "http", "python", "run")
_ALIASES: Final = {"sqlite": "sqlite-fts5", "fts5": "sqlite-fts5", "callable": "python"}
_ENGINE_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "bm25s": ("k1", "b", "method", "stopwords", "stemmer"),
    "tantivy": ("tokenizer", "heap_size", "threads"),
    "sqlite-fts5": ("tokenizer",),
    "http": ("url", "body", "hits", "doc_id", "score", "headers", "timeout"),
    "python": ("search", "factory", "params", "index", "load"),
    "run": ("path",),
}
_EXPERIMENT_KEYS: Final = (
    "name",
    "workdir",
    "measures",
    "k",
    "query_field",
    "baseline",
    "tests",
    "correction",
    "alpha",
    "seed",
    "warmup",
    "repetitions",
    "concurrency",
    "throughput_passes",
    "throughput_seconds",
    "isolate",
    "efficiency",
)


class _Source:
    """Error helper naming the configuration file and the table."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, where: str, problem: str) -> InputError:
        return InputError(str(self.path), None, f"{where}: {problem}")


def _problem(exc: Exception) -> str:
    """An error of the object a table builds, worded for the file: an option is its key."""
    if isinstance(exc, OptionError):
        return f"{exc.option!r} must be {exc.expected}, got {exc.value!r}"
    return str(exc).rstrip(".")


def _evaluation_options(table: Any, src: _Source) -> EvalOptions | None:
    """The ``[evaluation]`` table as the one :class:`EvalOptions` of the experiment."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise src.error("[evaluation]", "must be a table")
    _unknown(src, "[evaluation]", table, OPTION_NAMES)
    try:
        return EvalOptions(**table)
    except OptionError as exc:
        raise src.error("[evaluation]", _problem(exc)) from None


def _unknown(src: _Source, where: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            raise src.error(where, f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")


def _resolve(base: Path, value: Any, src: _Source, where: str) -> Path:
    if not isinstance(value, str) or not value:
        raise src.error(where, f"must be a path string, got {value!r}")
    p = Path(value).expanduser()
    return p if p.is_absolute() else (base / p).resolve()


def _object(spec: Any, src: _Source, where: str) -> Any:
    if not isinstance(spec, str) or ":" not in spec:
        raise src.error(where, f"must be 'module:attribute', got {spec!r}")
    module, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module)
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
    opts = {k: v for k, v in spec.items() if k not in ("name", "engine")}
    _unknown(src, label, opts, _ENGINE_KEYS[engine])
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
            return PrecomputedRun(name, _resolve(base, opts["path"], src, f"{label} path"))
        params = opts.get("params", {})
        if not isinstance(params, Mapping):
            raise src.error(label, f"'params' must be a table, got {params!r}")
        if "factory" in opts:
            system = _object(opts["factory"], src, f"{label} factory")(name=name, **params)
            if not isinstance(system, System):
                raise src.error(label, "the factory did not return a system")
            return system
        if "search" not in opts:
            raise src.error(label, "a python system needs 'search' or 'factory'")
        return CallableSystem(
            name,
            _object(opts["search"], src, f"{label} search"),
            index=_object(opts["index"], src, f"{label} index") if "index" in opts else None,
            load=_object(opts["load"], src, f"{label} load") if "load" in opts else None,
            config={"search": opts["search"], **params},
        )
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise src.error(label, _problem(exc)) from None


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
    spec: Mapping[str, Any], *, base: Path = Path(), source: str | Path = "<config>"
) -> Collection:
    """A collection from the ``[collection]`` table."""
    from cranfield.io.load import load_qrels

    src = _Source(Path(source))
    fmt = spec.get("format", "cranfield")
    if fmt == "cranfield":
        _unknown(src, "[collection]", spec, ("format", "path", "gains"))
        gains: Mapping[int, int | None] = CRANFIELD_GAINS
        if "gains" in spec:
            raw = spec["gains"]
            if not isinstance(raw, Mapping):
                raise src.error("[collection] gains", f"must be a table, got {raw!r}")
            try:
                gains = {int(k): (None if v == "drop" else int(v)) for k, v in raw.items()}
            except (TypeError, ValueError):
                raise src.error(
                    "[collection] gains", "keys must be codes and values gains or 'drop'"
                ) from None
        return read_cranfield(
            _resolve(base, spec.get("path"), src, "[collection] path"), gains=gains
        )
    if fmt == "trec":
        _unknown(src, "[collection]", spec, ("format", "name", "qrels", "topics", "documents"))
        docs_path = _resolve(base, spec.get("documents"), src, "[collection] documents")
        topics = read_topics(_resolve(base, spec.get("topics"), src, "[collection] topics"))
        qrels = load_qrels(_resolve(base, spec.get("qrels"), src, "[collection] qrels"))
        h = hashlib.sha256()
        try:
            h.update(hashlib.sha256(docs_path.read_bytes()).digest())
        except OSError as exc:
            raise InputError(
                str(docs_path), None, f"cannot be read ({exc.strerror or exc})"
            ) from exc
        h.update(repr(topics).encode())
        h.update(qrels.frame.write_csv().encode())
        return Collection(
            name=str(spec.get("name", docs_path.stem)),
            documents=lambda: _jsonl_documents(docs_path),
            topics=topics,
            qrels=qrels,
            fingerprint=h.hexdigest(),
            size_bytes=docs_path.stat().st_size,
        )
    if fmt == "ir_datasets":
        _unknown(src, "[collection]", spec, ("format", "dataset"))
        dataset = spec.get("dataset")
        if not isinstance(dataset, str):
            raise src.error("[collection] dataset", f"must be an ir_datasets id, got {dataset!r}")
        return from_ir_datasets(dataset)
    raise src.error(
        "[collection] format", f"must be 'cranfield', 'trec' or 'ir_datasets', got {fmt!r}"
    )


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
        raise InputError(str(cfg_path), None, f"cannot be read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        where = exc.object[: exc.start].count(b"\n") + 1
        raise InputError(str(cfg_path), where, "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(found.group(1)) if found else None
        raise InputError(str(cfg_path), line, f"is not valid TOML ({exc})") from None
    tables = ("experiment", "collection", "systems", "evaluation", "cross_validation")
    _unknown(src, "the file", data, tables)
    base = cfg_path.resolve().parent
    exp = data.get("experiment", {})
    if not isinstance(exp, Mapping):
        raise src.error("[experiment]", "must be a table")
    _unknown(src, "[experiment]", exp, _EXPERIMENT_KEYS)
    coll = data.get("collection")
    if not isinstance(coll, Mapping):
        raise src.error("the file", "needs a [collection] table")
    collection = make_collection(coll, base=base, source=cfg_path)
    systems_spec = data.get("systems")
    if not isinstance(systems_spec, list) or not systems_spec:
        raise src.error("the file", "needs at least one [[systems]] table")
    systems = [make_system(s, base=base, source=cfg_path) for s in systems_spec]
    options = dict(exp)
    where = options.pop("workdir", None)
    chosen = (
        workdir
        if workdir is not None
        else (
            _resolve(base, where, src, "[experiment] workdir")
            if where is not None
            else base / f"lab-{collection.name}"
        )
    )
    measures = options.pop("measures", ("AP", "nDCG@10", "P@10"))
    evaluation = _evaluation_options(data.get("evaluation"), src)
    cv = data.get("cross_validation")
    if cv is not None:
        if not isinstance(cv, Mapping):
            raise src.error("[cross_validation]", "must be a table")
        _unknown(src, "[cross_validation]", cv, ("measure", "n_folds", "seed"))
    try:
        return Experiment(
            collection,
            systems,
            measures,
            workdir=chosen,
            cross_validation=cv,
            config_file=cfg_path,
            options=evaluation,
            **options,
            **overrides,
        )
    except (TypeError, ValueError, EvaluationError) as exc:  # a query field without text
        if isinstance(exc, InputError):
            raise
        raise src.error("[experiment]", _problem(exc)) from None
