"""THE way a command writes a figure: the suffix picks the format, matplotlib is checked
before anything is evaluated, an input is never overwritten, and the file is written whole
(:mod:`cranfield.io.sink`) or not at all. Used by ``plot`` (``-o``), ``correlate`` and
``power`` (``--plot``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

from cranfield.cli.parser import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.figure import Figure

__all__ = ["FIGURE_FORMATS", "check_figure", "save_figure"]

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
