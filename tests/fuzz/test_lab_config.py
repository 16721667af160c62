"""The lab's TOML configuration (``lab/config.py`` :func:`load_config`): generated files
whose every key has a value of the documented kind or of another kind, and now and then a
broken byte, a cut or an unknown table. The reference is a plain reading of the module
notes (the tables, their keys and what each takes) over ``tomllib``'s reading of the text:
a configuration is loaded with exactly its values, or refused with one InputError naming
the configuration file; never another exception."""

from __future__ import annotations

import json
import math
import re
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import event, example, given
from hypothesis import strategies as st

from cranfield.lab.config import load_config
from cranfield.lab.experiment import Experiment
from tests.fuzz.checks import attempt, one_line_error
from tests.fuzz.conftest import fuzz
from tests.fuzz.mutations import rarely


@dataclass(frozen=True)
class Choice:
    """A value for a key, whether the documentation says the key takes it, and the file
    that is at fault when it is refused (``None``: the configuration file)."""

    value: Any
    takes: bool
    blame: str | None = None


def _pool(takes: list[Any], refuses: list[Any]) -> list[Choice]:
    return [Choice(v, True) for v in takes] + [Choice(v, False) for v in refuses]


# The experiment's keys (module notes; the topics of the collection below have titles only,
# so "title" is the one query field with text).
EXPERIMENT: dict[str, list[Choice]] = {
    "name": _pool(["my lab", "Cranfield 1400: \u00e9t\u00e9"], [3, ["x"], True]),
    "workdir": _pool(["out", "lab/out"], [3, "", ["out"]]),
    "measures": _pool([["AP", "P@10"], "nDCG@10", ["RR"]], [[], ["nope"], [3], 7, ""]),
    "k": _pool([10, 1, 1000], [0, -5, "10", True, 1.5]),
    "query_field": _pool(["title"], ["description", "nope", 3]),
    "baseline": _pool(["sysA"], ["other", 1]),
    "tests": _pool([["t-test"], "randomization", ["t-test", "wilcoxon"]], [["nope"], [], 3]),
    "correction": _pool(["holm", "bonferroni"], ["nope", 1]),
    "alpha": _pool([0.05, 0.5], [0, 1, 1.5, "0.05", math.nan, math.inf]),
    "seed": _pool([0, 42], ["x", 1.5]),
    "warmup": _pool([0, 20], [-1, "1", 1.5]),
    "repetitions": _pool([1, 3], [0, "x"]),
    "concurrency": _pool([[1, 2], [4]], [[], [0], "1", 3, [1.5]]),
    "throughput_passes": _pool([1, 2], [0, "1"]),
    "throughput_seconds": _pool([0.5, 0, 2], [-1, "1", math.nan]),
    "isolate": _pool([True, False], ["no", 0]),
    "efficiency": _pool([True, False], ["no", 1]),
    "colour": _pool([], ["red"]),  # not a key of the table
}
EVALUATION: dict[str, list[Choice]] = {
    "missing": _pool(["zero", "skip", "error"], ["nope", 1]),
    "relevance_level": _pool([1, 2, 0], ["1", 1.5]),
    "depth": _pool([100, 0], [-1, "x"]),
    "judged_only": _pool([True, False], ["yes"]),
    "float32": _pool([False], [1]),
    "compat": _pool([9, 10], [8, "9"]),
    "num_docs": _pool([1000, 0], [-1]),
    "epsilon": _pool([1e-5], [0, -1.0]),
    "aggregate": _pool(["mean", "median"], ["nope", 2]),
    "colour": _pool([], ["red"]),
}
CROSS_VALIDATION: dict[str, list[Choice]] = {
    # Read as given (checked when the cross-validation runs): any value of these keys.
    "measure": _pool(["AP", "x"], []),
    "n_folds": _pool([5, 2], []),
    "seed": _pool([0], []),
    "colour": _pool([], ["red"]),
}
SYSTEMS: list[Choice] = _pool(
    [
        {"name": "sysA", "engine": "run", "path": "run.txt"},
        {"name": "sysA", "engine": "python", "search": "json:dumps"},
        {"name": "sysA", "engine": "callable", "search": "json:dumps", "params": {"x": 1}},
    ],
    [
        {"name": "sysA", "engine": "run"},  # no path
        {"name": "sysA", "engine": "run", "path": 3},
        {"engine": "run", "path": "run.txt"},  # no name
        {"name": "", "engine": "run", "path": "run.txt"},
        {"name": 3, "engine": "run", "path": "run.txt"},
        {"name": "sysA", "engine": "nope"},
        {"name": "sysA", "engine": 3},
        {"name": "sysA", "engine": "run", "path": "run.txt", "colour": "red"},
        {"name": "sysA", "engine": "python", "search": "nope"},
        {"name": "sysA", "engine": "python", "search": "json:no_such_function"},
        {"name": "sysA", "engine": "python", "search": "json:dumps", "params": 3},
        {"name": "sysA", "engine": "python"},
        {"name": "a/b", "engine": "run", "path": "run.txt"},
        {"name": ".a", "engine": "run", "path": "run.txt"},
    ],
)
COLLECTION: list[Choice] = _pool(
    [{"format": "trec", "qrels": "qrels.txt", "topics": "topics.tsv", "documents": "docs.jsonl"}],
    [
        {"format": "trec", "qrels": "qrels.txt", "topics": "topics.tsv", "documents": 3},
        {"format": "trec", "qrels": "qrels.txt", "topics": "topics.tsv"},
        {"format": "nope"},
        {"format": 3},
        {"format": "cranfield", "path": 3},
        {"format": "cranfield", "path": ".", "gains": 3},
        {"format": "cranfield", "path": ".", "gains": {"x": 1}},
        {"format": "ir_datasets", "dataset": 3},
    ],
)


