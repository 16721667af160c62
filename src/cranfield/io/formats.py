"""THE rule on file formats: which format a qrels or run file is in, and its reader.

:func:`detect` reads only the head of a file's text (through :mod:`cranfield.io.source`, so
compressed files and ``-`` work as everywhere) and names its format:

* a path ending in ``.parquet``/``.pq``, or starting with ``PAR1``: Parquet
  (:mod:`cranfield.io.columnar`). Parquet on standard input, and other recognisable binary
  files (Arrow IPC, ZIP archives such as Excel workbooks), are an
  :class:`~cranfield.errors.InputError` saying what the file looks like;
* a first non-blank line that starts like JSON (``{"``, ``[{``, a lone ``{`` or ``[`` ...):
  JSON Lines (``jsonl``) if that line is a whole JSON object whose keys name a query id and
  a document id column (below), else ranx-style JSON (``json``), ``{query: {doc: value}}``
  or a list of row objects;
* a first line naming a query id and a document id column (the spellings of
  :mod:`cranfield.io.columnar`: ``query_id``, ``qid``, ``query-id``, ``doc_id``, ``pid``,
  ``corpus-id`` ...), separated by tabs (``tsv``) or commas (``csv``); BEIR's
  ``query-id<TAB>corpus-id<TAB>score`` is ``beir``. The other columns are checked when the
  table is read (a run without a score or rank column is an error naming the header line);
* text whose first :data:`HEAD_LINES` data lines all hold fields separated by single tabs,
  3 per line with an integer third (``qid pid rank``) for a run, 2 (``qid pid``, relevance
  1) for qrels: MS MARCO (``msmarco``). The ranks of a run must start at 1 and never
  decrease within a query: other integers may be scores, and such a file is an
  :class:`~cranfield.errors.AmbiguousFormatError` naming ``format``/``--run-format``;
* anything else: TREC text (:mod:`cranfield.io.trec`), read and refused exactly as always.
  MS MARCO's 4-column qrels ``qid 0 pid 1`` are TREC qrels.

An explicit ``format`` skips detection; a file that does not hold it is an error naming the
file, the line and what was expected. Every table parsed from text goes through
:func:`~cranfield.io.columnar.qrels_from_frame` / :func:`~cranfield.io.columnar.run_from_frame`,
with the physical line of each row for the errors. A format other than TREC and Parquet is
named in the notes of the :class:`~cranfield.data.qrels.Qrels` or :class:`~cranfield.data.run.Run`.

:func:`write` writes judgments or a run in any of these formats, whole or not at all
(:mod:`cranfield.io.sink`), to read back the same: the tables with the columns
``query_id, doc_id, relevance`` (and ``iteration`` when it is not always ``0``) or
``query_id, doc_id, score``; BEIR's with its own header; an MS MARCO run with the ranks of
trec_eval's order (:func:`~cranfield.data.ranking.trec_eval_order`), which keep the ranking
but not the scores. Only TREC and Parquet keep a run's tag.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, cast

import polars as pl

from cranfield._deprecation import MovedName, moved_names
from cranfield._types import FILE_FORMATS, INPUT_KINDS, DuplicatePolicy, FileFormat, InputKind
from cranfield._validate import check_choice
from cranfield.data.judgments import label_text
from cranfield.data.qrels import Qrels
from cranfield.data.ranking import trec_eval_order
from cranfield.data.run import Run
from cranfield.errors import AmbiguousFormatError, InputError, OptionError, UnknownKindError
from cranfield.io import trec
from cranfield.io.columnar import (
    kind_of_columns,
    names_ids,
    parquet_columns,
    qrels_from_frame,
    read_parquet_qrels,
    read_parquet_run,
    run_from_frame,
    write_parquet,
)
from cranfield.io.json_docs import (
    DocumentError,
    RepeatedKeyError,
    json_value,
    read_document,
    rows_frame,
)
from cranfield.io.limits import in_memory
from cranfield.io.lines import BOM, INTEGER, data_lines
from cranfield.io.run_names import run_name
from cranfield.io.sink import refuse_overwriting, replacing, write_text
from cranfield.io.source import (
    is_parquet,
    read_bytes,
    read_head,
    regular_file,
    short_lines,
    source_name,
)

__all__ = [
    "HEAD_BYTES",
    "HEAD_LINES",
    "Conversion",
    "convert",
    "described",
    "detect",
    "detect_kind",
    "detect_text",
    "format_of_suffix",
    "left_out",
    "read_delimited",
    "read_json_lines",
    "read_qrels_file",
    "read_run_file",
    "write",
]

Kind = InputKind

# Until 0.2.0 the readers were read_qrels and read_run, the names of cranfield.io.trec's TREC
# readers with another meaning; one public name per job now (issue 29).
__getattr__ = moved_names(
    __name__,
    (
        MovedName(
            "cranfield.io.formats",
            "read_qrels",
            "cranfield.io.formats.read_qrels_file (or cranfield.load_qrels)",
            "cranfield.io.formats",
            "read_qrels_file",
        ),
        MovedName(
            "cranfield.io.formats",
            "read_run",
            "cranfield.io.formats.read_run_file (or cranfield.load_run)",
            "cranfield.io.formats",
            "read_run_file",
        ),
    ),
)

HEAD_BYTES = 1 << 16
"""How much of a file's text :func:`detect` reads."""
HEAD_LINES = 1000
"""How many data lines of the head decide between MS MARCO and TREC text."""

