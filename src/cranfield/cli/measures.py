"""``cranfield measures [NAME ...]``: every measure (or the ones named) with its definition.

Exit codes: 0 success, 1 unknown measure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from cranfield.measures import MeasureSpec, PeerName

PROG: Final = "cranfield measures"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield measures`` with ``argv`` (the arguments after ``measures``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(prog=PROG, description="List every measure with its definition.", out=out, err=err)
    p.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="show only these measures (any name cranfield reads)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    for spec in _specs(args.names):
        out.write(_describe(spec))
    return 0


def _specs(names: list[str]) -> list[MeasureSpec]:
    """The specs of ``names`` (a name or alias, else any name the grammar reads), or all."""
    from cranfield.measures import all_specs, parse_measure

    specs = all_specs()
    if not names:
        return specs
    by_name = {key: spec for spec in specs for key in (spec.name, *spec.aliases)}
    return [by_name[n] if n in by_name else parse_measure(n).spec for n in names]


_CUTOFFS: Final = {
    "cutoff": "@k optional",
    "cutoff_required": "@k required",
    "recall_required": "@recall-level required",
}
_AGGREGATES: Final = {
    "mean": "mean over queries",
    "sum": "sum over queries",
    "gmean": "geometric mean (clamped at 1e-5)",
}


def _describe(spec: MeasureSpec) -> str:
    lines = [spec.name + (f"  (also: {', '.join(spec.aliases)})" if spec.aliases else "")]
    lines.append(f"    {spec.summary}")
    lines.append(f"    formula: {spec.formula}")
    at = _CUTOFFS.get(spec.at)
    if at:
        lines.append(f"    cutoff: {at}")
    lines += [f"    param {p.name} (default {p.default!r}): {p.doc}" for p in spec.params]
    lines.append(f"    aggregate: {_AGGREGATES[spec.aggregate]}")
    if spec.trec:
        lines.append(f"    trec_eval: {', '.join(form.name for form in spec.trec)}")
    if spec.peers:
        lines.append(f"    other tools: {', '.join(_peer(p) for p in spec.peers)}")
    if spec.notes:
        lines.append(f"    notes: {spec.notes}")
    if spec.citation:
        lines.append(f"    cite: {spec.citation}")
    return "\n".join(lines) + "\n\n"


def _peer(peer: PeerName) -> str:
    """How ``peer`` is typed: ``ranx ndcg_burges``, ``ir_measures nDCG(dcg='exp-log2')``."""
    given = ", ".join(f"{k}={v!r}" for k, v in peer.given)
    return f"{peer.tool} {peer.name}" + (f"({given})" if given else "")
