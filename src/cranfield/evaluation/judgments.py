"""The judgments of an evaluation, read once: :class:`Judgments`.

An :class:`~cranfield.evaluation.evaluator.Evaluator` holds one :class:`Judgments`: the qrels
(and the ``known`` and ``intents`` judgments of some measures) as given, and what reading them
gave, each read on first use and then kept. Every twin of an evaluator (other options, other
measures: :meth:`Evaluator.with_options
<cranfield.evaluation.evaluator.Evaluator.with_options>`, :meth:`Evaluator.with_measures
<cranfield.evaluation.evaluator.Evaluator.with_measures>`) shares the same object, so nothing is
read twice, and an engine sends it to its workers once, read (:meth:`Judgments.prepare`).

Two small clean TREC qrels files are read with numpy alone (:mod:`cranfield.io.trec_numpy`):
:meth:`Judgments.columns` are those columns, and :attr:`Judgments.qrels` (the polars reading,
with its policy and notes) is read only when something needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from cranfield._types import DuplicatePolicy, FileFormat
from cranfield.data.columns import names
from cranfield.io.source import is_parquet, source_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from cranfield.data.columns import QrelsColumns
    from cranfield.data.qrels import Qrels
    from cranfield.evaluation.options import EvalOptions
    from cranfield.io.inputs import QrelsInput
    from cranfield.io.load import QrelsLike

__all__ = ["Judgments", "load_judgments"]

T = TypeVar("T")


def load_judgments(source: QrelsLike, options: EvalOptions, *, name: str | None = None) -> Qrels:
    """The qrels ``source`` read as ``options`` say (their ``duplicates`` policy and
    ``qrels_format``): how every evaluation, plot and report reads its judgments."""
    from cranfield.io.load import load_qrels

    return load_qrels(source, name=name, duplicates=options.duplicates, format=options.qrels_format)


class _Read:
    """What reading the qrels gave so far (shared by every holder of one :class:`Judgments`)."""

    def __init__(self) -> None:
        self.input: QrelsInput | None = None  # the qrels file, opened once
        self.qrels: Qrels | None = None
        self.columns: list[QrelsColumns | None] = []  # [columns] once the numpy read was tried
        self.judged: list[str] | None = None


class _Extras:
    """The ``known`` and ``intents`` frames once read (shared across other qrels too)."""

    def __init__(self) -> None:
        self.frames: tuple[Any, Any] | None = None


@dataclass(frozen=True, eq=False)
class Judgments:
    """Qrels (and extra judgments) as given, read once on first use and shared.

    Attributes
    ----------
    source:
        The qrels: a path, ``Qrels``, DataFrame, Arrow table or dict of dicts.
    duplicates, qrels_format:
        The evaluation options that say how the qrels are read
        (:class:`~cranfield.evaluation.options.EvalOptions`).
    known, intents:
        The extra judgments of some measures, as given (``None``: none).
    """

    source: QrelsLike
    duplicates: DuplicatePolicy = "merge"
    qrels_format: FileFormat | None = None
    known: QrelsLike | None = None
    intents: Any = None
    _read: _Read = field(default_factory=_Read, repr=False)
    _extras: _Extras = field(default_factory=_Extras, repr=False)

    @classmethod
    def of(
        cls,
        qrels: QrelsLike,
        options: EvalOptions,
        *,
        known: QrelsLike | None = None,
        intents: Any = None,
    ) -> Judgments:
        """The judgments ``qrels`` (and ``known``, ``intents``) to be read as ``options`` say."""
        return cls(qrels, options.duplicates, options.qrels_format, known, intents)

    def for_options(self, options: EvalOptions) -> Judgments:
        """These judgments, if ``options`` read them the same way; else the same inputs to be
        parsed anew (the qrels file's bytes, once read, and the extra judgments shared)."""
        if (options.duplicates, options.qrels_format) == (self.duplicates, self.qrels_format):
            return self
        read = _Read()
        if options.qrels_format == self.qrels_format:  # the same file, another duplicates rule
            read.input = self._read.input
        return Judgments(
            self.source,
            options.duplicates,
            options.qrels_format,
            self.known,
            self.intents,
            _read=read,
            _extras=self._extras,
        )

    def with_qrels(self, qrels: Qrels) -> Judgments:
        """Other qrels with the same extra judgments (read once, shared)."""
        return Judgments(
            qrels,
            self.duplicates,
            self.qrels_format,
            self.known,
            self.intents,
            _extras=self._extras,
        )

    @property
    def label(self) -> str:
        """How the qrels are named in messages and provenance (a path, or ``<in memory>``)."""
        source = self.source
        return str(source) if isinstance(source, (str, Path)) else "<in memory>"

    @property
    def plain(self) -> bool:
        """Whether there are no extra judgments (``known``, ``intents``)."""
        return self.known is None and self.intents is None

    @property
    def loaded(self) -> Qrels | None:
        """The qrels if they were read with polars already, else ``None``."""
        return self._read.qrels

    def _file(self) -> QrelsInput | None:
        """The qrels file, opened once (``None``: the qrels are not a file)."""
        read = self._read
        if read.input is None and isinstance(self.source, (str, Path)):
            from cranfield.io.inputs import open_qrels

            if _is_id(self.source):  # no file: an ir_datasets id, read by load_qrels
                return None
            read.input = open_qrels(self.source, format=self.qrels_format)
        return read.input

    @property
    def qrels(self) -> Qrels:
        """The judgments, read on first use and kept."""
        read = self._read
        if read.qrels is None:
            opened = self._file()
            if opened is not None:
                read.qrels = opened.qrels(duplicates=self.duplicates)
            else:
                from cranfield.evaluation.options import EvalOptions

                options = EvalOptions(duplicates=self.duplicates, qrels_format=self.qrels_format)
                read.qrels = load_judgments(self.source, options)
        return read.qrels

    @property
    def notes(self) -> tuple[str, ...]:
        """What reading the qrels with polars said (nothing if they were read with numpy)."""
        return () if self._read.qrels is None else self._read.qrels.notes

    def beside(self, load: Callable[[], T]) -> T:
        """``load()``, the qrels read beside it when they are not read yet (reading a large
        run starts slowly, leaving a core free for them)."""
        read = self._read
        if read.qrels is not None:
            return load()
        from cranfield.io.load import side_by_side

        read.qrels, loaded = side_by_side(lambda: self.qrels, load)
        return loaded

    def columns(self) -> QrelsColumns | None:
        """The qrels read with numpy alone, if they are a small clean TREC file (tried once)."""
        read = self._read
        if not read.columns:
            opened = self._file()
            small = opened is not None and not is_parquet(opened.label) and read.qrels is None
            read.columns.append(opened.columns() if opened is not None and small else None)
        return read.columns[0]

    def judged_topics(self) -> list[str]:
        """Every query of the qrels, bytewise order (a new list at each call)."""
        read = self._read
        if read.judged is None:  # once: every evaluation asks (the overlap check)
            columns = self.columns() if read.qrels is None else None
            read.judged = names(columns.query_id) if columns is not None else self.qrels.topics
        return list(read.judged)

    def count_relevant(self) -> int:
        """How many judgments have a relevance above 0 (trec_eval's ``num_rel`` with ``-c``)."""
        columns = self.columns() if self._read.qrels is None else None
        if columns is not None:
            return int((columns.relevance > 0).sum())
        return int((self.qrels.frame.get_column("relevance") > 0).sum())

    def extra_frames(self) -> tuple[Any, Any]:
        """The ``known`` and ``intents`` judgments as frames (``None`` where not given)."""
        extras = self._extras
        if extras.frames is None:
            known = intents = None
            if isinstance(self.known, (str, Path)) and not _is_id(self.known):
                from cranfield.io.inputs import open_qrels

                known = open_qrels(self.known).qrels(name="known").frame
            elif self.known is not None:  # in memory, or an ir_datasets id
                from cranfield.io.load import load_qrels

                known = load_qrels(self.known, name="known").frame
            if self.intents is not None:
                from cranfield.io.intents import load_intents

                intents = load_intents(self.intents).frame
            extras.frames = (known, intents)
        return extras.frames

    def prepare(self) -> Judgments:
        """Read everything now, not on first use: what an engine does before it sends these
        judgments to its workers, so that no worker reads them again. Returns ``self``."""
        self.columns()
        _ = self.qrels
        self.extra_frames()
        self.judged_topics()
        self._read.input = None  # read: its bytes are not sent to the workers
        return self

    def sources(self, run: object) -> dict[str, str | None]:
        """``{role: path or None}`` of the qrels, ``run`` and any extra judgments, in that
        order (``None``: an object in memory): what :meth:`Results.provenance
        <cranfield.evaluation.results.Results.provenance>` names."""
        out = {"qrels": source_path(self.source), "run": source_path(run)}
        if self.known is not None:
            out["known"] = source_path(self.known)
        if self.intents is not None:
            out["intents"] = source_path(self.intents)
        return out


def _is_id(source: str | Path) -> bool:
    """Whether ``source`` is an ir_datasets id rather than a file (:mod:`cranfield.io.irds`)."""
    from cranfield.io.irds import is_irds_id

    return is_irds_id(source)