# Files that are not there: the error names them (a folder, a topics, qrels or documents file).
TREC = {"format": "trec", "qrels": "qrels.txt", "topics": "topics.tsv", "documents": "docs.jsonl"}
COLLECTION += [
    Choice({"format": "cranfield", "path": "no-such-folder"}, False, "no-such-folder"),
    Choice({**TREC, "topics": "missing.tsv"}, False, "missing.tsv"),
    Choice({**TREC, "qrels": "missing.txt"}, False, "missing.txt"),
    Choice({**TREC, "documents": "missing.jsonl"}, False, "missing.jsonl"),
]


# --------------------------------------------------------------------------- TOML text


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def toml_value(value: Any) -> str:
    """A value as TOML (a basic string as JSON writes it is a TOML basic string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def toml_text(document: dict[str, Any]) -> str:
    lines = []
    for table, content in document.items():
        if isinstance(content, dict):
            lines.append(f"[{table}]")
            lines += [f"{_key(k)} = {toml_value(v)}" for k, v in content.items()]
        elif isinstance(content, list) and content and all(isinstance(t, dict) for t in content):
            for entry in content:
                lines.append(f"[[{table}]]")
                lines += [f"{_key(k)} = {toml_value(v)}" for k, v in entry.items()]
        else:
            lines.insert(0, f"{_key(table)} = {toml_value(content)}")
        lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- generation


@st.composite
def _table(
    draw: st.DrawFn, keys: dict[str, list[Choice]], odd: bool
) -> tuple[dict[str, Any], bool]:
    """Some of ``keys`` with a value each; whether the documentation takes them all."""
    chosen = draw(st.lists(st.sampled_from(sorted(keys)), unique=True, max_size=5))
    table, takes = {}, True
    for key in chosen:
        pool = keys[key] if odd else [c for c in keys[key] if c.takes] or keys[key]
        choice = draw(st.sampled_from(pool))
        table[key] = choice.value
        takes &= choice.takes
    return table, takes


@st.composite
def configurations(draw: st.DrawFn) -> tuple[dict[str, Any], bool, str | None]:
    """A configuration, whether the documentation takes it, and the data file at fault when
    it does not because of a file."""
    odd = draw(st.booleans())
    document: dict[str, Any] = {}
    takes = True
    experiment, ok = draw(_table(EXPERIMENT, odd))
    document["experiment"], takes = experiment, takes and ok
    pool = COLLECTION if odd else [c for c in COLLECTION if c.takes]
    collection = draw(st.sampled_from(pool))
    document["collection"], takes = collection.value, takes and collection.takes
    blame = collection.blame
    pool = SYSTEMS if odd else [c for c in SYSTEMS if c.takes]
    systems = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
    names = [s.value.get("name") for s in systems]
    if len(systems) == 2:  # the second one under another name, unless it repeats on purpose
        second = dict(systems[1].value)
        if second.get("name") == "sysA" and not (odd and draw(rarely(3))):
            second["name"] = "sysB"
        names[1] = second.get("name")
        document["systems"] = [systems[0].value, second]
    else:
        document["systems"] = [systems[0].value]
    takes = takes and all(s.takes for s in systems) and len(set(names)) == len(names)
    if "baseline" in experiment and experiment["baseline"] == "sysA":
        takes = takes and "sysA" in names
    if draw(st.booleans()):
        evaluation, ok = draw(_table(EVALUATION, odd))
        document["evaluation"], takes = evaluation, takes and ok
    if draw(st.booleans()):
        cv, ok = draw(_table(CROSS_VALIDATION, odd))
        document["cross_validation"], takes = cv, takes and ok
    if odd and draw(rarely(6)):
        extra = draw(st.sampled_from([("colour", {"a": 1}), ("systems", 3), ("evaluation", 3)]))
        document[extra[0]] = extra[1]
        takes = False
    if odd and draw(rarely(8)):
        del document[draw(st.sampled_from(["collection", "systems"]))]
        takes = False
    return document, takes, blame


@dataclass(frozen=True)
class Damage:
    """What befalls the text: ``how`` (``none``, ``garbage``, ``nul``, ``cut``, ``twice``),
    where (a fraction of the lines or bytes), and the bytes that are not UTF-8."""

    how: str = "none"
    where: float = 0.0
    garbage: bytes = b"\xff"

    def __call__(self, text: bytes) -> bytes:
        lines = text.split(b"\n")
        at = int(self.where * (len(lines) - 1))
        if self.how == "garbage":
            lines[at] += self.garbage
        elif self.how == "nul":
            lines[at] += b"\x00"
        elif self.how == "twice":
            lines.insert(at, lines[at])
        elif self.how == "cut":
            return text[: int(self.where * len(text))]
        return b"\n".join(lines)


damages = st.builds(
    Damage,
    st.sampled_from(["none"] * 6 + ["garbage", "nul", "cut", "twice"]),
    st.floats(0, 1),
    st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"]),
)


def _files(folder: Path) -> None:
    (folder / "qrels.txt").write_text("1 0 d1 1\n2 0 d2 1\n")
    (folder / "topics.tsv").write_text("1\tlift of wings\n2\theat transfer\n")
    docs = [{"doc_id": "d1", "text": "wing lift"}, {"doc_id": "d2", "text": "heat"}]
    (folder / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (folder / "run.txt").write_text("1 Q0 d1 1 2.0 t\n2 Q0 d2 1 1.0 t\n")


def _same_as_configured(exp: Experiment, document: dict[str, Any], folder: Path) -> None:
    """Every value given is the experiment's."""
    settings = document.get("experiment", {})
    if settings.get("name"):
        assert exp.name == settings["name"]
    if "workdir" in settings:
        assert exp.workdir == (folder / settings["workdir"]).resolve()
    for key in ("k", "warmup", "repetitions", "throughput_passes", "seed"):
        if key in settings:
            assert getattr(exp, key) == settings[key], key
    for key in ("isolate", "efficiency"):
        if key in settings:
            assert getattr(exp, key) is settings[key], key
    if "throughput_seconds" in settings:
        assert exp.throughput_seconds == settings["throughput_seconds"]
    if "concurrency" in settings:
        assert list(exp.concurrency) == settings["concurrency"]
    if "measures" in settings:
        given_ = settings["measures"]
        assert exp.measures == ([given_] if isinstance(given_, str) else given_)
    for key, value in document.get("evaluation", {}).items():
        assert getattr(exp.options, key) == value, key
    assert [s.name for s in exp.systems] == [s["name"] for s in document["systems"]]


