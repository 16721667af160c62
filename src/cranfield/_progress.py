"""THE progress bar of long work: a rich bar on standard error that appears only once a task
has taken more than a second, and only where standard error is a terminal (unless asked).

Used by the lab (indexing, searching, timing) and by evaluations of many runs or of a stream
(:meth:`Evaluator.each <cranfield.evaluation.evaluator.Evaluator.each>`): work done of the
total, the rate, the time spent and the time left.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from rich.progress import Progress, Task

DELAY: Final = 1.0  # seconds before a bar is shown


def progress_enabled(progress: bool | None) -> bool:
    """``progress`` as given, or (``None``) whether standard error is a terminal."""
    if progress is None:
        return sys.stderr.isatty()
    return progress


class Tracker:
    """Counts work and shows a transient rich bar on standard error after :data:`DELAY`.

    Advancing is cheap (a counter and a clock read) until the bar is shown, so trackers can
    wrap timed loops; callers still advance *outside* the timed region.
    """

    def __init__(self, description: str, total: int | None, *, enabled: bool) -> None:
        self.description = description
        self.total = total
        self.enabled = enabled
        self.done = 0
        self._start = time.monotonic()
        self._bar: Progress | None = None
        self._task = 0

    def __enter__(self) -> Tracker:
        self._start = time.monotonic()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, amount: int = 1) -> None:
        """Record ``amount`` units of work; shows the bar once the task is older than a second."""
        self.done += amount
        if not self.enabled:
            return
        if self._bar is None:
            if time.monotonic() - self._start < DELAY:
                return
            self._bar, self._task = self._open()
        self._bar.update(self._task, completed=self.done)  # type: ignore[arg-type]

    def _open(self) -> tuple[Progress, int]:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        class Rate(ProgressColumn):  # units a second, once rich has measured it
            def render(self, task: Task) -> Text:
                speed = task.speed
                return Text("" if speed is None else f"{speed:,.1f}/s")

        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            Rate(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        bar.start()
        return bar, int(bar.add_task(self.description, total=self.total))

    def close(self) -> None:
        """Remove the bar (if shown)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
