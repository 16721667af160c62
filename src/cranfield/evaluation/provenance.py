"""Where a result comes from: :class:`Provenance`, stated with every result.

A result states cranfield's version, each input file with the SHA-256 of its bytes (or
``"<in memory>"`` for an object built in the program; a Parquet dataset by its folder or
glob, unhashed), the canonical names of the measures, the evaluation options and the rule
that orders tied scores, so that a number can be traced to exactly what produced it and
compared with a number computed elsewhere.

An input read for the evaluation is hashed from the bytes its reader read, as it read them
(:class:`~cranfield.io.source.Digest`): the file is never opened again to be hashed, so a pipe
(``<(zcat run.gz)``, a named pipe) is named by what was evaluated, and so is a file changed
since. A file this process did not read whole is hashed when a provenance is asked for
(:meth:`Results.provenance <cranfield.evaluation.results.Results.provenance>`,
:meth:`ScoreTable.provenance <cranfield.evaluation.results.ScoreTable.provenance>`) if it is
a regular file; a pipe that was not read here is not hashed (it cannot be read again).

Qrels given as an ir_datasets id (:mod:`cranfield.io.irds`) are named by the id, with the
file of ir_datasets' local cache they were read from and that file's SHA-256.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cranfield._version import __version__
from cranfield.io.source import source_path

if TYPE_CHECKING:
    from cranfield.evaluation.options import EvalOptions
    from cranfield.measures import Measure

__all__ = ["IN_MEMORY", "TIE_RULE", "InputFile", "Provenance", "file_sha256", "source_path"]

IN_MEMORY = "<in memory>"
"""The source of an input that is not a file (a ``Run``, ``Qrels``, DataFrame or dict)."""

STDIN = "<stdin>"
"""The source of an input read from standard input (``-``): its bytes are not kept."""

TIE_RULE = (
    "Documents are ranked by score descending; equal scores by document id descending, "
    "compared bytewise (trec_eval's rule); the rank column of a run is ignored."
)
"""How tied scores are ordered (:mod:`cranfield.data.ranking`), in one sentence."""

_CHUNK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes as stored (a compressed file: of its compressed bytes).

    Parameters
    ----------
    path:
        The file.

    Returns
    -------
    str
        64 lowercase hexadecimal digits.

    Raises
    ------
    OSError
        The file cannot be read.
    """
    import os

    from cranfield.io.source import Digest

    digest = Digest()  # remembered: this version of the file is not read again to be hashed
    with open(path, "rb") as f:
        digest.opened(path, os.fstat(f.fileno()))
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    digest.done()
    return cast("str", digest.hexdigest)


@dataclass(frozen=True)
class InputFile:
    """One input of a result: where it was read from and the SHA-256 of its bytes.

    Attributes
    ----------
    role:
        What the input is: ``"qrels"``, ``"run"`` (``"run:NAME"`` in a table of several
        runs), ``"known"``, ``"intents"``, ``"collection"``, ``"config"``.
    source:
        The path as given, :data:`IN_MEMORY` or :data:`STDIN`.
    sha256:
        SHA-256 of the file's bytes; ``None`` when there is no file to hash, for a Parquet
        dataset (a folder or glob of files, named by its path and not hashed), or for a pipe
        this process did not read whole.
    file:
        For qrels given as an ir_datasets id (``source``), the file of ir_datasets' local
        cache they were read from (``sha256`` is its hash); ``None`` otherwise.
    """

    role: str
    source: str
    sha256: str | None
    file: str | None = None

    @classmethod
    def of(cls, role: str, path: str | Path | None) -> InputFile:
        """Describe one input: ``path`` is hashed; ``None`` means an in-memory object."""
        if path is None:
            return cls(role, IN_MEMORY, None)
        if str(path) == "-":
            return cls(role, STDIN, None)
        from cranfield.io.irds import cached_file

        cached = cached_file(str(path))  # an ir_datasets id whose qrels were read here
        if cached is not None:
            return cls(role, str(path), cached[1], cached[0])
        from cranfield.io.parquet_dataset import is_dataset
        from cranfield.io.source import digest_of, regular_file

        if is_dataset(path):  # its files may hold 10^9 rows: named, not read again
            return cls(role, str(path), None)
        known = digest_of(path)  # hashed as it was read for the evaluation
        if known is None and regular_file(path):
            known = file_sha256(path)
        return cls(role, str(path), known)

    def to_dict(self) -> dict[str, str | None]:
        """``{"source": ..., "sha256": ...}`` (and ``"file"`` when there is one)."""
        out = {"source": self.source, "sha256": self.sha256}
        return out if self.file is None else {**out, "file": self.file}


@dataclass(frozen=True)
class Provenance:
    """What produced a result: version, inputs with their hashes, measures, options, ties.

    Attributes
    ----------
    version:
        cranfield's version.
    inputs:
        Every input, in order (qrels first).
    measures:
        Canonical measure names, in order.
    options:
        The evaluation options (:meth:`EvalOptions.to_dict
        <cranfield.evaluation.options.EvalOptions.to_dict>`); empty when unknown.
    tie_rule:
        How tied scores are ordered (:data:`TIE_RULE`).

    Examples
    --------
    >>> p = Provenance.of({"qrels": None}, [], None)
    >>> p.to_dict()["inputs"]
    {'qrels': {'source': '<in memory>', 'sha256': None}}
    """

    version: str
    inputs: tuple[InputFile, ...]
    measures: tuple[str, ...]
    options: Mapping[str, Any]
    tie_rule: str = TIE_RULE

    @classmethod
    def of(
        cls,
        inputs: Mapping[str, str | Path | None],
        measures: Iterable[Measure | str],
        options: EvalOptions | None,
    ) -> Provenance:
        """Hash every file of ``inputs`` (``{role: path or None}``) and state the rest."""
        return cls(
            version=__version__,
            inputs=tuple(InputFile.of(role, path) for role, path in inputs.items()),
            measures=tuple(str(m) for m in measures),
            options=options.to_dict() if options is not None else {},
        )

    def input(self, role: str) -> InputFile:
        """The input of ``role``.

        Raises
        ------
        KeyError
            No input has that role.
        """
        for item in self.inputs:
            if item.role == role:
                return item
        raise KeyError(f"no input {role!r}; inputs: {', '.join(i.role for i in self.inputs)}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as written to JSON."""
        return {
            "cranfield": self.version,
            "inputs": {item.role: item.to_dict() for item in self.inputs},
            "measures": list(self.measures),
            "options": dict(self.options),
            "tie_rule": self.tie_rule,
        }
