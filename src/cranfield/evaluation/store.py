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
JSON is ever read back, so a store folder can come from anywhere. An entry that cannot be
read (damaged, from another format) is computed again and replaced.
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
from cranfield.errors import OptionError
from cranfield.evaluation.provenance import file_sha256

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cranfield.evaluation.options import EvalOptions
    from cranfield.measures import Measure

__all__ = ["FORMAT", "ResultStore", "Stored", "replay"]

FORMAT: Final = 1
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
        """The stored results of a run for ``measure``, or ``None`` (absent or unreadable)."""
        path = self._path(run_key, measure)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT or data.get("measure") != str(measure):
                return None
            return Stored(
                topics=tuple(data["topics"]),
                values=tuple(float(v) for v in data["values"]),
                missing_topics=tuple(data["missing_topics"]),
                micro=None if data["micro"] is None else float(data["micro"]),
                notes=tuple(data["notes"]),
                warnings=tuple((str(c), str(m)) for c, m in data["warnings"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, run_key: str, measure: Measure, stored: Stored) -> None:
        """Keep ``stored`` (written whole, beside its place, then renamed into it)."""
        from cranfield.io.sink import write_text

        path = self._path(run_key, measure)
        path.parent.mkdir(parents=True, exist_ok=True)
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
        write_text(path, json.dumps(data) + "\n")