ACCEPTED = (
    "cranfield reads TREC, MS MARCO, BEIR, CSV, TSV, JSON and JSON Lines text (plain or "
    "gzip, bzip2, xz or zstd compressed) and Parquet files"
)
# Binary files told by their first bytes, and what they look like.
_BINARY = {
    b"ARROW1": "an Arrow IPC file; convert it to Parquet",
    b"PK\x03\x04": "a ZIP archive (an Excel workbook?); save it as CSV",
    b"%PDF": "a PDF document",
    b"SQLite format 3\x00": "an SQLite database",
}
_JSON_STARTS = (b'{"', b"[{", b'["', b"[[")
_NAMES = {
    "msmarco": {"run": "an MS MARCO run (qid pid rank)", "qrels": "MS MARCO qrels (qid pid)"},
    "beir": {
        "run": "a BEIR run (TSV with header query-id, corpus-id, score)",
        "qrels": "BEIR qrels (TSV with header query-id, corpus-id, score)",
    },
}


def detect(source: str | Path, kind: Kind) -> FileFormat:
    """The format of the qrels (``kind="qrels"``) or run file ``source``, by the module's rule.

    Standard input (``-``) and pipes cannot be read twice: their text is read whole, once,
    by :func:`read_qrels_file` and :func:`read_run_file`, which detect on the bytes read.
    """
    if is_parquet(source):
        return "parquet"
    if not regular_file(source):
        raise ValueError(f"{source_name(source)} is not a regular file: detect on its text")
    head, whole = read_head(source, HEAD_BYTES)
    return detect_text(head, kind, label=source_name(source), whole=whole, path=True)


def detect_text(
    head: bytes, kind: Kind, *, label: str, whole: bool = True, path: bool = False
) -> FileFormat:
    """The format of a file whose text starts with ``head`` (all of it if ``whole``);
    ``path``: the text is a regular file's, which Parquet can be read from (not standard
    input or a pipe).

    Raises
    ------
    InputError
        For a binary file that cranfield cannot read (or Parquet on standard input).
    """
    if head.startswith(b"PAR1"):
        if path:
            return "parquet"
        raise InputError(
            label,
            None,
            f"looks like a Parquet file; pass it as a file ending in .parquet ({ACCEPTED})",
        )
    for magic, what in _BINARY.items():
        if head.startswith(magic):
            raise InputError(label, None, f"looks like {what} ({ACCEPTED})")
    text = head.removeprefix(BOM)
    start = text.lstrip()
    end = start.find(b"\n")
    first = (start if end < 0 else start[:end]).strip()
    complete = whole or end >= 0  # else the head ends inside the first line (one-line JSON)
    if first.startswith(_JSON_STARTS) or first in (b"{", b"[", b"{}", b"[]"):
        return "jsonl" if complete and _row_object(first) else "json"
    if not whole:  # the last line may be cut short
        text = text[: text.rfind(b"\n") + 1]
    header = _header(first) if complete else None
    if header is not None:
        return header
    if _msmarco(text, kind):
        if kind == "run":
            _check_ranks(text, label)
        return "msmarco"
    return "trec"


def detect_kind(source: str | Path, format: FileFormat | None = None) -> Kind:
    """Whether the file ``source`` holds judgments (``"qrels"``) or a run, from its first
    lines (or a Parquet file's columns): TREC text by its first data line's fields (4 or 6),
    MS MARCO by its fields (``qid pid`` or ``qid pid rank``), BEIR is judgments, a table by
    its columns (:func:`~cranfield.io.columnar.kind_of_columns`).

    Raises
    ------
    UnknownKindError
        When the file does not say (ranx JSON ``{query: {doc: value}}`` never does; nor does
        standard input, which cannot be read twice), naming what to give instead.
    InputError
        When its head does not look like the ``format`` given, or cannot be read.
    """
    label = source_name(source)
    ask = "give its kind (--kind run or --kind qrels)"
    if not regular_file(source):
        raise UnknownKindError(label, None, f"cannot be looked at twice to tell its kind; {ask}")
    if format is not None:
        check_choice("format", format, FILE_FORMATS)
    head, whole = (b"", True) if is_parquet(source) else read_head(source, HEAD_BYTES)

    def detected(kind: Kind) -> FileFormat:  # what detect() says, on the head read once
        if is_parquet(source):
            return "parquet"
        return detect_text(head, kind, label=label, whole=whole, path=True)

    found = detected("run")
    as_run = format or found
    if as_run == "parquet":
        kind = kind_of_columns(parquet_columns(source))
    else:
        kind = _kind_of_text(head.removeprefix(BOM), as_run, whole)
    if kind is None and format is None and detected("qrels") == "msmarco":
        kind = "qrels"
    if kind is None and format is not None and found != format:
        raise InputError(
            label,
            None,
            f"does not look like {format} but like {found} (detected from its first lines); "
            f"read it as {found}, or {ask}",
        )
    if kind is None:
        raise UnknownKindError(
            label, None, f"does not say whether it holds a run or judgments; {ask}"
        )
    return kind


