"""Imports go one way: a module imports its own layer and the layers below it, nothing else.

:data:`LAYERS` is the floor plan of the package, lowest layer first. Every import inside
``src/cranfield`` counts: at module level, inside a function, and under ``if TYPE_CHECKING:``
(a type-only import still ties two modules together for whoever reads or moves them). The
test reads the source with :mod:`ast` and imports nothing of cranfield.

The rules, one test each:

1. **Layers.** A module imports modules of its own layer and of lower layers only. The
   package ``cranfield/__init__.py`` is the front door: it may import anything (lazily), and
   nothing inside the package imports it.
2. **Private names stay home.** ``from cranfield.<package>.<module> import _name`` only
   inside ``cranfield.<package>`` (a private name of a top-level module such as
   ``cranfield.curves`` only inside that module).
3. **Private modules stay home.** ``cranfield.measures._spec`` only from inside ``cranfield.measures``;
   ``cranfield._lazy`` from anywhere inside ``cranfield``.
4. **No cycles** between modules, except through the back edges of
   :data:`ACCEPTED_BACK_EDGES`, each kept on purpose with its reason.

Imports that break a rule today and are being removed are listed in :data:`TRANSITIONAL`
with who removes them. An entry whose import no longer exists fails the test, so the entry
goes in the same change as its import.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

SRC: Final = Path(__file__).resolve().parents[1] / "src"
FRONT_DOOR: Final = "cranfield"

# The floor plan, lowest first: (layer, its modules and packages, what it holds).
LAYERS: Final[tuple[tuple[str, tuple[str, ...], str], ...]] = (
    (
        "foundation",
        (
            "cranfield.errors",
            "cranfield._types",
            "cranfield._validate",
            "cranfield._lazy",
            "cranfield._version",
            "cranfield._progress",
            "cranfield._deprecation",
        ),
        "the error classes, the option Literals, option checks, names imported on first use, "
        "the version, the progress bar of long work, the deprecated aliases of renamed names",
    ),
    ("data", ("cranfield.data",), "Qrels, Run, and THE ranking rules (sort, ties, duplicates)"),
    ("io", ("cranfield.io",), "every reader and writer"),
    ("kernels", ("cranfield.kernels",), "the measures' arithmetic: numpy over all queries"),
    ("measures", ("cranfield.measures",), "one declaration per measure, the name grammar"),
    (
        "evaluation",
        ("cranfield.evaluation", "cranfield.curves"),
        "qrels, measures and options bound once; scores of one run or many; curves",
    ),
    ("stats", ("cranfield.stats",), "significance tests and effects; a Comparison and its data"),
    ("logs", ("cranfield.logs",), "interaction logs: click metrics, click models, online tests"),
    (
        "judging",
        ("cranfield.judging",),
        "judging on a budget: strategies, simulation, sampling, estimators, pseudo-qrels",
    ),
    ("report", ("cranfield.report", "cranfield.plot"), "presentation: text, LaTeX, SVG, HTML"),
    ("lab", ("cranfield.lab",), "experiments: systems x collection -> runs, efficiency, effect"),
    (
        "fusion",
        ("cranfield.fusion",),
        "runs fused into one; a method's parameters tuned on folds, scored on held-out queries",
    ),
    (
        "judges",
        ("cranfield.judges",),
        "many judges: crowd labels combined, a model judge asked, judges assessed",
    ),
    ("compat", ("cranfield.compat",), "trec_eval's own command line and output"),
    (
        "workbench",
        ("cranfield.workbench",),
        "the judging workbench: a project's database, the web application, the export",
    ),
    ("cli", ("cranfield.cli",), "the command line: parse, call, render"),
)

# Back edges that close a cycle on purpose. Left out of rule 4 only: they obey the others.
ACCEPTED_BACK_EDGES: Final[dict[tuple[str, str], str]] = {
    ("cranfield.measures._spec", "cranfield.measures.families"): (
        "registry: the family files declare their specs with _spec's register(), and the "
        "first lookup imports families so that every spec is registered"
    ),
}

# Imports that break a rule today, and who removes them: (importer, imported module) for
# rules 1, 3 and 4, (importer, "module:_name") for rule 2. Delete an entry in the change
# that removes its import.
TRANSITIONAL: Final[dict[tuple[str, str], str]] = {}
# Not listed because it breaks no rule here, though it puts a concept in the wrong home:
# evaluation.aggregate imports kernels.binary.MIN_GEO_MEAN (an aggregation constant).


# --------------------------------------------------------------------------- the imports


@dataclass(frozen=True)
class Import:
    """One import of a module (``name=None``) or of one name from a module."""

    importer: str
    target: str
    name: str | None
    path: Path
    line: int

    @property
    def edge(self) -> tuple[str, str]:
        """``(importer, imported module)``: how the lists name it for rules 1, 3 and 4."""
        return (self.importer, self.target)

    @property
    def named(self) -> tuple[str, str]:
        """``(importer, "module:name")``: how the lists name it for rule 2."""
        return (self.importer, f"{self.target}:{self.name}")

    def at(self, why: str) -> str:
        """``file:line: why``, the line of a failure message."""
        return f"{self.path.relative_to(SRC.parent)}:{self.line}: {why}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: Final[dict[str, Path]] = {
    _module_name(p): p for p in sorted((SRC / "cranfield").rglob("*.py"))
}


def _nearest_module(dotted: str) -> str:
    parts = dotted.split(".")
    while parts and ".".join(parts) not in MODULES:
        parts.pop()
    if not parts:
        raise AssertionError(f"{dotted!r} is no module of cranfield")
    return ".".join(parts)


def imports_of(module: str, path: Path, source: str) -> Iterator[Import]:
    """Every import of a cranfield module in ``source``, wherever it stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source, str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == FRONT_DOOR:
                    yield Import(module, _nearest_module(alias.name), None, path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            if origin.split(".")[0] != FRONT_DOOR:
                continue
            for alias in node.names:
                if f"{origin}.{alias.name}" in MODULES:  # from a package import a module
                    yield Import(module, f"{origin}.{alias.name}", None, path, node.lineno)
                else:
                    name = None if alias.name == "*" else alias.name
                    yield Import(module, _nearest_module(origin), name, path, node.lineno)


IMPORTS: Final[list[Import]] = [
    imp
    for module, path in MODULES.items()
    for imp in imports_of(module, path, path.read_text(encoding="utf-8"))
]


# --------------------------------------------------------------------------- the rules


def _layer(module: str) -> int:
    """Index of ``module``'s layer in :data:`LAYERS`; the front door is above them all."""
    if module == FRONT_DOOR:
        return len(LAYERS)
    for rank, (_, members, _) in enumerate(LAYERS):
        if any(module == m or module.startswith(m + ".") for m in members):
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")


def _layer_name(module: str) -> str:
    rank = _layer(module)
    return "the front door" if rank == len(LAYERS) else LAYERS[rank][0]


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def layer_breaks(imports: Iterable[Import]) -> Iterator[tuple[Import, str]]:
    """Rule 1: imports of a higher layer (or of the front door)."""
    for imp in imports:
        if imp.importer != FRONT_DOOR and _layer(imp.target) > _layer(imp.importer):
            yield (
                imp,
                (
                    f"{imp.importer} ({_layer_name(imp.importer)}) imports {imp.target} "
                    f"({_layer_name(imp.target)}), a higher layer"
                ),
            )


def private_name_breaks(imports: Iterable[Import]) -> Iterator[tuple[Import, str]]:
    """Rule 2: ``_name`` imported from outside the package (or top-level module) it is in."""
    for imp in imports:
        home = ".".join(imp.target.split(".")[:2])
        if (
            imp.name is not None
            and _private(imp.name)
            and ".".join(imp.importer.split(".")[:2]) != home
        ):
            yield (
                imp,
                (
                    f"{imp.importer} imports the private name {imp.name} of {imp.target} "
                    f"from outside {home}"
                ),
            )


def private_module_breaks(imports: Iterable[Import]) -> Iterator[tuple[Import, str]]:
    """Rule 3: ``package._module`` imported from outside ``package``."""
    for imp in imports:
        parts = imp.target.split(".")
        for i, part in enumerate(parts):
            home = ".".join(parts[:i])
            if _private(part) and not (imp.importer == home or imp.importer.startswith(home + ".")):
                yield (
                    imp,
                    (f"{imp.importer} imports the private module {imp.target} from outside {home}"),
                )
                break


def cycles(imports: Iterable[Import]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, without recursion)."""
    graph: dict[str, set[str]] = {}
    for imp in imports:
        if imp.importer != imp.target:
            graph.setdefault(imp.importer, set()).add(imp.target)
            graph.setdefault(imp.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = stack[stack.index(node) :]
                    del stack[stack.index(node) :]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in stack:
                low[node] = min(low[node], index[child])
    return sorted(found)


def cycle_breaks(imports: Iterable[Import]) -> Iterator[tuple[Import, str]]:
    """Rule 4: every import inside a cycle, named with the cycle."""
    edges = list(imports)
    for component in cycles(edges):
        members = set(component)
        for imp in edges:
            if imp.importer in members and imp.target in members and imp.importer != imp.target:
                yield (
                    imp,
                    f"{imp.importer} imports {imp.target}, in the cycle {' <-> '.join(component)}",
                )


Rule = Callable[[Iterable[Import]], Iterator[tuple[Import, str]]]
RULES: Final[tuple[Rule, ...]] = (
    layer_breaks,
    private_name_breaks,
    private_module_breaks,
    cycle_breaks,
)


def _cycle_candidates() -> list[Import]:
    return [imp for imp in IMPORTS if imp.edge not in ACCEPTED_BACK_EDGES]


def _listed(imp: Import, rule: Rule) -> bool:
    return (imp.named if rule is private_name_breaks else imp.edge) in TRANSITIONAL


def _unlisted(rule: Rule, imports: list[Import]) -> str:
    lines = sorted({imp.at(why) for imp, why in rule(imports) if not _listed(imp, rule)})
    return "\n".join(lines)


# --------------------------------------------------------------------------- the tests


def test_every_module_has_a_layer() -> None:
    unplaced = []
    for module in MODULES:
        try:
            _layer(module)
        except AssertionError as error:
            unplaced.append(str(error))
    assert not unplaced, "\n".join(unplaced)


def test_imports_go_down_the_layers() -> None:
    problems = _unlisted(layer_breaks, IMPORTS)
    assert not problems, f"imports of a higher layer:\n{problems}"


def test_no_private_name_is_imported_from_another_package() -> None:
    problems = _unlisted(private_name_breaks, IMPORTS)
    assert not problems, f"private names imported from another package:\n{problems}"


def test_no_private_module_is_imported_from_another_package() -> None:
    problems = _unlisted(private_module_breaks, IMPORTS)
    assert not problems, f"private modules imported from another package:\n{problems}"


def test_no_import_cycles() -> None:
    edges = [imp for imp in _cycle_candidates() if imp.edge not in TRANSITIONAL]
    problems = _unlisted(cycle_breaks, edges)
    assert not problems, f"imports in a cycle:\n{problems}"


def test_every_listed_exception_still_exists() -> None:
    present = {imp.edge for imp in IMPORTS} | {imp.named for imp in IMPORTS}
    gone = [
        f"{a} -> {b}" for a, b in [*ACCEPTED_BACK_EDGES, *TRANSITIONAL] if (a, b) not in present
    ]
    assert not gone, "listed imports that no longer exist, delete them:\n" + "\n".join(gone)


def test_every_transitional_entry_still_breaks_a_rule() -> None:
    breaking = {
        imp.named if rule is private_name_breaks else imp.edge
        for rule in RULES
        for imp, _ in rule(_cycle_candidates() if rule is cycle_breaks else IMPORTS)
    }
    needless = [f"{a} -> {b}" for a, b in TRANSITIONAL if (a, b) not in breaking]
    assert not needless, "TRANSITIONAL entries that break no rule:\n" + "\n".join(needless)


# --------------------------------------------------------------------------- the rules work

_PLANTED = SRC / "cranfield" / "data" / "qrels.py"


@pytest.mark.parametrize(
    ("importer", "source", "expected"),
    [
        (
            "cranfield.data.qrels",
            "def f():\n    from cranfield.cli.main import run",
            "qrels.py:2: cranfield.data.qrels (data) imports cranfield.cli.main (cli), "
            "a higher layer",
        ),
        (
            "cranfield.data.qrels",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..stats import compare",
            "qrels.py:3: cranfield.data.qrels (data) imports cranfield.stats (stats), "
            "a higher layer",
        ),
        (
            "cranfield.data.qrels",
            "import cranfield",
            "qrels.py:1: cranfield.data.qrels (data) imports cranfield (the front door), "
            "a higher layer",
        ),
        (
            "cranfield.cli.main",
            "from cranfield.io.trec import read_run, _BOM",
            "qrels.py:1: cranfield.cli.main imports the private name _BOM of cranfield.io.trec "
            "from outside cranfield.io",
        ),
        (
            "cranfield.cli.main",
            "from cranfield.curves import _private",
            "qrels.py:1: cranfield.cli.main imports the private name _private of "
            "cranfield.curves from outside cranfield.curves",
        ),
        (
            "cranfield.cli.main",
            "from cranfield.measures import _spec",
            "qrels.py:1: cranfield.cli.main imports the private module cranfield.measures._spec "
            "from outside cranfield.measures",
        ),
    ],
)
def test_the_rules_catch_a_planted_import(importer: str, source: str, expected: str) -> None:
    planted = list(imports_of(importer, _PLANTED, source))
    found = [imp.at(why) for rule in RULES for imp, why in rule(planted)]
    assert found == [f"src/cranfield/data/{expected}"]


def test_the_rules_allow_what_they_should() -> None:
    source = (
        "import cranfield.errors\n"
        "from cranfield._lazy import lazy_names\n"
        "from cranfield.data.run import _private_but_same_package\n"
        "from cranfield.data import _keys_if_it_existed as keys\n"
        "from . import run\n"
    )
    planted = list(imports_of("cranfield.data.qrels", _PLANTED, source))
    assert [i.target for i in planted] == [
        "cranfield.errors",
        "cranfield._lazy",
        "cranfield.data.run",
        "cranfield.data",
        "cranfield.data.run",
    ]
    for rule in RULES:
        assert list(rule(planted)) == []


def test_a_planted_cycle_is_found() -> None:
    def edge(a: str, b: str) -> Import:
        return Import(a, b, None, _PLANTED, 1)

    edges = [edge("a", "b"), edge("b", "c"), edge("c", "a"), edge("c", "d"), edge("d", "d")]
    assert cycles(edges) == [["a", "b", "c"]]
    assert len(list(cycle_breaks(edges))) == 3
