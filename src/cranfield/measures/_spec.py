"""Measure declarations: :class:`MeasureSpec`, :class:`Param`, the registry. No maths here."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cranfield.errors import MeasureError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


ParamKind = Literal["int", "float", "bool", "gains", "levels"]
AtKind = Literal["none", "cutoff", "cutoff_required", "recall_required"]
Aggregate = Literal["mean", "sum", "gmean"]
TrecArgs = Literal[
    "none",
    "cutoffs",
    "recall_levels",
    "multipliers",
    "gains",
    "coefficients",
    "recall_list",
    "beta_squared",
]

TREC_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cutoffs (``P``, ``recall``, ``map_cut``, ``ndcg_cut`` ...)."""
TREC_RECALL_LEVELS: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""trec_eval's default recall levels (``iprec_at_recall``, ``11pt_avg``)."""
TREC_MULTIPLIERS: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""trec_eval's default multiples of R (``Rprec_mult``)."""

# The measure parameter each kind of trec_eval parameter list sets.
_TREC_ARG_PARAMS: dict[TrecArgs, tuple[str, ...]] = {
    "multipliers": ("mult",),
    "coefficients": ("a", "b", "c", "d"),
    "recall_list": ("levels",),
    "beta_squared": ("beta",),
}
# The @ values a measure needs for each kind of trec_eval parameter list that sets its @.
_TREC_ARG_AT: dict[TrecArgs, tuple[AtKind, ...]] = {
    "cutoffs": ("cutoff", "cutoff_required"),
    "recall_levels": ("recall_required",),
}
_CUT_ARGS: frozenset[TrecArgs] = frozenset({"cutoffs", "recall_levels", "multipliers"})


