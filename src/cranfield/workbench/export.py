"""The judgments of a project as qrels, with a provenance record.

Policies (stated in the provenance record and ``docs/judging-workbench.md``):

* a document's label is the organiser's adjudication when there is one, else the one label its
  assessors agree on; assessors who disagree on a document that is not adjudicated make the
  export fail (``on_conflict="error"``, the default), or the latest judgment wins
  (``"latest"``), or the highest label (``"max"``);
* skipped/unsure documents and pooled documents nobody judged are not written (they are
  unjudged, as in any pool); the provenance counts them;
* assessors are named ``assessor-1``, ``assessor-2`` ... in the order they were added, unless
  ``reveal`` (their log-in names).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from cranfield._version import __version__
from cranfield.errors import EvaluationError, OptionError

if TYPE_CHECKING:
    from cranfield._types import FileFormat
    from cranfield.workbench.project import Judgment, Project

__all__ = ["Conflict", "Export", "consensus", "export", "per_assessor"]

Conflict = Literal["error", "latest", "max"]
CONFLICTS: Final[tuple[str, ...]] = get_args(Conflict)


def _iso(t: float | None) -> str | None:
    return None if t is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def consensus(
    project: Project, *, on_conflict: Conflict = "error"
) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """``({query: {doc: label}}, counts)``: the one label of each judged document by the
    module's policy, and how many documents were ``agreed``, ``adjudicated``, ``resolved`` (by
    ``on_conflict``), ``skipped`` (only skips) and ``unjudged``.

    Raises
    ------
    EvaluationError
        With ``on_conflict="error"``, documents the assessors label differently that the
        organiser has not adjudicated.
    """
    if on_conflict not in CONFLICTS:
        raise OptionError("on_conflict", " or ".join(CONFLICTS), str(on_conflict))
    settled = project.adjudications()
    labels: dict[tuple[str, str], list[Judgment]] = {}
    for j in project.judgments():
        labels.setdefault((j.query_id, j.doc_id), []).append(j)
    qrels: dict[str, dict[str, int]] = {}
    counts = {"agreed": 0, "adjudicated": 0, "resolved": 0, "skipped": 0, "unjudged": 0}
    conflicts: list[tuple[str, str]] = []
    for key in sorted(set(labels) | set(settled)):
        given = [j for j in labels.get(key, []) if j.label is not None]
        if key in settled:
            label, kind = settled[key], "adjudicated"
        elif not given:
            counts["skipped"] += 1
            continue
        elif len({j.label for j in given}) == 1:
            label, kind = int(given[0].label or 0), "agreed"
        elif on_conflict == "error":
            conflicts.append(key)
            continue
        elif on_conflict == "latest":
            label, kind = int(max(given, key=lambda j: j.judged_at).label or 0), "resolved"
        else:
            label, kind = max(int(j.label or 0) for j in given), "resolved"
        counts[kind] += 1
        qrels.setdefault(key[0], {})[key[1]] = label
    if conflicts:
        q, d = conflicts[0]
        many = f"{len(conflicts)} documents are" if len(conflicts) > 1 else "1 document is"
        said = (
            f"{many} labelled differently by their assessors and not adjudicated (the first: "
            f"topic {q}, document {d}); adjudicate on the organiser's page or choose another "
        )
        raise EvaluationError(said + "on_conflict.", command_line=said + "--on-conflict.")
    pooled = sum(len(docs) for docs in project.order().values())
    counts["unjudged"] = pooled - len(set(labels) | set(settled))
    return qrels, counts


def per_assessor(project: Project, *, reveal: bool = False) -> dict[str, dict[str, dict[str, int]]]:
    """``{assessor: {query: {doc: label}}}``: each assessor's own labels (skips left out),
    assessors named as the module says; one without a label is left out."""
    names = _names(project, reveal=reveal)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for j in project.judgments():
        if j.label is not None:
            out.setdefault(names[j.assessor_id], {}).setdefault(j.query_id, {})[j.doc_id] = j.label
    return {name: out[name] for name in names.values() if name in out}


def _names(project: Project, *, reveal: bool) -> dict[int, str]:
    return {
        a.id: a.name if reveal else f"assessor-{i}"
        for i, a in enumerate(project.assessors(), start=1)
    }


@dataclass(frozen=True)
class Export:
    """What :func:`export` wrote: the qrels file, the provenance file, the per-assessor files,
    and the provenance record itself."""

    qrels: Path
    provenance: Path
    assessor_files: dict[str, Path]
    record: dict[str, Any]


def provenance(
    project: Project, counts: Mapping[str, int], *, on_conflict: Conflict, reveal: bool
) -> dict[str, Any]:
    """The provenance record of an export (JSON-ready)."""
    settings = project.settings()
    names = _names(project, reveal=reveal)
    roles = {a.id: a.role for a in project.assessors()}
    judgments = project.judgments()
    people: list[dict[str, Any]] = []
    for assessor_id, name in names.items():
        mine = [j for j in judgments if j.assessor_id == assessor_id]
        seconds = [j.seconds for j in mine if j.seconds is not None]
        people.append(
            {
                "assessor": name,
                "role": roles[assessor_id],
                "topics": sorted({j.query_id for j in mine}),
                "judgments": sum(j.label is not None for j in mine),
                "skipped": sum(j.label is None for j in mine),
                "seconds_median": statistics.median(seconds) if seconds else None,
                "seconds_total": sum(seconds),
                "first": _iso(min((j.judged_at for j in mine), default=None)),
                "last": _iso(max((j.judged_at for j in mine), default=None)),
            }
        )
    order = project.order()
    return {
        "cranfield": __version__,
        "exported_at": _iso(time.time()),
        "project": settings["name"],
        "created_at": _iso(settings["created_at"]),
        "database": project.engine.dialect.name,
        "strategy": settings["strategy"],
        "strategies_used": settings.get("strategies", []),
        "seed": settings["seed"],
        "scale": {str(g): w for g, w in settings["scale"]},
        "pool": {
            "depth": settings["pool_depth"],
            "runs": list(project.runs()),
            "topics": len(order),
            "documents": sum(len(d) for d in order.values()),
            "topics_file": settings["topics_file"],
            "documents_file": settings["documents_file"],
        },
        "policy": {
            "label": "adjudicated, else the assessors' one label",
            "on_conflict": on_conflict,
            "skipped": "not written (unjudged)",
            "unjudged": "not written",
            "assessors": "log-in names" if reveal else "anonymised in the order they were added",
        },
        "documents": dict(counts),
        "assessors": people,
    }


def export(
    project: Project,
    output: str | Path,
    *,
    format: FileFormat | None = None,
    on_conflict: Conflict = "error",
    assessors_to: str | Path | None = None,
    reveal: bool = False,
) -> Export:
    """Write the project's qrels to ``output`` (any qrels format cranfield writes, by
    ``format`` or the suffix: :func:`cranfield.io.load.save_qrels`) and the provenance record
    to ``OUTPUT.provenance.json``; with ``assessors_to``, each assessor's qrels to
    ``assessors_to/assessor-N.txt`` (for ``cranfield agree``).

    Raises
    ------
    EvaluationError
        Unadjudicated disagreements under ``on_conflict="error"``, or nothing judged yet.
    """
    from cranfield.io.load import save_qrels
    from cranfield.io.sink import write_text

    qrels, counts = consensus(project, on_conflict=on_conflict)
    if not qrels:
        raise EvaluationError(f"The project {project.label} has no judgments to export yet.")
    target = Path(output)
    save_qrels(qrels, target, format=format)
    files: dict[str, Path] = {}
    if assessors_to is not None:
        folder = Path(assessors_to)
        folder.mkdir(parents=True, exist_ok=True)
        for name, labels in per_assessor(project, reveal=reveal).items():
            files[name] = folder / f"{name}.txt"
            save_qrels(labels, files[name], format="trec")
    record = provenance(project, counts, on_conflict=on_conflict, reveal=reveal)
    record["qrels"] = target.name
    record["assessor_files"] = {name: str(path) for name, path in files.items()}
    record_path = target.with_name(target.name + ".provenance.json")
    write_text(record_path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return Export(target, record_path, files, record)