def _config(experiment: dict[str, Any], collection: dict[str, Any] = TREC) -> dict[str, Any]:
    system = {"name": "sysA", "engine": "run", "path": "run.txt"}
    return {"experiment": experiment, "collection": collection, "systems": [system]}


# Found by this test: a configuration that is not UTF-8 raised UnicodeDecodeError ...
@example(config=(_config({}), True, None), damage=Damage("garbage", 0.0, b"\xff"))
# ... a documents file that is not there raised FileNotFoundError ...
@example(
    config=(_config({}, {**TREC, "documents": "missing.jsonl"}), False, "missing.jsonl"),
    damage=Damage(),
)
# ... a query field without text in the topics raised an EvaluationError naming no file ...
@example(config=(_config({"query_field": "description"}), False, None), damage=Damage())
# ... and isolate = "no" or efficiency = "no" were taken (as true).
@example(config=(_config({"isolate": "no"}), False, None), damage=Damage())
@example(config=(_config({"efficiency": "no"}), False, None), damage=Damage())
@fuzz(200)
@given(config=configurations(), damage=damages)
def test_lab_configurations_are_loaded_as_documented(
    config: tuple[dict[str, Any], bool, str | None], damage: Damage
) -> None:
    document, takes, blame = config
    text = damage(toml_text(document).encode())
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        _files(folder)
        path = folder / "lab.toml"
        path.write_bytes(text)
        outcome = attempt(lambda: load_config(path))
        try:
            read = tomllib.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            event("not TOML")
            one_line_error(outcome, path)
            return
        if read != document:  # damaged but still TOML: any clean outcome
            event("damaged TOML")
            if not isinstance(outcome, Experiment):
                one_line_error(outcome, getattr(outcome, "source", path))
            return
        event("taken" if takes else "refused")
        if not takes:
            culprits = [path] + ([] if blame is None else [(folder / blame).resolve()])
            assert getattr(outcome, "source", None) in map(str, culprits), outcome
            one_line_error(outcome, outcome.source)  # type: ignore[union-attr]
            return
        assert isinstance(outcome, Experiment), outcome
        _same_as_configured(outcome, document, folder)