def _kind_of_text(text: bytes, format_: FileFormat, whole: bool) -> Kind | None:
    """What the text of a file in ``format_`` holds, by its first line (None: not said)."""
    if format_ == "beir":
        return "qrels"
    if format_ == "json":
        return None
    if not whole:
        text = text[: text.rfind(b"\n") + 1]
    first = next(
        (fields for _, fields, _ in data_lines(text, "<head>", max_fields=7) if fields), None
    )
    if format_ == "msmarco":
        return None if first is None else "run" if len(first) == 3 else "qrels"
    if format_ == "trec":
        by_fields: dict[int, Kind] = {4: "qrels", 6: "run"}
        return None if first is None else by_fields.get(len(first))
    line = text.lstrip().split(b"\n", 1)[0].strip()
    if format_ == "jsonl":
        try:
            names = list(json_value(line))
        except ValueError:
            return None
    else:
        separator = "\t" if format_ == "tsv" else ","
        names = _header_names(line.decode(errors="replace"), separator)
    return kind_of_columns(names)


def _row_object(line: bytes) -> bool:
    """Whether ``line`` is a whole JSON object whose keys name a query and a document (a
    key given twice too: the reader refuses it, naming the line)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and names_ids(list(value))


def _header_names(line: str, separator: str) -> list[str]:
    """The column names of the header ``line`` (blanks and double quotes around each taken
    off)."""
    return [n.strip().strip('"').strip() for n in line.split(separator)]


def _header(line: bytes) -> FileFormat | None:
    """``"tsv"``, ``"csv"`` or ``"beir"`` if ``line`` is a header naming a query id and a
    document id column (the rest is checked when the table is read), else None."""
    for separator, format_ in ((b"\t", "tsv"), (b",", "csv")):
        if separator in line:
            try:
                names = _header_names(line.decode(), separator.decode())
            except UnicodeDecodeError:
                return None
            if not names_ids(names):
                return None
            if separator == b"\t" and names == ["query-id", "corpus-id", "score"]:
                return "beir"
            return cast("FileFormat", format_)
    return None


def _msmarco(text: bytes, kind: Kind) -> bool:
    """Whether the head's data lines are all MS MARCO lines of ``kind``: fields separated by
    single tabs, ``qid pid rank`` (an integer rank, a second field other than TREC's ``Q0``)
    for a run, ``qid pid`` for qrels."""
    count = 0
    for raw in text.split(b"\n"):
        line = raw.rstrip(b"\r")
        if not line.strip():
            continue
        fields = line.split(b"\t")
        if fields != line.split() or fields[0].startswith(b"#"):  # a blank other than one tab
            return False
        if kind == "run":
            if (
                len(fields) != 3
                or fields[1] == b"Q0"
                or not INTEGER.match(fields[2].decode("latin-1"))
            ):
                return False
        elif len(fields) != 2:
            return False
        count += 1
        if count == HEAD_LINES:
            break
    return count > 0


def _check_ranks(text: bytes, label: str) -> None:
    """Refuse to guess when the third column of a headerless ``qid pid integer`` run is not
    MS MARCO's ranks: they start at 1 and increase within each query (a rank given twice is
    a tie, which ``check`` names). Integer scores (``qid doc 3``, ``qid doc 2`` ...) read as
    ranks would invert the ranking."""
    last: dict[bytes, int] = {}
    for number, raw in enumerate(text.split(b"\n"), start=1):
        fields = raw.strip().split(b"\t")
        if len(fields) != 3:
            continue
        query, rank = fields[0], int(fields[2])
        before = last.get(query)
        if (before is None and rank != 1) or (before is not None and rank < before):
            found = f"starts at {rank}" if before is None else f"gives {rank} after {before}"
            problem = (
                f"is a headerless table of query, document and an integer that is not an MS "
                f"MARCO rank (query {query.decode()!r} {found}; ranks start at 1 and never "
                f"decrease within a query)"
            )
            raise AmbiguousFormatError(
                label,
                number,
                f"{problem}: give format='msmarco' (run_format=) if they are ranks, or add a "
                f"header line (query_id, doc_id, score) if they are scores",
                command_line_problem=f"{problem}: give --run-format msmarco if they are ranks, "
                "or add a header line (query_id<TAB>doc_id<TAB>score) if they are scores",
            )
        last[query] = rank


# ----------------------------------------------------------------- reading


def read_qrels_file(
    source: str | Path,
    *,
    format: FileFormat | None = None,
    name: str | None = None,
    duplicates: DuplicatePolicy = "merge",
) -> Qrels:
    """Judgments from the file ``source`` (a path or ``-``) in ``format`` (None: detected).

    Raises
    ------
    InputError
        If the file cannot be read as ``format`` (or as any format, when detecting),
        naming the file, the line and what was expected.
    """
    label = source_name(source)
    found, data = _format_of(source, format, "qrels", label)
    return _qrels_in(source, label, found, data, name, duplicates)


def _qrels_in(
    source: str | Path,
    label: str,
    format: FileFormat,
    data: bytes | None,
    name: str | None,
    duplicates: DuplicatePolicy,
) -> Qrels:
    """The qrels ``source`` read in ``format`` (``data``: its text, if already read)."""
    qrels_name = name or (label if label == "<stdin>" else Path(label).name)
    if format == "trec":
        if data is None:
            return trec.read_qrels(source, name=name, duplicates=duplicates)
        return trec.read_qrels_bytes(data, label, name=name, duplicates=duplicates)
    if format == "parquet":
        path = _parquet_path(source, label)
        return read_parquet_qrels(path, name=name, duplicates=duplicates, data=data)
    with in_memory(label):  # out of memory: an error naming the file, not a traceback
        text = (_whole(source, format) if data is None else data).removeprefix(BOM)
        table = _parsed(text, label, format, "qrels")
    with table.errors():
        qrels = qrels_from_frame(
            table.frame,
            source_label=label,
            name=qrels_name,
            duplicates=duplicates,
            lines=table.lines,
        )
    return Qrels(qrels.frame, name=qrels.name, notes=(_note(label, format, "qrels"), *qrels.notes))


def read_run_file(
    source: str | Path,
    *,
    format: FileFormat | None = None,
    name: str | None = None,
) -> Run:
    """A run from the file ``source`` (a path or ``-``) in ``format`` (None: detected).

    Raises
    ------
    InputError
        If the file cannot be read as ``format`` (or as any format, when detecting),
        naming the file, the line and what was expected.
    """
    label = source_name(source)
    found, data = _format_of(source, format, "run", label)
    return _run_in(source, label, found, data, name)


def _run_in(
    source: str | Path, label: str, format: FileFormat, data: bytes | None, name: str | None
) -> Run:
    """The run ``source`` read in ``format`` (``data``: its text, if already read)."""
    if format == "trec":
        if data is None:
            return trec.read_run(source, name=name)
        return trec.read_run_bytes(data.removeprefix(BOM), label, name=name)
    if format == "parquet":
        return read_parquet_run(_parquet_path(source, label), name=name, data=data)
    with in_memory(label):
        text = (_whole(source, format) if data is None else data).removeprefix(BOM)
        table = _parsed(text, label, format, "run")
    run_label = name or run_name(source)
    with table.errors():
        run = run_from_frame(table.frame, source_label=label, name=run_label, lines=table.lines)
    return Run(run.frame, name=run.name, tag=run.tag, notes=(_note(label, format, "run"),))


def qrels_from_bytes(
    data: bytes,
    source: str | Path,
    *,
    format: FileFormat | None = None,
    name: str | None = None,
    duplicates: DuplicatePolicy = "merge",
    regular: bool = True,
) -> Qrels:
    """Judgments from the bytes ``data`` of the file ``source`` (its text, or a Parquet
    file's bytes), read once already, in ``format`` (None: detected); ``regular``: the
    file is a regular file (Parquet is read from one only)."""
    label = source_name(source)
    found, text = _format_of_bytes(data, format, "qrels", label, regular)
    return _qrels_in(source, label, found, text, name, duplicates)


def run_from_bytes(
    data: bytes,
    source: str | Path,
    *,
    format: FileFormat | None = None,
    name: str | None = None,
    regular: bool = True,
) -> Run:
    """A run from the bytes ``data`` of the file ``source`` (its text, or a Parquet file's
    bytes), read once already, in ``format`` (None: detected)."""
    label = source_name(source)
    found, text = _format_of_bytes(data, format, "run", label, regular)
    return _run_in(source, label, found, text, name)


def _format_of_bytes(
    data: bytes, format: FileFormat | None, kind: Kind, label: str, regular: bool
) -> tuple[FileFormat, bytes]:
    """The format of a file whose bytes are ``data`` (``format``, else detected), and its
    text with its lines checked unless it is one JSON document or Parquet."""
    found: FileFormat
    if format is not None:
        found = check_choice("format", format, FILE_FORMATS)
    elif is_parquet(label):
        found = "parquet"
    else:
        found = detect_text(data, kind, label=label, path=regular)
    return found, data if found in ("json", "parquet") else short_lines(data, label)


def _format_of(
    source: str | Path, format: FileFormat | None, kind: Kind, label: str
) -> tuple[FileFormat, bytes | None]:
    """The format to read ``source`` in (``format``, else detected), and its text when
    detecting had to read it whole (standard input or a pipe: they cannot be read twice)."""
    if format is not None:
        return check_choice("format", format, FILE_FORMATS), None
    if is_parquet(source) or regular_file(source):
        return detect(source, kind), None
    with in_memory(label):  # standard input or a pipe: read once, whole
        data = read_bytes(source, lines=None)  # no line limit on a JSON document
    format = detect_text(data, kind, label=label)
    return format, data if format == "json" else short_lines(data, label)


def _whole(source: str | Path, format_: FileFormat) -> bytes:
    """The whole text of ``source``, its lines checked unless it is one JSON document (often
    a single line however large, as ranx writes it): :func:`~cranfield.io.source.read_bytes`."""
    return read_bytes(source, lines=format_ != "json")


def _parquet_path(source: str | Path, label: str) -> str | Path:
    if str(source) == "-":
        raise InputError(
            label, None, "Parquet is read from a path ending in .parquet, not from standard input"
        )
    return source


def described(format_: FileFormat, kind: Kind) -> str:
    """How notes and messages name a file in ``format_`` holding ``kind``: ``an MS MARCO run
    (qid pid rank)``, ``CSV (judgments)``."""
    if format_ in _NAMES:
        return _NAMES[format_][kind]
    what = {
        "trec": "TREC",
        "csv": "CSV",
        "tsv": "TSV",
        "json": "JSON",
        "jsonl": "JSON Lines",
        "parquet": "Parquet",
    }[format_]
    return f"{what} ({'judgments' if kind == 'qrels' else 'a run'})"


def _note(label: str, format_: FileFormat, kind: Kind) -> str:
    base = "stdin" if label == "<stdin>" else Path(label).name
    if format_ == "msmarco" and kind == "run":
        return f"{base}: read as {described(format_, kind)}; each line's score is 1/rank."
    return f"{base}: read as {described(format_, kind)}."


@dataclass(frozen=True)
class _Parsed:
    """A table parsed from text, for columnar's checks, with what their errors name: the
    physical line of the header (if there is one) and of each row, or else each row's
    place in the text (``where``: ``query 'q1', document 'd2'``)."""

    frame: pl.DataFrame
    header: int | None
    lines: list[int] | None
    where: Callable[[int], str] | None = None

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """Errors that name the header line (about the columns), or a row's place in the
        text when the lines of rows are not known."""
        try:
            yield
        except InputError as exc:
            if exc.line is None and self.header is not None:
                raise InputError(exc.source, self.header, exc.problem, exc.text) from None
            if exc.line is None or self.lines is not None:
                raise
            if self.where is None:
                place, problem = f"data row {exc.line}", exc.problem
            else:  # a JSON document has no rows to count: the pair names the place
                place = self.where(exc.line)
                problem = _FIRST_SEEN.sub(" (given twice)", exc.problem)
                problem = _EARLIER_ROW.sub(" first", problem)
            raise InputError(exc.source, None, f"{place}: {problem}", exc.text) from None


_FIRST_SEEN = re.compile(r"\s*\(first seen on row \d+\)")
_EARLIER_ROW = re.compile(r" on row \d+")
"""How the table checks name the earlier row of a repeated pair (``(first seen on row 2)``,
``judged 1 on row 2 and 0 here``)."""


def _parsed(text: bytes, label: str, format_: FileFormat, kind: Kind) -> _Parsed:
    """The table of ``text`` in a text format other than TREC."""
    if format_ == "json":
        return _json(text, label, kind)
    if format_ == "jsonl":
        return _json_lines(text, label)
    if format_ == "msmarco":
        return _msmarco_lines(text, label, kind)
    return _Parsed(*read_delimited(text, label, "csv" if format_ == "csv" else "tsv"))


def read_delimited(
    text: bytes, label: str, format_: Literal["csv", "tsv"]
) -> tuple[pl.DataFrame, int, list[int] | None]:
    """THE reading of a CSV or TSV table with a header, whatever it holds (runs, qrels, click
    logs, metric tables): every column read as strings by polars, blank lines left out;
    returns the frame, the physical line of the header and of each row (``None`` for the
    rows when quoted fields span lines).

    Raises
    ------
    InputError
        For text with no line, or that polars cannot read as ``format_`` (naming ``label``).
    """
    kept = [(n, line) for n, line in enumerate(text.split(b"\n"), start=1) if line.strip()]
    if not kept:
        raise InputError(label, None, f"is empty; expected a {format_.upper()} header line")
    numbers = [n for n, _ in kept]
    try:  # without its blank lines, which polars would read as rows of nulls
        frame = pl.read_csv(
            io.BytesIO(b"\n".join(line for _, line in kept)),
            separator="," if format_ == "csv" else "\t",
            infer_schema=False,
            has_header=True,
        )
    except (*_POLARS_ERRORS, UnicodeDecodeError) as exc:
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise InputError(label, None, f"cannot be read as {format_.upper()} ({detail})") from exc
    rows = numbers[1:] if len(numbers) - 1 == frame.height else None
    return frame, numbers[0], rows


_POLARS_ERRORS = (pl.exceptions.PolarsError, pl.exceptions.PanicException, ValueError)
_BLANK = "[ \t\r\x0b\x0c]"


def _kept_lines(text: bytes, *, comments: bool) -> tuple[list[int], bytes]:
    """The physical numbers of the lines that are not blank (nor, with ``comments``, a
    comment line), and those lines joined: the text a polars reader reads row by row."""
    numbers: list[int] = []
    kept: list[bytes] = []
    for number, raw in enumerate(text.split(b"\n"), start=1):
        stripped = raw.strip()
        if stripped and not (comments and stripped.startswith(b"#")):
            numbers.append(number)
            kept.append(raw)
    return numbers, b"\n".join(kept)


def _json_lines(text: bytes, label: str) -> _Parsed:
    """A JSON Lines table (:func:`read_json_lines`)."""
    frame, numbers = read_json_lines(text, label)
    return _Parsed(frame, None, numbers)


def read_json_lines(text: bytes, label: str) -> tuple[pl.DataFrame, list[int]]:
    """THE reading of a JSON Lines table of plain values (runs, qrels, metric tables): the
    frame and the physical line of each row. Read by polars when every line is an object of
    plain values (strings, numbers, nulls; a number keeps its type), else line by line with
    the standard library, every value as text, which names the first line that is not an
    object or repeats a key (an :class:`~cranfield.errors.InputError`).

    polars keeps the first of a repeated key, silently, and spells a number in a column of
    strings its own way: its table is used only when every line gives each column exactly
    once (:func:`_plain_rows`), else the careful reading decides (one spelling of a number,
    :func:`~cranfield.io.json_docs.json_text`; a repeated key refused)."""
    numbers, joined = _kept_lines(text, comments=False)
    try:
        frame = pl.read_ndjson(io.BytesIO(joined), infer_schema_length=None)
    except _POLARS_ERRORS:
        frame = None
    if (
        frame is not None
        and frame.height == len(numbers)
        and all(t in (pl.String, pl.Null) or t.is_numeric() for t in frame.dtypes)
        and _plain_rows(frame, joined)
    ):
        return frame, numbers
    return _json_lines_one_by_one(text, label)


def _plain_rows(frame: pl.DataFrame, joined: bytes) -> bool:
    """Whether each of the lines ``joined`` gives every column of ``frame`` (the table polars
    read from them) once, and a string to every column of strings.

    Every key is a ``"`` followed by ``:`` (a ``"`` and ``:`` inside a string only add to
    the count): a line with no more such places than ``frame`` has columns, none of them
    null, repeats no key; one with as many places of ``"`` before ``:`` before ``"`` as
    there are columns of strings gave each of them a string, not a number polars turned
    into text."""
    if frame.width == 0 or frame.null_count().sum_horizontal().item():
        return False
    strings = sum(dtype == pl.String for dtype in frame.dtypes)
    lines = pl.Series("line", joined.decode("utf-8", "replace").split("\n"), dtype=pl.String)
    keys = lines.str.count_matches(r'"\s*:')
    valued = lines.str.count_matches(r'"\s*:\s*"')
    return bool(((keys == frame.width) & (valued == strings)).all())


def _json_lines_one_by_one(text: bytes, label: str) -> tuple[pl.DataFrame, list[int]]:
    """:func:`_json_lines` the careful way: each value kept as text, each line checked."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, raw in enumerate(text.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = json_value(raw)
        except RepeatedKeyError as exc:
            shown = raw.strip().decode("utf-8", "replace")
            raise InputError(label, number, f"{exc}; give each column once", shown) from None
        except ValueError as exc:
            shown = raw.strip().decode("utf-8", "replace")
            raise InputError(label, number, f"is not a JSON object ({exc})", shown) from None
        if not isinstance(row, dict):
            shown = raw.strip().decode("utf-8", "replace")
            raise InputError(label, number, "is not a JSON object", shown)
        rows.append(row)
        numbers.append(number)
    return rows_frame(rows), numbers


