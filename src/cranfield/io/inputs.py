"""Each input file opened once, sniffed once and read once: :func:`open_run`, :func:`open_qrels`.

An evaluation reads a run file and a qrels file; here is the one decision of how, per input,
made from what the file is, and the file is opened and read once whatever is decided:

==========================================  ===============================================
the input                                   how it is read
==========================================  ===============================================
a regular file of at most 16 MiB            read whole into one buffer; split with numpy
(:data:`~cranfield.io.trec_numpy.MAX_BYTES`) alone when it is clean TREC text
                                            (:mod:`cranfield.io.trec_numpy`), else parsed
                                            from the same bytes in its format
                                            (:mod:`cranfield.io.formats`)
a larger regular TREC file, not compressed  read block by block through one handle
                                            (:func:`cranfield.io.trec.read_run_handle`); a
                                            block that is not clean sends the reading back
                                            to the file's start through the same handle
any other file (compressed, another         read whole, once, and parsed from those bytes
format, Parquet)
standard input (``-``), a pipe, a named     read whole, once, as it comes
pipe, ``<(...)``
==========================================  ===============================================

The SHA-256 that provenance and the result store name an input by is computed from the bytes
as they are read (:class:`~cranfield.io.source.Digest`), never by opening the file again: a
pipe can be read only once, and a file that changed since would be named by bytes that were
not evaluated.

Nothing is read until it is asked for: :meth:`RunInput.columns` (the numpy split, ``None``
when the file is not small clean TREC text) and :meth:`RunInput.run` (the careful reading)
share one reading of the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from cranfield._types import DuplicatePolicy, FileFormat, InputKind
from cranfield.errors import InputError
from cranfield.io.limits import in_memory
from cranfield.io.source import (
    MAGIC_BYTES,
    Digest,
    compression,
    decompressed,
    is_parquet,
    read_bytes,
    source_name,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from cranfield.data.columns import QrelsColumns, RunColumns
    from cranfield.data.qrels import Qrels
    from cranfield.data.run import Run

__all__ = ["QrelsInput", "RunInput", "open_qrels", "open_run"]

_SKIP_COMMENTS: tuple[FileFormat, ...] = ("trec", "msmarco")
"""The formats whose readers skip comment lines."""


class _FileInput:
    """An input file (or ``-``), opened and read once, when first asked for."""

    def __init__(self, source: str | Path, format: FileFormat | None) -> None:
        self.source = source
        self.label = source_name(source)
        self.format = format
        self.digest = Digest()
        info = None
        if str(source) != "-":
            try:
                info = os.stat(source)
            except (OSError, ValueError):  # reading it says why, in the readers' words
                info = None
        self.regular = info is not None and stat.S_ISREG(info.st_mode)
        self.size = info.st_size if info is not None and self.regular else None
        self._buffer: NDArray[np.uint8] | None = None  # a small file's bytes, padded
        self._text: bytes | None = None

    def read(self) -> None:
        """Read the input now, whole, as its reading will want it (hashed as it is read)."""
        if self._padded() is None:
            self.data()

    @property
    def sha256(self) -> str | None:
        """The SHA-256 of the bytes read, once they were all read (else ``None``)."""
        return self.digest.hexdigest

    @property
    def small(self) -> bool:
        """Whether the file is a small regular file (read whole into a numpy buffer)."""
        from cranfield.io.trec_numpy import MAX_BYTES

        return self.size is not None and 0 < self.size <= MAX_BYTES and not is_parquet(self.label)

    def _padded(self) -> NDArray[np.uint8] | None:
        """A small regular file's bytes in a buffer padded for the numpy split (read once);
        ``None`` for any other input."""
        if self._buffer is None and self._text is None and self.small:
            from cranfield.io.trec_numpy import padded

            size = self.size or 0
            buffer = padded(size)
            try:
                with open(self.source, "rb", buffering=0) as handle:
                    self.digest.opened(self.source, os.fstat(handle.fileno()))
                    got = handle.readinto(buffer[:size].data) or 0
                    self.digest.update_later(buffer[:got].data)  # hashed while it is split
                    more = handle.read() if got == size else b""
            except OSError as exc:
                message = f"cannot read file ({exc.strerror or exc})"
                raise InputError(self.label, None, message) from exc
            if got != size or more:  # it changed size while read: read as any other file
                self.digest.update(more)
                self.digest.done()
                self._keep_text(buffer[:got].tobytes() + more)
            else:
                self.digest.done()
                self._buffer = buffer
        return self._buffer

    kind: InputKind

    def _keep_text(self, raw: bytes) -> bytes:
        """Keep the text of the bytes read (decompressed if need be, comment lines kept short
        where its format skips them; lines not checked)."""
        with in_memory(self.label):
            self._text = decompressed(raw, self.label, lines=False, comments=self._comments)
        return self._text

    def _comments(self, head: bytes) -> bool:
        """Whether the comment lines of a text starting with ``head`` are skipped by its
        format (TREC, MS MARCO), so that a compressed file of comments is held in a byte or
        two a line (:func:`~cranfield.io.source.decompressed`), not its decompressed size."""
        if self.format is not None:
            return self.format in _SKIP_COMMENTS
        from cranfield.io.formats import detect_text

        try:
            found = detect_text(head, self.kind, label=self.label, whole=False)
        except InputError:  # read whole, and refused by its reader
            return False
        return found in _SKIP_COMMENTS

    def data(self) -> bytes:
        """The whole text of the input (a Parquet file's bytes), read once; its lines are
        checked by the reader of its format."""
        if self._text is not None:
            return self._text
        buffer = self._padded()
        if buffer is not None:
            self._buffer = None  # the text is kept instead
            return self._keep_text(buffer[: self.size].tobytes())
        if self._text is None:  # (a small file that changed size while read keeps its text)
            lines = None if not self.regular else False  # a pipe: checked as it comes
            self._text = read_bytes(
                self.source, lines=lines, digest=self.digest, comments=self._comments
            )
        return self._text


class RunInput(_FileInput):
    """A run file opened once: its numpy split (:meth:`columns`) or its careful reading
    (:meth:`run`), from one reading of the file."""

    kind: InputKind = "run"

    def columns(self) -> RunColumns | None:
        """The run as numpy columns, if it is a small clean TREC text (see
        :mod:`cranfield.io.trec_numpy`); else ``None`` (read it with :meth:`run`)."""
        if self.format not in (None, "trec"):
            return None
        buffer = self._padded()
        if buffer is None:
            return None
        from cranfield.io.trec_numpy import run_columns, text_of

        return run_columns(text_of(buffer, self.size or 0, self.label))

    def run(self, *, name: str | None = None) -> Run:
        """The run, read the careful way (every format, every check) from the one reading of
        the file: a large TREC file block by block through one handle."""
        from cranfield.io.formats import run_from_bytes

        if self._large_trec():
            return self._blocks(name)
        data = self.data()
        return run_from_bytes(
            data, self.source, format=self.format, name=name, regular=self.regular
        )

    def _large_trec(self) -> bool:
        """Whether the run is a regular file too large to be read whole at once that may be
        TREC text (read block by block unless its head says otherwise)."""
        return (
            self._text is None
            and self.regular
            and not self.small
            and not is_parquet(self.label)
            and self.format in (None, "trec")
        )

    def _blocks(self, name: str | None) -> Run:
        """A large regular file: TREC text not compressed read block by block; else whole,
        through the same handle."""
        from cranfield.io.formats import HEAD_BYTES, detect_text, run_from_bytes
        from cranfield.io.trec import read_run_handle

        try:
            handle = open(self.source, "rb")  # noqa: SIM115 -- closed below, on every path
        except OSError as exc:
            message = f"cannot read file ({exc.strerror or exc})"
            raise InputError(self.label, None, message) from exc
        with handle:
            self.digest.opened(self.source, os.fstat(handle.fileno()))
            head = os.pread(handle.fileno(), HEAD_BYTES, 0)
            trec = compression(head[:MAGIC_BYTES]) is None and (
                self.format == "trec"
                or detect_text(head, "run", label=self.label, whole=False, path=True) == "trec"
            )
            if trec:
                return read_run_handle(handle, self.label, name=name, digest=self.digest)
            raw = handle.read()
        self.digest.update(raw)
        self.digest.done()
        text = self._keep_text(raw)
        return run_from_bytes(text, self.source, format=self.format, name=name)


class QrelsInput(_FileInput):
    """A qrels file opened once: its numpy split (:meth:`columns`) or its careful reading
    (:meth:`qrels`), from one reading of the file."""

    kind: InputKind = "qrels"

    def columns(self) -> QrelsColumns | None:
        """The qrels as numpy columns, if they are a small clean TREC text; else ``None``."""
        if self.format not in (None, "trec"):
            return None
        buffer = self._padded()
        if buffer is None:
            return None
        from cranfield.io.trec_numpy import qrels_columns, text_of

        return qrels_columns(text_of(buffer, self.size or 0, self.label))

    def qrels(self, *, name: str | None = None, duplicates: DuplicatePolicy = "merge") -> Qrels:
        """The qrels, read the careful way (every format, every check, the ``duplicates``
        policy) from the one reading of the file."""
        from cranfield.io.formats import qrels_from_bytes

        return qrels_from_bytes(
            self.data(),
            self.source,
            format=self.format,
            name=name,
            duplicates=duplicates,
            regular=self.regular,
        )


def open_run(source: str | Path, *, format: FileFormat | None = None) -> RunInput:
    """The run file ``source`` (a path, or ``-`` for standard input) to be read once, in
    ``format`` (``None``: detected); nothing is read until asked for."""
    return RunInput(source, format)


def open_qrels(source: str | Path, *, format: FileFormat | None = None) -> QrelsInput:
    """The qrels file ``source`` (a path, or ``-``) to be read once, in ``format``
    (``None``: detected); nothing is read until asked for."""
    return QrelsInput(source, format)
