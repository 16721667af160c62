"""Results kept between evaluations (``--store DIR``): what was computed once is not computed
again.

The results of a run file for one measure are stored under a key made of everything that
determines them: the SHA-256 of the run file's bytes, of the qrels file's (and of the
``known`` and ``intents`` files' when given), the evaluation options, the measure's canonical
name and cranfield's version. So re-evaluating 1,000 runs after 10 were added computes only
the 10; a measure added later is computed alone for every run; a changed byte in any input,
another option or another version of cranfield misses, and is computed afresh.

Only inputs given as files are stored: a run in memory, or any input read from standard
input, is always computed. The run's *name* is not part of the key (the same file named
otherwise is the same result). The warnings an evaluation raised (a run that answers few of
the judged queries, say) are stored with it and raised again on every use, so a stored
result says what a computed one says.

An entry is one JSON document (numbers as Python writes them, every float64 exact; ``NaN``
where a measure is undefined), written whole through :mod:`cranfield.io.sink`; nothing but
JSON is ever read back, so a store folder can come from anywhere. An entry carries the
SHA-256 of its content and is validated whole before use (:func:`checked`: the checksum, one
value per query, finite or NaN, within the measure's range); an entry that cannot be read or
fails a check is computed again and replaced, said once per store by a
:class:`~cranfield.errors.StoreWarning` (an entry of another layout, quietly). A store that
cannot be written (read-only, a full disk) is said once too, and the command goes on with
the numbers it computed.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from cranfield import errors
from cranfield._version import __version__
from cranfield.errors import OptionError, StoreWarning
from cranfield.evaluation.provenance import file_sha256

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cranfield.evaluation.options import EvalOptions
    from cranfield.measures import Measure

__all__ = ["FORMAT", "ResultStore", "Stored", "checked", "replay"]

FORMAT: Final = 2
"""The layout of an entry; another layout is never read (it is computed again)."""


@dataclass(frozen=True)
class Stored:
    """One run's results for one measure, as kept in the store."""

    topics: tuple[str, ...]
    values: tuple[float, ...]
    missing_topics: tuple[str, ...]
    micro: float | None
    notes: tuple[str, ...]
    warnings: tuple[tuple[str, str], ...]


def replay(said: tuple[tuple[str, str], ...]) -> None:
    """Raise again the warnings an evaluation raised, kept as ``(category name, message)``
    (``--strict`` still refuses them); a category cranfield does not name is a UserWarning."""
    for category, message in said:
        found = getattr(errors, category, None)
        kind = found if isinstance(found, type) and issubclass(found, Warning) else UserWarning
        warnings.warn(message, kind, stacklevel=3)