def _json(text: bytes, label: str, kind: Kind) -> _Parsed:
    """ranx-style JSON ``{query: {doc: value}}``, or a list of row objects
    (:func:`~cranfield.io.json_docs.read_document`: every repeat kept)."""
    try:
        table = read_document(text, "relevance" if kind == "qrels" else "score")
    except DocumentError as exc:
        raise InputError(label, exc.line, exc.problem) from None
    return _Parsed(table.frame, None, None, table.where)


def _msmarco_lines(text: bytes, label: str, kind: Kind) -> _Parsed:
    """MS MARCO text: ``qid pid rank`` run lines or ``qid pid`` qrels lines; read by polars
    when every line holds its fields separated by single tabs, else line by line (fields
    separated by any blanks, as in TREC text), which names the first line that is wrong."""
    names = ["qid", "pid", "rank"] if kind == "run" else ["qid", "pid"]
    numbers, joined = _kept_lines(text, comments=True)
    try:
        frame = pl.read_csv(
            io.BytesIO(joined),
            separator="\t",
            has_header=False,
            infer_schema=False,
            quote_char=None,
        )
    except _POLARS_ERRORS:
        frame = None
    if (
        numbers
        and frame is not None
        and frame.shape == (len(numbers), len(names))
        and not frame.select(
            pl.any_horizontal(pl.all().is_null() | pl.all().str.contains(_BLANK)).any()
        ).item()
    ):
        frame.columns = names
        if kind == "qrels":
            frame = frame.with_columns(pl.lit(1, dtype=pl.Int64).alias("relevance"))
        return _Parsed(frame, None, numbers)
    return _msmarco_one_by_one(text, label, kind)


