"""Several runs, one rule: :class:`RunSet` loads and names a set of runs for every command.

The names follow the one run-naming rule of :mod:`cranfield.io.run_names`; a run can be
referred to by its name or by its path (:meth:`RunSet.find`), so
``cranfield compare -b runs/bm25.gz`` and ``-b bm25`` are the same baseline.

A folder given among the runs is either **a folder of runs** or **a Parquet dataset** (one
run, :mod:`cranfield.io.parquet_dataset`), by what the folder itself holds (names starting
with ``.`` or ``_`` skipped: hidden files, ``_SUCCESS``):

* Parquet files (``*.parquet``, ``*.pq``) or hive partitions (sub-folders ``key=value``), and
  no other file: a Parquet dataset;
* other files only: a folder of runs, each file a run in any format cranfield reads, in the
  order of their names, named by the rule (``runs/bm25.run`` is ``bm25``); its sub-folders are
  not looked into;
* both: an :class:`~cranfield.errors.InputError` naming a file of each kind;
* neither (empty, or sub-folders only): a Parquet dataset, whose reader says what it finds.

So ``cranfield evaluate qrels.txt runs/`` scores every run in ``runs/``, and ``RunSet.of(
["runs/"])`` holds them (:func:`expand_folders`; the rule is
:func:`~cranfield.io.parquet_dataset.folder_runs`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cranfield._types import RUN_NAMINGS, FileFormat, RunNaming
from cranfield.errors import InputError, OptionError
from cranfield.io.run_names import default_name, file_names, run_name
from cranfield.io.source import same_file

if TYPE_CHECKING:
    from cranfield.data.run import Run

__all__ = [
    "RunSet",
    "expand_folders",
    "run_name",
    "several_runs",
]  # run_name: re-exported, the rule itself


def _is_path(source: object) -> bool:
    return isinstance(source, (str, Path))


def expand_folders(runs: Sequence[Any]) -> list[Any]:
    """``runs`` with each folder of runs replaced by its run files, in place (see the module
    notes); every other run (a file, a Parquet dataset, a ``Run``, a frame) as it is.

    Raises
    ------
    InputError
        For a folder that holds both Parquet files and other files.
    """
    out: list[Any] = []
    for run in runs:
        if not (_is_path(run) and os.path.isdir(run)):
            out.append(run)
            continue
        from cranfield.io.parquet_dataset import folder_runs  # only for a folder given

        files = folder_runs(run)
        out.extend([run] if files is None else files)
    return out


def _distinct_tags(items: Sequence[Any], tags: Sequence[str]) -> None:
    """Runs named by their tags must carry one each, all different: what the files hold, so
    a data problem naming the file (an :class:`~cranfield.errors.InputError`), not a bad
    option."""
    seen: dict[str, str] = {}
    for i, (item, tag) in enumerate(zip(items, tags, strict=True)):
        label = str(item) if _is_path(item) else f"<run {i + 1}>"
        other = "name them by file (names='file') or by a list of names"
        cli = "name them by file (--names file, the default)"
        if not tag:
            raise InputError(
                label,
                None,
                f"has no run tag to name it by; {other}",
                command_line_problem=f"has no run tag to name it by; {cli}",
            )
        if tag in seen:
            said = f"has the run tag {tag!r}, as {seen[tag]} has"
            raise InputError(label, None, f"{said}; {other}", command_line_problem=f"{said}; {cli}")
        seen[tag] = label


@dataclass(frozen=True)
class RunSet:
    """Runs and their names, in the order given; loaded one at a time, when used.

    Build it with :meth:`of`. ``sources[i]`` is what the user gave (a path, a ``Run``, a
    DataFrame, a dict) and ``names[i]`` its name by the module's rule.

    Examples
    --------
    >>> runs = RunSet.of(["a/bm25.run", "b/bm25.run", "dense.txt.gz"])
    >>> runs.names
    ('a/bm25', 'b/bm25', 'dense')
    >>> runs.find("b/bm25.run"), runs.find("dense")
    (1, 2)
    """

    names: tuple[str, ...]
    sources: tuple[Any, ...]

    @classmethod
    def of(
        cls,
        runs: Any,
        names: RunNaming | Sequence[str] = "file",
    ) -> RunSet:
        """Name ``runs`` (one run, a list, or a ``{name: run}`` mapping) by the rule.

        Parameters
        ----------
        runs:
            A path, ``Run``, DataFrame; a list of them; or a mapping from name to run. A
            mapping is always read as named runs: put a single ``{query_id: {doc_id:
            score}}`` run in a list. A folder of run files stands for its files (see the
            module notes).
        names:
            ``"file"`` (default: the naming rule of the module), ``"tag"`` (the run tag of
            each run; runs are loaded to read it), or one name per run.

        Raises
        ------
        OptionError
            For an empty set, names that are not one per run, or two runs with one name.
        """
        if isinstance(runs, RunSet):
            return runs
        if isinstance(runs, Mapping):
            keys = [str(k) for k in runs]
            return cls._checked(tuple(keys), tuple(runs.values()))
        items = expand_folders(
            list(runs) if isinstance(runs, Sequence) and not _is_path(runs) else [runs]
        )
        if not items:
            raise OptionError("runs", "at least one run", runs)
        if isinstance(names, str):
            if names not in RUN_NAMINGS:
                raise OptionError(
                    "names", "one of " + ", ".join(map(repr, RUN_NAMINGS)) + " or a list", names
                )
            if names == "tag":
                from cranfield.io.load import load_run

                loaded = [load_run(r, name=default_name(r, i)) for i, r in enumerate(items)]
                _distinct_tags(items, [r.tag for r in loaded])
                return cls._checked(tuple(r.tag for r in loaded), tuple(loaded))
            return cls._checked(file_names(items), tuple(items))
        given = tuple(str(n) for n in names)
        if len(given) != len(items):
            raise OptionError("names", f"one name per run ({len(items)})", list(names))
        return cls._checked(given, tuple(items))

    @classmethod
    def _checked(cls, names: tuple[str, ...], sources: tuple[Any, ...]) -> RunSet:
        if not names:
            raise OptionError("runs", "at least one run", [])
        seen: set[str] = set()
        for name in names:
            if not name:
                raise OptionError("names", "non-empty names (pass names=[...])", name)
            if name in seen:
                raise OptionError(
                    "names", "a different name for each run (pass names=[...] or a dict)", name
                )
            seen.add(name)
        return cls(names, sources)

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(zip(self.names, self.sources, strict=True))

    def load(self, index: int, *, format: FileFormat | None = None) -> Run:
        """Run ``index``, loaded (if it is not a ``Run`` yet; a file in ``format``, detected
        when ``None``) and carrying its name."""
        from cranfield.data.run import Run
        from cranfield.io.load import load_run

        source, name = self.sources[index], self.names[index]
        run = load_run(source, name=name, format=format)
        if isinstance(run, Run) and run.name != name:
            run = Run(run.frame, name=name, tag=run.tag)
        return run

    def find(self, ref: str | int | Path) -> int:
        """The position of the run called ``ref``, or given by the path ``ref``.

        Raises
        ------
        OptionError
            When no run has that name or path.
        """
        if isinstance(ref, int) and not isinstance(ref, bool):
            if -len(self) <= ref < len(self):
                return ref % len(self)
        elif str(ref) in self.names:
            return self.names.index(str(ref))
        elif not isinstance(ref, bool):
            for i, source in enumerate(self.sources):
                if _is_path(source) and same_file(source, ref):
                    return i
        raise OptionError("baseline", "a run's name or path (" + ", ".join(self.names) + ")", ref)


def several_runs(runs: object, names: RunNaming | Sequence[str] = "file") -> RunSet:
    """``runs`` (a list, a ``{name: run}`` mapping or a :class:`RunSet`) named by
    :meth:`RunSet.of`, when they are at least two: what a comparison of runs takes.

    Raises
    ------
    OptionError
        For a single path or anything else that is not a list or a mapping of runs, or for
        fewer than two runs.
    """
    if isinstance(runs, (str, Path)) or not isinstance(runs, (Sequence, Mapping, RunSet)):
        raise OptionError("runs", "a list or a dict of at least 2 runs", type(runs).__name__)
    run_set = RunSet.of(runs, names)
    if len(run_set) < 2:
        raise OptionError("runs", "at least 2 runs", len(run_set))
    return run_set