@dataclass(frozen=True)
class TrecForm:
    """One name under which trec_eval computes a measure, and what its parameters mean.

    A measure may have several (``AP`` is trec_eval's ``map`` and, cut at k, ``map_cut``);
    each trec_eval name belongs to one measure. This is the only place a trec_eval measure
    name is declared: trec_eval's table (:mod:`cranfield.measures.trec_names`), the parser,
    the trec_eval text labels and ``cranfield measures`` all read it.

    Attributes
    ----------
    name:
        trec_eval's name, as in ``-m name``.
    args:
        What trec_eval's parameter list (``-m name.params``) holds:

        * ``"none"``: nothing (a list given anyway is ignored but kept in the label, as
          trec_eval does);
        * ``"cutoffs"``: integer cutoffs k, one output ``name_k`` each: the measure's ``@k``;
        * ``"recall_levels"``: recall levels, one output ``name_0.50`` each: the measure's
          ``@level``;
        * ``"multipliers"``: multiples of R, one output ``name_0.20`` each: the measure's
          ``mult``;
        * ``"gains"``: ``level=gain`` pairs (and ``p=`` where the measure has ``p``), one
          output;
        * ``"coefficients"``: the four utility coefficients ``a,b,c,d``;
        * ``"recall_list"``: recall levels averaged into one output: the measure's ``levels``;
        * ``"beta_squared"``: set_F's parameter, the square of the measure's ``beta``.
    defaults:
        The cutoffs, levels or multipliers printed when ``-m name`` gives none (only for the
        three kinds with one output each).
    fixed:
        Measure parameters the name implies: ``set_relative_P`` is ``SetP(relative=True)``.
    c_float:
        trec_eval keeps the parameters in C ``float``; the ``trec-eval`` command rounds them
        to float32 for byte-identical output.
    summary:
        ``"aggregate"``: per query, and the measure's aggregate in the summary.
        ``"count"``: only a summary line, the number of queries (``num_q``).
    in_v9:
        trec_eval 9.0.x has the name too (``--compat 9`` refuses the others).
    """

    name: str
    args: TrecArgs = "none"
    defaults: tuple[float, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    c_float: bool = False
    summary: Literal["aggregate", "count"] = "aggregate"
    in_v9: bool = True

    def __post_init__(self) -> None:
        if (self.args in _CUT_ARGS) != bool(self.defaults):
            raise ValueError(
                f"trec_eval form {self.name!r}: default values go with cutoffs, recall levels "
                "or multipliers, and those need them."
            )

    @property
    def one_per_value(self) -> bool:
        """Whether each value of the parameter list gives its own output line."""
        return self.args in _CUT_ARGS

    @property
    def sets(self) -> tuple[str, ...]:
        """The measure parameters the trec_eval parameter list (or ``fixed``) sets."""
        return (*_TREC_ARG_PARAMS.get(self.args, ()), *(k for k, _ in self.fixed))


PeerTool = Literal["ranx", "ir_measures", "ndeval"]


@dataclass(frozen=True)
class PeerName:
    """One name another tool gives a measure, declared on the measure's spec (its only owner).

    Attributes
    ----------
    tool:
        ``"ranx"`` (``dcg_burges@10``, ``map@100-l2``), ``"ir_measures"`` (a parameter
        spelling such as ``nDCG(dcg='exp-log2')@10``) or ``"ndeval"`` (the column names of
        ndeval's output: ``ERR-IA@20``, ``MAP-IA``, ``strec@10``; its ``@k`` is this
        measure's ``@k``).
    name:
        The tool's name of the measure.
    given:
        ir_measures only: the tool's parameters that select this measure, removed from the
        name before its other parameters are checked (``(("dcg", "exp-log2"),)``).
    fixed:
        The measure parameters the name implies (``dcg_burges`` is ``DCGx(exp=True)``).
    at_differs:
        ranx only: why the tool's ``@k`` is not this measure's ``@k``; the name is then
        accepted only without ``@`` and ``name@k`` is refused with this reason.
    """

    tool: PeerTool
    name: str
    given: tuple[tuple[str, Any], ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    at_differs: str = ""


@dataclass(frozen=True)
class Param:
    """A keyword parameter of a measure, e.g. ``rel`` in ``P(rel=2)@5``."""

    name: str
    kind: ParamKind
    default: Any
    doc: str
    minimum: float | None = None
    exclusive_minimum: bool = False
    maximum: float | None = None

    def coerce(self, measure: str, value: Any) -> Any:  # noqa: C901, PLR0912 -- one branch per kind of measure parameter
        """Check and normalise a user value; raise :class:`MeasureError` if invalid."""
        where = f"The {self.name!r} parameter of {measure}"
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise MeasureError(f"{where} must be True or False, got {value!r}.")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise MeasureError(f"{where} must be an integer, got {value!r}.")
            self._check_range(where, value)
            return value
        if self.kind == "float":
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise MeasureError(f"{where} must be a finite number, got {value!r}.")
            self._check_range(where, float(value))
            return float(value)
        if self.kind == "gains":
            if not isinstance(value, Mapping) and not isinstance(value, tuple):
                raise MeasureError(
                    f"{where} must be a mapping of levels to gains like {{1: 1, 2: 3}}, got {value!r}."
                )
            pairs = tuple(value.items()) if isinstance(value, Mapping) else value
            if not all(isinstance(p, tuple) and len(p) == 2 for p in pairs):
                raise MeasureError(
                    f"{where} must be a mapping of levels to gains like {{1: 1, 2: 3}}, got {value!r}."
                )
            levels_seen = [lv for lv, _ in pairs]
            if len(set(levels_seen)) != len(levels_seen):
                raise MeasureError(f"{where} names a level twice: {value!r}.")
            out = []
            for level, gain in pairs:
                if isinstance(level, bool) or not isinstance(level, int):
                    raise MeasureError(
                        f"{where} must map integer levels to gains, got level {level!r}."
                    )
                if (
                    isinstance(gain, bool)
                    or not isinstance(gain, (int, float))
                    or not math.isfinite(gain)
                ):
                    raise MeasureError(
                        f"{where} must map levels to finite numbers, got {gain!r} for level {level}."
                    )
                out.append((level, float(gain)))
            return tuple(out)
        if self.kind == "levels":
            if not isinstance(value, tuple) or not value:
                raise MeasureError(
                    f"{where} must be a non-empty tuple of numbers like (0.0, 0.5, 1.0), got {value!r}."
                )
            levels = []
            for v in value:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                    raise MeasureError(f"{where} must hold numbers, got {v!r}.")
                if not 0 <= v <= 1:
                    raise MeasureError(f"{where} must hold recall levels in [0, 1], got {v!r}.")
                levels.append(float(v))
            return tuple(levels)
        raise AssertionError(self.kind)  # pragma: no cover

    def _check_range(self, where: str, value: float) -> None:
        if self.minimum is not None:
            low_ok = value > self.minimum if self.exclusive_minimum else value >= self.minimum
            if not low_ok:
                op = ">" if self.exclusive_minimum else ">="
                raise MeasureError(f"{where} must be {op} {_num(self.minimum)}, got {_num(value)}.")
        if self.maximum is not None and value > self.maximum:
            raise MeasureError(f"{where} must be <= {_num(self.maximum)}, got {_num(value)}.")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


TIES = (
    "Ties: tied scores are ordered by docno descending (trec_eval), so tied documents are "
    "ranked by id."
)
REL = Param(
    "rel",
    "int",
    None,
    "minimum judged level that counts as relevant (default: evaluate's relevance_level, 1; trec_eval -l)",
)
GAINS = Param(
    "gains",
    "gains",
    None,
    "map of judged level to gain, e.g. {1: 1, 2: 3}; unnamed levels gain their level",
)


@dataclass(frozen=True)
class MeasureSpec:
    """Everything about one measure: the single source of its name, parameters, maths and docs.

    Attributes
    ----------
    name:
        Canonical name (ir_measures style), e.g. ``"nDCG"``.
    kernel:
        ``kernel(ctx, **params) -> per-topic float64 array``. The ``@`` value is passed as
        ``cutoff`` (``at="cutoff"`` / ``"cutoff_required"``) or ``level`` (recall level).
    aggregate:
        How per-topic values combine: ``"mean"``, ``"sum"`` (counts) or ``"gmean"``
        (trec_eval's geometric mean: exp of the mean of ln(max(x, 1e-5))).
    trec:
        The names under which trec_eval computes the measure (:class:`TrecForm`), if any.
    zero_when_missing:
        The value is forced to 0 for a judged topic absent from the run (trec_eval ``-c``
        does this for num_ret, utility, unj and rbp_resid).
    tags:
        Properties checked by property tests: ``bounded`` (in [0, 1]), ``count``
        (integer-valued), ``perfect_is_one`` (1 for an ideal ranking of a topic with R > 0),
        ``set`` (a function of the contingency table: retrieving exactly the relevant
        documents is the best value).
    micro:
        ``micro(ctx, **params) -> float``: the measure computed once on contingency counts
        pooled over all topics (micro-averaging). Only set measures have it; a measure
        without it cannot be micro-averaged.
    needs:
        Extra inputs of :func:`cranfield.evaluate` the kernel reads: ``"known"`` (the relevant
        documents known to the user) or ``"intents"`` (subtopic judgments).
    peers:
        The names other tools give the measure (:class:`PeerName`): ranx's ``ndcg_burges``,
        ir_measures' ``nDCG(dcg='exp-log2')``.
    """

    name: str
    summary: str
    formula: str
    kernel: Callable[..., NDArray[np.float64]]
    params: tuple[Param, ...] = ()
    at: AtKind = "none"
    aggregate: Aggregate = "mean"
    aliases: tuple[str, ...] = ()
    trec: tuple[TrecForm, ...] = ()
    notes: str = ""
    citation: str = ""
    zero_when_missing: bool = False
    tags: frozenset[str] = field(default_factory=frozenset)
    micro: Callable[..., float] | None = None
    needs: frozenset[str] = field(default_factory=frozenset)
    peers: tuple[PeerName, ...] = ()

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def integer_valued(self) -> bool:
        return "count" in self.tags


_REGISTRY: dict[str, MeasureSpec] = {}
_ALIASES: dict[str, str] = {}
_PEERS: dict[tuple[PeerTool, str, tuple[tuple[str, Any], ...]], tuple[MeasureSpec, PeerName]] = {}


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add ``spec`` to the registry (names and aliases must be unique)."""
    for key in (spec.name, *spec.aliases):
        if key in _REGISTRY or key in _ALIASES:
            raise ValueError(f"measure name {key!r} is declared twice.")
    _check_trec_forms(spec)
    params = {p.name for p in spec.params}
    for peer in spec.peers:
        if (peer.tool, peer.name, peer.given) in _PEERS:
            raise ValueError(f"{peer.tool} name {peer.name!r} {peer.given} is declared twice.")
        unknown = [k for k, _ in peer.fixed if k not in params]
        if unknown:
            raise ValueError(f"{peer.tool} name {peer.name!r} sets unknown parameter(s) {unknown}.")
    _REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    for peer in spec.peers:
        _PEERS[peer.tool, peer.name, peer.given] = (spec, peer)
    return spec


def peer_names(tool: PeerTool) -> list[tuple[MeasureSpec, PeerName]]:
    """Every name ``tool`` gives a registered measure, with the measure that declares it."""
    _load_families()
    return [pair for (t, _, _), pair in _PEERS.items() if t == tool]


def lookup_folded(name: str) -> list[MeasureSpec]:
    """The specs whose name or an alias equals ``name`` ignoring case (one each, in order).

    More than one means the name is ambiguous: two measures differ only by case.
    """
    _load_families()
    folded = name.casefold()
    out: list[MeasureSpec] = []
    for key in (*_REGISTRY, *_ALIASES):
        if key.casefold() == folded:
            spec = lookup(key)
            if spec is not None and spec not in out:
                out.append(spec)
    return out


def _check_trec_forms(spec: MeasureSpec) -> None:
    """A trec_eval form must fit its measure: the parameters it sets exist, cutoffs go to @."""
    params = {p.name for p in spec.params}
    for form in spec.trec:
        unknown = [p for p in form.sets if p not in params]
        if unknown:
            raise ValueError(
                f"trec_eval form {form.name!r} of {spec.name} sets unknown parameter(s) {unknown}."
            )
        wanted = _TREC_ARG_AT.get(form.args)
        if wanted is not None and spec.at not in wanted:
            raise ValueError(f"trec_eval form {form.name!r}: {spec.name} takes no such @ value.")
        if form.args == "gains" and not params & {"gains", "p"}:
            raise ValueError(f"trec_eval form {form.name!r}: {spec.name} takes no gains and no p.")


def lookup(name: str) -> MeasureSpec | None:
    """The spec called ``name`` (canonical name or alias), or ``None``.

    The families are loaded first if the name is not registered yet: a ``Measure`` unpickled in
    a fresh process (a worker of :mod:`cranfield.evaluation.engines`) finds its spec.
    """
    if name not in _REGISTRY and name not in _ALIASES:
        _load_families()
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _ALIASES:
        return _REGISTRY[_ALIASES[name]]
    return None


def all_specs() -> list[MeasureSpec]:
    """Every registered spec, in declaration order."""
    _load_families()
    return list(_REGISTRY.values())


def known_names() -> list[str]:
    _load_families()
    return [*_REGISTRY, *_ALIASES]


def _load_families() -> None:
    from cranfield.measures import families  # noqa: F401 - registers on import


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters: a hashable value with a canonical string.

    ``str(m)`` is the canonical form ``Name(k=v,...)@at`` with parameters sorted by name
    and defaults omitted, and parses back to an equal measure.
    """

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    at: int | float | None = None

    @property
    def spec(self) -> MeasureSpec:
        spec = lookup(self.name)
        if spec is None:  # pragma: no cover - constructed only through make()
            raise MeasureError(f"Unknown measure {self.name!r}.")
        return spec

    def get(self, name: str) -> Any:
        for k, v in self.params:
            if k == name:
                return v
        return self.spec.param(name).default

    def kwargs(self) -> dict[str, Any]:
        spec = self.spec
        out = {p.name: self.get(p.name) for p in spec.params}
        if spec.at in ("cutoff", "cutoff_required"):
            out["cutoff"] = self.at
        elif spec.at == "recall_required":
            out["levels"] = (self.at,)
        return out

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.at is not None:
            text += f"@{_format_value(self.at)}"
        return text

    def __repr__(self) -> str:
        return f"Measure({str(self)!r})"


def _format_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, tuple) and v and isinstance(v[0], tuple):
        return "{" + ",".join(f"{lv}:{_num(g)}" for lv, g in v) + "}"
    if isinstance(v, tuple):
        return "(" + ",".join(_num(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def make(
    name: str, params: Mapping[str, Any] | None = None, at: int | float | None = None
) -> Measure:
    """Validate and build a :class:`Measure` (the only constructor the parser uses)."""
    _load_families()
    spec = lookup(name)
    if spec is None:
        raise MeasureError(f"Unknown measure {name!r}.")
    given = dict(params or {})
    clean: dict[str, Any] = {}
    for key, value in given.items():
        try:
            p = spec.param(key)
        except KeyError:
            names = ", ".join(p.name for p in spec.params) or "none"
            raise MeasureError(
                f"{spec.name} has no parameter {key!r} (its parameters: {names})."
            ) from None
        if value is None:
            continue
        v = p.coerce(spec.name, value)
        if v != p.default:
            clean[key] = v
    if spec.at == "none" and at is not None:
        raise MeasureError(f"{spec.name} takes no @ cutoff, got @{_format_value(at)}.")
    bad_cutoff = isinstance(at, bool) or not isinstance(at, int) or at < 1
    if spec.at in ("cutoff", "cutoff_required") and at is not None and bad_cutoff:
        raise MeasureError(f"The cutoff of {spec.name} must be an integer >= 1, got {at!r}.")
    if spec.at == "cutoff_required" and at is None:
        raise MeasureError(f"{spec.name} needs a cutoff, e.g. {spec.name}@10.")
    if spec.at == "recall_required":
        if at is None:
            raise MeasureError(f"{spec.name} needs a recall level, e.g. {spec.name}@0.5.")
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not 0 <= at <= 1:
            raise MeasureError(f"The recall level of {spec.name} must be in [0, 1], got {at!r}.")
        at = float(at)
    return Measure(spec.name, tuple(sorted(clean.items())), at)