def _msmarco_one_by_one(text: bytes, label: str, kind: Kind) -> _Parsed:
    """:func:`_msmarco_lines` the careful way, line by line."""
    want, shape = (3, "qid pid rank") if kind == "run" else (2, "qid pid")
    columns: list[list[str]] = [[] for _ in range(want)]
    numbers: list[int] = []
    for number, fields, shown in data_lines(text, label):
        if len(fields) != want:
            what = "an MS MARCO run" if kind == "run" else "MS MARCO qrels"
            raise InputError(
                label,
                number,
                f"expected {want} fields ({shape}) of {what}, found {len(fields)}",
                shown,
            )
        for column, field in zip(columns, fields, strict=True):
            column.append(field.decode())
        numbers.append(number)
    if not numbers:
        raise InputError(label, None, f"contains no {kind} lines")
    frame = pl.DataFrame(
        {"qid": columns[0], "pid": columns[1]}, schema={"qid": pl.String, "pid": pl.String}
    )
    if kind == "run":
        frame = frame.with_columns(pl.Series("rank", columns[2], dtype=pl.String))
    else:
        frame = frame.with_columns(pl.lit(1, dtype=pl.Int64).alias("relevance"))
    return _Parsed(frame, None, numbers)


# ----------------------------------------------------------------- writing


