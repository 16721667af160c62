"""Other tools' objects read where cranfield reads judgments or a run: ranx's ``Qrels`` and
``Run``, so that code written for ranx switches without being rewritten.

A ranx object is told by the module of its class (nothing of ranx is imported here: it is
not a dependency) and read through its own ``to_dict()``, ``{query_id: {doc_id: value}}``,
which then passes every check a dict of dicts does; a ranx ``Run`` keeps its ``name``. A ranx
``Qrels`` where a run is expected, or a ``Run`` where judgments are, is refused in one
sentence rather than read as the other kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

__all__ = ["peer_mapping", "peer_name"]


def _ranx_kind(obj: object) -> str | None:
    """``"Qrels"`` or ``"Run"`` for a ranx object of that class, else ``None``."""
    cls = type(obj)
    if cls.__module__.partition(".")[0] != "ranx":
        return None
    return cls.__name__ if cls.__name__ in ("Qrels", "Run") else None


def peer_mapping(obj: object, kind: Literal["qrels", "run"]) -> Mapping[Any, Any] | None:
    """The ``{query_id: {doc_id: value}}`` of a peer tool's judgments or run, or ``None``
    when ``obj`` is no peer object.

    Raises
    ------
    TypeError
        A ranx ``Run`` given as judgments, or a ranx ``Qrels`` given as a run.
    """
    found = _ranx_kind(obj)
    if found is None:
        return None
    wanted = "Qrels" if kind == "qrels" else "Run"
    if found != wanted:
        what = "judgments (qrels) are" if kind == "qrels" else "a run is"
        raise TypeError(f"a ranx {found} was given where {what} expected; pass a ranx {wanted}")
    table = getattr(obj, "to_dict")()  # noqa: B009 -- ranx's method, not typed here
    if not isinstance(table, Mapping):
        raise TypeError(f"the ranx {found}'s to_dict() gave a {type(table).__name__}, not a dict")
    return table


def peer_name(obj: object) -> str | None:
    """The name a peer tool's run carries (a ranx ``Run``'s ``name``), or ``None``."""
    if _ranx_kind(obj) != "Run":
        return None
    name = getattr(obj, "name", None)
    return name if isinstance(name, str) and name else None
