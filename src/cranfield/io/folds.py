"""The fold file of ``cranfield lab folds``: one fold a line, ``NUMBER<TAB>query query ...``.

:func:`read_folds` reads it back (``cranfield fuse --fold-file``), so that a tuning uses the
folds another experiment used. Fold numbers are 0, 1, ... in order; a query appears in one
fold only; blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cranfield.errors import InputError
from cranfield.io.source import read_bytes, source_name

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["read_folds"]


def read_folds(source: str | Path) -> list[tuple[str, ...]]:
    """The folds of a fold file, in order.

    A line is one fold: its query ids separated by blanks, after its number and a tab
    (``0<TAB>q1 q4 q7``: what ``cranfield lab folds`` writes) or alone. A number, where
    there is one, is the fold's place (0, 1, ... in order). Blank lines and lines starting
    with ``#`` are skipped. Read for ``cranfield fuse --fold-file`` and ``cranfield lab cv
    --fold-file``: one reader, one rule.

    Raises
    ------
    cranfield.errors.InputError
        Text that is not UTF-8, a fold number out of order, a fold without queries, a query
        in two folds, or fewer than 2 folds; the message names the file and the line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "folds.tsv"
    >>> _ = path.write_text("0\\tq1 q3\\n1\\tq2\\n")
    >>> read_folds(path)
    [('q1', 'q3'), ('q2',)]
    """
    label = source_name(source)
    data = read_bytes(source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(label, data[: exc.start].count(b"\n") + 1, "is not UTF-8 text") from None
    folds: list[tuple[str, ...]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fold, tab, rest = line.partition("\t")
        if tab and fold.strip() != str(len(folds)):
            raise InputError(
                label, number, f"expected the fold number {len(folds)}, a tab and its queries", line
            )
        queries = tuple((rest if tab else line).split())
        if not queries:
            raise InputError(label, number, "a fold without queries", line)
        for q in queries:
            if q in seen:
                raise InputError(
                    label, number, f"puts query {q!r} in a second fold (line {seen[q]})"
                )
            seen[q] = number
        folds.append(queries)
    if len(folds) < 2:
        raise InputError(label, None, f"a fold file needs at least 2 folds, found {len(folds)}")
    return folds