def write(data: Qrels | Run, path: str | Path, format: FileFormat = "trec") -> None:
    """Write judgments or a run to ``path`` in ``format`` (see the module notes).

    Raises
    ------
    InputError
        If an id cannot be written in a line format (TREC, MS MARCO: empty, or holding a
        blank); nothing is written then.
    OptionError
        If ``format`` is not one of :data:`~cranfield._types.FILE_FORMATS`, or cannot hold
        ``data`` (MS MARCO qrels hold relevant pairs only).
    """
    check_choice("format", format, FILE_FORMATS)
    if format == "trec":
        if isinstance(data, Run):
            trec.write_run(data, path)
        else:
            trec.write_qrels(data, path)
    elif format == "parquet":
        write_parquet(data, path)
    elif format == "msmarco":
        _write_msmarco(data, path)
    elif format == "json":
        write_text(path, _ranx_json(data))
    else:
        table = _table_of(data, beir=format == "beir")
        if format == "jsonl":
            write_text(path, "".join(json.dumps(row) + "\n" for row in table.iter_rows(named=True)))
        else:
            text = table.with_columns(pl.all().cast(pl.String))
            if isinstance(data, Qrels):  # a decimal label without an exponent, as read back
                value = "score" if format == "beir" else "relevance"
                text = text.with_columns(label_text(table.get_column(value)).alias(value))
            with replacing(path) as tmp:
                text.write_csv(tmp, separator="," if format == "csv" else "\t")