class ResultStore:
    """A folder of stored results (created when first written).

    Parameters
    ----------
    folder:
        Where the entries are kept, ``ab/abcdef...json`` by key.
    """

    def __init__(self, folder: str | Path) -> None:
        if isinstance(folder, str) and not folder.strip():
            raise OptionError("store", "a folder", folder)
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise OptionError("store", "a folder (not a file)", str(folder))
        self.hits = 0
        self.computed = 0
        self.damaged = 0
        self._said: set[str] = set()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.folder)!r})"

    # ------------------------------------------------------------------ keys

    def _hash(self, path: str | Path) -> str:
        """The SHA-256 of a file: as its reader hashed it if this version of it was read
        (:func:`~cranfield.io.source.digest_of`), else read to be hashed."""
        from cranfield.io.source import digest_of

        return digest_of(path) or file_sha256(path)

    def run_key(
        self, run: Path | str, inputs: Mapping[str, str | None], options: EvalOptions
    ) -> str | None:
        """The key of ``run``'s results but for the measure: ``None`` when an input is not a
        file (in memory, or standard input) or cannot be read, which is then never stored."""
        from cranfield.io.source import regular_file

        # Only regular files: a pipe is read once, to be evaluated (never stored).
        files = {role: path for role, path in inputs.items() if path is not None}
        if not regular_file(run) or len(files) != len(inputs):
            return None
        if not all(regular_file(path) for path in files.values()):
            return None
        try:
            hashes = {"run": self._hash(run)}
            hashes.update({role: self._hash(path) for role, path in sorted(files.items())})
        except OSError:  # unreadable: evaluating it says so, in the readers' words
            return None
        parts = {
            "format": FORMAT,
            "cranfield": __version__,
            **hashes,
            "options": json.dumps(options.to_dict(), sort_keys=True, default=str),
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()

    def _path(self, run_key: str, measure: Measure) -> Path:
        key = hashlib.sha256(f"{run_key}\n{measure}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.json"

    # ------------------------------------------------------------------ entries

    def get(self, run_key: str, measure: Measure) -> Stored | None:
        """The stored results of a run for ``measure``, or ``None``: absent, unreadable, or
        damaged (:func:`checked`; then said once per store, and computed again)."""
        path = self._path(run_key, measure)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
        try:
            return checked(json.loads(text), measure)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self._say(
                "damaged",
                f"the result store {self.folder} held a damaged entry ({path.name}: {exc}); "
                f"it is computed again and replaced",
            )
            self.damaged += 1
            return None

    def agreeing(self, found: dict[Measure, Stored | None]) -> dict[Measure, Stored | None]:
        """The entries of one run ``found`` for its measures, or none of them when they
        disagree on the run's queries (each entry valid alone, the store damaged as a whole:
        said once, and computed again)."""
        kept = [entry for entry in found.values() if entry is not None]
        first = kept[0] if kept else None
        if first is None or all(
            (e.topics, e.missing_topics) == (first.topics, first.missing_topics) for e in kept
        ):
            return found
        self._say(
            "damaged",
            f"the result store {self.folder} held entries of one run that disagree on its "
            f"queries; they are computed again and replaced",
        )
        self.damaged += len(kept)
        return dict.fromkeys(found)

    def _say(self, what: str, message: str) -> None:
        """Warn ``message`` once per kind of trouble (``what``) of this store."""
        if what not in self._said:
            self._said.add(what)
            warnings.warn(message, StoreWarning, stacklevel=3)

    def put(self, run_key: str, measure: Measure, stored: Stored) -> None:
        """Keep ``stored`` (written whole, beside its place, then renamed into it). A store
        that cannot be written (read-only, a full disk) is said once and left: the results
        were computed, and are given all the same."""
        from cranfield.io.sink import write_text

        path = self._path(run_key, measure)
        data: dict[str, Any] = {
            "format": FORMAT,
            "cranfield": __version__,
            "measure": str(measure),
            "topics": list(stored.topics),
            "values": [float(v) for v in np.asarray(stored.values, dtype=np.float64)],
            "missing_topics": list(stored.missing_topics),
            "micro": stored.micro,
            "notes": list(stored.notes),
            "warnings": [list(w) for w in stored.warnings],
        }
        data["checksum"] = _checksum(data)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, json.dumps(data) + "\n")
        except OSError as exc:
            self._say(
                "unwritable",
                f"cannot keep results in the result store {self.folder} "
                f"({exc.strerror or exc}); they were computed and are given, not kept",
            )


def _checksum(data: Mapping[str, Any]) -> str:
    """The SHA-256 of an entry's content (every field but the checksum, keys sorted)."""
    content = {k: v for k, v in data.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def checked(data: Any, measure: Measure) -> Stored | None:
    """The entry ``data`` (a JSON document read back) for ``measure``, validated whole:
    ``None`` for another layout or measure (not damage: computed again quietly); a
    ``ValueError`` saying what is wrong for a damaged one.

    An entry must carry the checksum of its content; its queries must be distinct strings
    with one value each, every value finite or NaN (a measure undefined for a query), within
    the measure's range (``[0, 1]`` for a bounded measure, a whole number >= 0 for a count),
    its micro average likewise, its notes and warnings strings.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    if data.get("measure") != str(measure):
        return None
    if data.get("checksum") != _checksum(data):
        raise ValueError("its checksum does not match its content")
    topics, values = data["topics"], data["values"]
    if not (isinstance(topics, list) and all(isinstance(t, str) for t in topics)):
        raise ValueError("its queries are not a list of ids")
    if len(set(topics)) != len(topics):
        raise ValueError("a query is given twice")
    if not isinstance(values, list) or len(values) != len(topics):
        raise ValueError(f"{len(values)} values for {len(topics)} queries")
    micro = data["micro"]
    numbers = np.array([*values, np.nan if micro is None else micro], dtype=np.float64)
    _check_range(numbers, measure)
    missing = data["missing_topics"]
    notes, said = data["notes"], data["warnings"]
    if not all(isinstance(x, list) for x in (missing, notes, said)) or not all(
        isinstance(x, str) for x in [*missing, *notes]
    ):
        raise ValueError("its missing queries or notes are not text")
    if not all(
        isinstance(w, list) and len(w) == 2 and all(isinstance(x, str) for x in w) for w in said
    ):
        raise ValueError("its warnings are not (category, message) pairs")
    return Stored(
        topics=tuple(topics),
        values=tuple(float(v) for v in values),
        missing_topics=tuple(missing),
        micro=None if micro is None else float(micro),
        notes=tuple(notes),
        warnings=tuple((c, m) for c, m in said),
    )


def _check_range(numbers: np.ndarray[Any, np.dtype[np.float64]], measure: Measure) -> None:
    """Refuse a value no evaluation of ``measure`` gives (NaN, undefined, passes)."""
    defined = numbers[~np.isnan(numbers)]
    if not np.isfinite(defined).all():
        raise ValueError("a value is infinite")
    tags = measure.spec.tags
    if "bounded" in tags and ((defined < 0) | (defined > 1)).any():
        raise ValueError(f"a value of {measure} lies outside [0, 1]")
    if "count" in tags and ((defined < 0) | (defined != np.round(defined))).any():
        raise ValueError(f"a value of {measure} is not a whole number >= 0")
