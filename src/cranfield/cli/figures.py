"""THE way a command writes a figure: the suffix picks the format, matplotlib is checked
before anything is evaluated, an input is never overwritten, and the file is written whole
(:mod:`cranfield.io.sink`) or not at all. Used by ``plot`` (``-o``), ``correlate`` and
``power`` (``--plot``). And the way a command writes an HTML page (``report``, ``logs
report``): :func:`write_page`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from cranfield.cli.parser import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from matplotlib.figure import Figure

__all__ = ["FIGURE_FORMATS", "check_figure", "save_figure", "write_page"]

FIGURE_FORMATS: Final = ("png", "svg", "pdf")


def check_figure(path: str, inputs: Sequence[str | None], *, label: str) -> None:
    """Refuse, before any work, a figure file ``path`` that cannot be written: a suffix other
    than .png/.svg/.pdf, matplotlib not installed, or one of the ``inputs``.

    ``label`` is how the message names the file (``the output``, ``--plot``).
    """
    from cranfield.io.sink import refuse_overwriting
    from cranfield.report.plots import require_matplotlib

    if Path(path).suffix.lower().lstrip(".") not in FIGURE_FORMATS:
        raise UsageError(1, f"{label} must end in .png, .svg or .pdf, got {path!r}.")
    require_matplotlib()
    option = label.removeprefix("--") if label.startswith("--") else "output"
    refuse_overwriting(path, [p for p in inputs if p is not None], option=option)


def save_figure(fig: Figure, path: str, *, dpi: float = 150.0) -> None:
    """Write ``fig`` to ``path`` in the format its suffix names, whole or not at all."""
    from cranfield.io.sink import replacing, writing

    with writing(path), replacing(path) as tmp:
        fig.savefig(tmp, format=Path(path).suffix.lower().lstrip("."), dpi=dpi)


def write_page(path: str, page: str, out: TextIO) -> None:
    """The HTML ``page`` on ``out`` (``path`` ``-``) or written whole to ``path``, its size
    said on ``out``."""
    from cranfield.io.sink import write_text, writing

    if path == "-":
        out.write(page)
        return
    with writing(path):
        write_text(path, page)
    out.write(f"wrote {path} ({len(page.encode('utf-8')) / 1024:,.0f} KiB)\n")