def _table_of(data: Qrels | Run, *, beir: bool = False) -> pl.DataFrame:
    """The columns a table format holds (every value as text for CSV/TSV, so that a score is
    written in the shortest form that reads back the same)."""
    frame = data.frame
    if isinstance(data, Run):
        value = pl.col("score")
        table = frame.select("query_id", "doc_id", value)
    else:
        label = "gain" if "gain" in frame.columns else "relevance"  # decimal labels kept
        iteration = ["iteration"] if (frame.get_column("iteration") != "0").any() else []
        table = frame.select("query_id", *iteration, "doc_id", pl.col(label).alias("relevance"))
    if beir:
        value_name = "score" if isinstance(data, Run) else "relevance"
        table = table.select(
            pl.col("query_id").alias("query-id"),
            pl.col("doc_id").alias("corpus-id"),
            pl.col(value_name).alias("score"),
        )
    return table


def _ranx_json(data: Qrels | Run) -> str:
    """``{query: {doc: value}}`` in table order."""
    column = (
        "score"
        if isinstance(data, Run)
        else "gain"
        if "gain" in data.frame.columns
        else "relevance"
    )
    nested: dict[str, dict[str, Any]] = {}
    for query, doc, value in data.frame.select("query_id", "doc_id", column).iter_rows():
        nested.setdefault(query, {})[doc] = value
    return json.dumps(nested) + "\n"


def _write_msmarco(data: Qrels | Run, path: str | Path) -> None:
    """``qid pid rank`` lines, ranked in trec_eval's order, or ``qid pid`` relevant pairs."""
    if isinstance(data, Run):
        what = f"run {data.name!r}"
        frame = data.frame.select("query_id", "doc_id")[trec_eval_order(data)]
        frame = frame.with_columns(
            (pl.int_range(pl.len()).over("query_id") + 1).cast(pl.String).alias("rank")
        )
    else:
        what = f"qrels {data.name!r}"
        relevance = data.frame.get_column("gain" if "gain" in data.frame.columns else "relevance")
        if (relevance != 1).any():
            raise OptionError(
                "format",
                "a format that holds these judgments",
                "msmarco",
                note="MS MARCO qrels hold relevant (query, document) pairs only, all of "
                "relevance 1; these have other relevance values. Write TREC qrels instead.",
            )
        frame = data.frame.select("query_id", "doc_id")
    trec._check_writable(frame.select("query_id", "doc_id"), path, what, "MS MARCO text")
    text = "".join("\t".join(row) + "\n" for row in frame.iter_rows())
    write_text(path, text)


# ----------------------------------------------------------------- converting

_SUFFIXES: dict[str, FileFormat] = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".csv": "csv",
    ".tsv": "tsv",
    ".trec": "trec",
    ".run": "trec",
    ".qrels": "trec",
    ".txt": "trec",
    ".res": "trec",
}
"""The format a target file's suffix names (``cranfield convert`` without ``--to``)."""


TableFormat = Literal["csv", "tsv", "jsonl", "parquet"]
"""The table formats every kind of table shares (runs and qrels, click logs, metric tables)."""

TABLE_SUFFIXES: Final[dict[str, TableFormat]] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
COMPRESSION_SUFFIXES: Final = (".gz", ".bz2", ".xz", ".zst", ".zstd")


def table_format_of_name(source: str | Path) -> TableFormat | None:
    """The table format a file's name says (``.csv``, ``.tsv``/``.tab``,
    ``.jsonl``/``.ndjson``, ``.parquet``/``.pq``), a compression suffix looked through
    (``log.csv.gz`` is CSV); ``None`` when it says none.

    >>> table_format_of_name("clicks.TSV.gz"), table_format_of_name("run.txt")
    ('tsv', None)
    """
    name = str(source).lower()
    for ending in COMPRESSION_SUFFIXES:
        name = name.removesuffix(ending)
    return TABLE_SUFFIXES.get(Path(name).suffix)


def format_of_suffix(path: str | Path) -> FileFormat | None:
    """The format the suffix of ``path`` names (``.jsonl``: ``jsonl``, ``.txt``: ``trec``
    ...), or ``None``; a compressed suffix names none (the writers write plain files)."""
    return _SUFFIXES.get(Path(path).suffix.lower())


def left_out(data: Qrels | Run, format: FileFormat) -> tuple[str, ...]:
    """What writing ``data`` in ``format`` does not keep, in sentences (none: lossless)."""
    out: list[str] = []
    if isinstance(data, Run):
        if format == "msmarco":
            out.append(
                "scores are not kept: an MS MARCO run holds ranks, in trec_eval's order "
                "(read back, each score is 1/rank, which ranks the documents the same)"
            )
        if format not in ("trec", "parquet") and data.tag != data.name:
            out.append(f"the run tag {data.tag!r} is not kept (only TREC and Parquet hold one)")
    elif format in ("beir", "json", "msmarco"):
        iterations = data.frame.get_column("iteration")
        if (iterations != "0").any():
            out.append(
                f"the iteration column is not kept ({described(format, 'qrels')} has none; "
                f"{(iterations != '0').sum()} judgment(s) had one other than 0)"
            )
    return tuple(out)


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert` read and wrote.

    Attributes
    ----------
    kind:
        ``"qrels"`` or ``"run"``.
    source_format, target_format:
        The format read (given or detected) and the format written.
    queries, rows:
        How many queries and (query, document) rows were written.
    notes:
        What reading did beyond the file's plain meaning (merged judgments, decimal labels),
        then what the target format does not keep (:func:`left_out`).
    """

    kind: Kind
    source_format: FileFormat
    target_format: FileFormat
    queries: int
    rows: int
    notes: tuple[str, ...]


def convert(
    source: str | Path,
    target: str | Path,
    to: FileFormat | None = None,
    *,
    source_format: FileFormat | None = None,
    kind: Kind | None = None,
    duplicates: DuplicatePolicy = "merge",
) -> Conversion:
    """Read the run or judgments ``source`` and write them to ``target`` in ``to``.

    ``to`` defaults to the format ``target``'s suffix names (:func:`format_of_suffix`);
    ``source_format`` and ``kind`` to what the file says (:func:`detect`,
    :func:`detect_kind`). Everything a target format can hold is kept: ids, scores or
    labels (decimal ones too), iterations and run tags where the format has a place for
    them; what it cannot hold is said in :attr:`Conversion.notes`, and MS MARCO qrels, which
    hold relevant pairs only, refuse other labels.

    Raises
    ------
    OptionError
        For a ``to`` that is not given and not named by ``target``'s suffix, a ``target``
        that is ``source``, or a target format that cannot hold the data.
    InputError
        If ``source`` cannot be read (naming its file and line), or does not say whether it
        holds a run or judgments and ``kind`` is not given.
    """
    if to is None:
        to = format_of_suffix(target)
        if to is None:
            raise OptionError(
                "target",
                "a file whose suffix names a format ("
                + ", ".join(sorted(_SUFFIXES))
                + "; files are written uncompressed), or a format given (to=, --to)",
                str(target),
            )
    check_choice("to", to, FILE_FORMATS)
    if kind is None:
        kind = detect_kind(source, source_format)
    check_choice("kind", kind, INPUT_KINDS)
    refuse_overwriting(target, [source], option="target")  # OUT on the command line
    label = source_name(source)
    found, text = _format_of(source, source_format, kind, label)
    data: Qrels | Run = (
        _run_in(source, label, found, text, None)
        if kind == "run"
        else _qrels_in(source, label, found, text, None, duplicates)
    )
    write(data, target, to)
    return Conversion(
        kind=kind,
        source_format=found,
        target_format=to,
        queries=len(data.topics),
        rows=len(data),
        notes=(*data.notes, *left_out(data, to)),
    )
