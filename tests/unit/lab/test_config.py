"""Configuration files: every key of the wrong type, bad files and clashing system names are
one-line errors naming the file and the key, found before anything is read or built."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cranfield.errors import InputError, QrelsNoteWarning
from cranfield.evaluation.options import OPTION_NAMES
from cranfield.lab import load_config
from cranfield.lab.config import (
    _COLLECTION_KEYS,
    _CROSS_VALIDATION_KEYS,
    _ENGINE_KEYS,
    _EXPERIMENT_KEYS,
    _TABLES,
)

COLLECTION = """
[collection]
format = "trec"
qrels = "qrels.txt"
topics = "topics.tsv"
documents = "docs.jsonl"
"""
SYSTEM = '[[systems]]\nname = "r"\nengine = "run"\npath = "a.run"\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A tiny TREC collection and a run beside the configuration file."""
    (tmp_path / "docs.jsonl").write_text(
        '{"doc_id": "d1", "text": "boundary layer"}\n{"doc_id": "d2", "text": "heat transfer"}\n'
    )
    (tmp_path / "topics.tsv").write_text("q1\tboundary layer\nq2\theat transfer\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d2 1 2.0 r\n")
    return tmp_path


def refused(cfg: Path, text: str) -> str:
    """The message of the error ``text`` gives as a configuration: one line naming ``cfg``."""
    cfg.write_text(text)
    with pytest.raises(InputError) as exc:
        load_config(cfg, progress=False)
    message = str(exc.value)
    assert message.startswith(f"{cfg}: "), message
    assert "\n" not in message
    return message


# (where in the file, key, a value of the wrong type as TOML, words of the error)
WRONG = {
    "experiment": [
        ("name", "7", "a string"),
        ("workdir", "3", "a string"),
        ("measures", "5", "a string or a list of strings"),
        ("measures", '["AP", 3]', "a string or a list of strings"),
        ("k", '"x"', "an integer"),
        ("k", "1.5", "an integer"),
        ("query_field", "3", "a string"),
        ("baseline", "3", "a string"),
        ("tests", "3", "a string or a list of strings"),
        ("correction", "3", "a string"),
        ("alpha", '"x"', "a number"),
        ("seed", "true", "an integer"),
        ("warmup", '"x"', "an integer"),
        ("repetitions", "1.5", "an integer"),
        ("concurrency", "4", "a list of integers"),
        ("throughput_passes", '"x"', "an integer"),
        ("throughput_seconds", '"x"', "a number"),
        ("isolate", '"no"', "true or false"),
        ("efficiency", '"false"', "true or false"),
    ],
    "collection cranfield": [
        ("path", "3", "a string"),
        ("gains", "3", "a table"),
    ],
    "collection trec": [
        ("name", "5", "a string"),
        ("qrels", "3", "a string"),
        ("topics", "[]", "a string"),
        ("documents", "{}", "a string"),
    ],
    "collection ir_datasets": [("dataset", "3", "a string")],
    "collection": [("format", "3", "must be 'cranfield', 'trec' or 'ir_datasets'")],
    "bm25s": [
        ("k1", '"x"', "a number"),
        ("b", "[]", "a number"),
        ("method", "3", "a string"),
        ("stopwords", "3", "a string"),
        ("stemmer", "3", "a string"),
    ],
    "tantivy": [
        ("tokenizer", "3", "a string"),
        ("heap_size", '"x"', "an integer"),
        ("threads", "1.5", "an integer"),
    ],
    "sqlite-fts5": [("tokenizer", "3", "a string")],
    "http": [
        ("url", "3", "a string"),
        ("url", '["http://x/{query}"]', "a string"),
        ("body", "3", "a table"),
        ("hits", "3", "a string"),
        ("doc_id", "3", "a string"),
        ("score", "3", "a string"),
        ("headers", '["a"]', "a table of strings"),
        ("headers", "{ X-Api-Key = 1 }", "a table of strings"),
        ("timeout", '"x"', "a number"),
        ("max_response_bytes", '"1 MiB"', "an integer"),
        ("redirects", "true", "a string"),
    ],
    "python": [
        ("search", "3", "a string"),
        ("factory", "3", "a string"),
        ("params", "3", "a table"),
        ("index", "3", "a string"),
        ("load", "3", "a string"),
    ],
    "run": [("path", "3", "a string")],
    "systems entry": [("name", "3", "needs a 'name' string"), ("engine", "3", "'engine' must be")],
    "cross_validation": [
        ("measure", "3", "a string"),
        ("n_folds", '"x"', "an integer"),
        ("seed", "1.5", "an integer"),
    ],
    "evaluation": [
        ("missing", "3", "one of 'zero', 'skip', 'error'"),
        ("relevance_level", '"x"', "an integer"),
        ("judged_only", '"yes"', "True or False"),
        ("depth", '"x"', "an integer"),
        ("float32", "1", "True or False"),
        ("compat", '"x"', "one of 9, 10"),
        ("num_docs", '"x"', "an integer"),
        ("aggregate", "3", "aggregate"),
        ("epsilon", '"x"', "a number"),
        ("duplicates", "3", "one of 'merge', 'error', 'first', 'last', 'max'"),
        ("ignore_self", "1", "True or False"),
        (
            "qrels_format",
            '"xlsx"',
            "one of 'trec', 'msmarco', 'beir', 'csv', 'tsv', 'json', 'jsonl', 'parquet'",
        ),
    ],
    "the file": [
        ("experiment", "3", "a table"),
        ("collection", "3", "a table"),
        ("systems", "3", "a list of [[systems]] tables"),
        ("evaluation", "3", "a table"),
        ("cross_validation", "3", "a table"),
    ],
}


def _case(where: str, key: str, value: str) -> tuple[str, str]:
    """A configuration with ``key = value`` in ``where``, and the location its error names."""
    line = f"{key} = {value}\n"
    if where == "experiment":
        return f"[experiment]\n{line}{COLLECTION}{SYSTEM}", "[experiment]"
    if where.startswith("collection"):
        fmt = where.partition(" ")[2]
        head = f'[collection]\nformat = "{fmt}"\n' if fmt else "[collection]\n"
        return f"{head}{line}{SYSTEM}", "[collection]"
    if where in _ENGINE_KEYS:
        entry = f'[[systems]]\nname = "s"\nengine = "{where}"\n{line}'
        return f"{COLLECTION}{entry}", "systems entry 's'"
    if where == "systems entry":
        fields = {"name": '"s"', "engine": '"sqlite"', key: value}
        entry = "[[systems]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items())
        return f"{COLLECTION}{entry}", "systems entry"
    if where == "the file":
        rest = {"collection": SYSTEM, "systems": COLLECTION}.get(key, COLLECTION + SYSTEM)
        return f"{line}{rest}", "the file"
    return f"{COLLECTION}{SYSTEM}[{where}]\n{line}", f"[{where}]"


@pytest.mark.parametrize(
    ("where", "key", "value", "words"),
    [(where, *case) for where, cases in WRONG.items() for case in cases],
    ids=lambda x: str(x)[:30],
)
def test_every_key_of_the_wrong_type_is_an_error_naming_the_file_and_the_key(
    folder: Path, where: str, key: str, value: str, words: str
) -> None:
    text, location = _case(where, key, value)
    message = refused(folder / "exp.toml", text)
    assert location in message
    assert re.search(rf"\b{re.escape(key)}\b", message), message
    assert words in message


def test_the_table_of_wrong_types_covers_every_key_the_reader_takes() -> None:
    tested = {(where, key) for where, cases in WRONG.items() for key, *_ in cases}
    declared = (
        {("experiment", k) for k in _EXPERIMENT_KEYS}
        | {
            (f"collection {fmt}", k)
            for fmt, keys in _COLLECTION_KEYS.items()
            for k in keys
            if k != "format"
        }
        | {("collection", "format")}
        | {(engine, k) for engine, keys in _ENGINE_KEYS.items() for k in keys}
        | {("systems entry", "name"), ("systems entry", "engine")}
        | {("cross_validation", k) for k in _CROSS_VALIDATION_KEYS}
        | {("evaluation", k) for k in OPTION_NAMES if k != "run_format"}
        | {("the file", k) for k in _TABLES}
    )
    assert tested == declared


def test_a_good_configuration_still_reads(folder: Path) -> None:
    cfg = folder / "exp.toml"
    cfg.write_text(
        '[experiment]\nmeasures = "AP"\nconcurrency = [1]\nisolate = false\nefficiency = false\n'
        + COLLECTION
        + SYSTEM
        + "[cross_validation]\nn_folds = 2\n"
    )
    exp = load_config(cfg, progress=False)
    assert exp.measures == ["AP"]
    assert (exp.isolate, exp.efficiency) == (False, False)
    assert exp.cross_validation == {"measure": "AP", "n_folds": 2, "seed": 0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"\xff\xfe[experiment]\n", r"exp.toml:1: is not UTF-8 text"),
        (b"[experiment\n", r"exp.toml:1: is not valid TOML"),
        (b"systems = [1]\n" + COLLECTION.encode(), r"\[\[systems\]\]: each entry must be a table"),
        (SYSTEM.encode(), r"the file: needs a \[collection\] table"),
        (COLLECTION.encode(), r"needs at least one \[\[systems\]\] table"),
        (
            (COLLECTION + SYSTEM + "[cross_validation]\nn_folds = 1\n").encode(),
            r"\[cross_validation\]: 'n_folds' must be an integer >= 2, got 1$",
        ),
        (
            (COLLECTION + SYSTEM + '[cross_validation]\nmeasure = "AP P@10"\n').encode(),
            r"\[cross_validation\]: Unknown measure",
        ),
        (
            (COLLECTION + SYSTEM + "[cross_validation]\nfolds = 3\n").encode(),
            r"\[cross_validation\]: unknown key 'folds' \(allowed: measure, n_folds, seed\)",
        ),
    ],
)
def test_bad_files_are_one_line_errors(folder: Path, text: bytes, message: str) -> None:
    cfg = folder / "exp.toml"
    cfg.write_bytes(text)
    with pytest.raises(InputError, match=message) as exc:
        load_config(cfg, progress=False)
    assert str(exc.value).startswith(f"{cfg}")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('qrels = "qrels.txt"', 'qrels = "none.txt"', r"\[collection\] qrels: cannot use .*none"),
        ('topics = "topics.tsv"', 'topics = "."', r"\[collection\] topics: .* is a folder"),
        ('documents = "docs.jsonl"', 'documents = ""', r"\[collection\] documents: must be a"),
        ('path = "a.run"', 'path = "none.run"', r"systems entry 'r' path: cannot use .*none"),
        ('path = "a.run"', 'path = "."', r"systems entry 'r' path: .* is a folder"),
    ],
)
def test_input_files_are_checked_when_the_configuration_is_read(
    folder: Path, old: str, new: str, message: str
) -> None:
    """A missing input is named with its key before any system is indexed."""
    cfg = folder / "exp.toml"
    cfg.write_text((COLLECTION + SYSTEM).replace(old, new))
    with pytest.raises(InputError, match=message):
        load_config(cfg, progress=False)


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        ("a", "a.json", r"got \['a', 'a\.json'\]; both would write indexes/a\.json$"),
        ("BM25", "bm25", r"got \['BM25', 'bm25'\]; both would write .* \(file names may ignore"),
        ("caf\u00e9", "cafe\u0301", r"both would write indexes/cafe\u0301 \(file names may"),
        ("a", "a", "systems with distinct names, got 'a'"),
        ("a", "x/y", r"whose names can name a file .*got 'x/y'"),
        ("a", "..", r"whose names can name a file .*got '\.\.'"),
        ("a", "x" * 201, "whose names are at most 200 bytes long"),
        (
            "a",
            "my run",
            r"whose names are one word \(no blank: a name is its run.s tag\), got .my run.",
        ),
    ],
)
def test_system_names_that_would_share_a_file_are_refused(
    folder: Path, first: str, second: str, message: str
) -> None:
    cfg = folder / "exp.toml"
    systems = "".join(
        f'[[systems]]\nname = "{n}"\nengine = "run"\npath = "a.run"\n' for n in (first, second)
    )
    text = refused(cfg, COLLECTION + systems)
    assert "[[systems]]: 'systems' must be systems" in text
    assert re.search(message, text), text


def test_an_empty_system_name_is_refused(folder: Path) -> None:
    message = refused(folder / "exp.toml", COLLECTION + SYSTEM.replace('"r"', '""'))
    assert "needs a 'name' string" in message


def test_command_line_settings_win_over_the_file(folder: Path) -> None:
    cfg = folder / "exp.toml"
    cfg.write_text("[experiment]\nefficiency = false\nmeasures = 'AP'\n" + COLLECTION + SYSTEM)
    assert load_config(cfg, progress=False).efficiency is False
    assert load_config(cfg, progress=False, efficiency=True).efficiency is True
    assert load_config(cfg, progress=False, measures=["P@1"]).measures == ["P@1"]


def exploding_factory(name: str) -> None:
    raise RuntimeError("exploded")


def test_a_factory_that_fails_is_an_error_naming_the_system(folder: Path) -> None:
    entry = (
        '[[systems]]\nname = "p"\nengine = "python"\n'
        'factory = "tests.unit.lab.test_config:exploding_factory"\n'
    )
    message = refused(folder / "exp.toml", COLLECTION + entry)
    assert message.endswith(
        "systems entry 'p': its factory tests.unit.lab.test_config:exploding_factory failed "
        "(RuntimeError: exploded)"
    )


def test_evaluation_duplicates_reads_the_collection_qrels(folder: Path) -> None:
    """``[evaluation] duplicates`` is also how the lab reads its qrels: a conflicting repeat
    is refused by default and resolved with ``duplicates = "max"``."""
    (folder / "qrels.txt").write_text("q1 0 d1 0\nq2 0 d2 1\nq1 0 d1 1\n")
    cfg = folder / "lab.toml"
    cfg.write_text(COLLECTION + SYSTEM)
    with pytest.raises(InputError) as exc:
        load_config(cfg, progress=False)
    assert str(exc.value) == (
        f"{folder / 'qrels.txt'}:3: duplicate document 'd1' for query 'q1' judged 0 on line 1 "
        "and 1 here; keep one with duplicates='first', 'last' or 'max' (--duplicates): "
        "'q1 0 d1 1'"
    )
    cfg.write_text(COLLECTION + SYSTEM + '[evaluation]\nduplicates = "max"\n')
    quick = {"progress": False, "isolate": False, "efficiency": False}
    with pytest.warns(QrelsNoteWarning, match="keeping the max relevance"):
        experiment = load_config(cfg, workdir=folder / "work", **quick)
    assert experiment.collection.qrels.to_dict() == {"q1": {"d1": 1}, "q2": {"d2": 1}}
    result = experiment.run(report=False)
    assert result.means["AP"]["r"] == 1.0  # d1 judged relevant: the max of 0 and 1


def test_the_lab_reads_its_own_runs_so_takes_no_run_format(folder: Path) -> None:
    message = refused(
        folder / "exp.toml", COLLECTION + SYSTEM + '[evaluation]\nrun_format = "csv"\n'
    )
    assert "[evaluation]: unknown key 'run_format'" in message


def test_a_trec_collection_reads_classic_sgml_documents(folder: Path) -> None:
    """``documents`` in TREC's <DOC><DOCNO>...<TEXT> form was read as JSON lines and refused."""
    (folder / "docs.sgml").write_text(
        "<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>\nboundary layer\n</TEXT>\n</DOC>\n"
        "<DOC>\n<DOCNO>d2</DOCNO>\n<HEADLINE>Heat</HEADLINE>\n<TEXT>heat transfer</TEXT>\n</DOC>\n"
    )
    cfg = folder / "lab.toml"
    cfg.write_text(COLLECTION.replace("docs.jsonl", "docs.sgml") + SYSTEM)
    experiment = load_config(cfg, progress=False)
    docs = list(experiment.collection.iter_documents())
    assert [(d.doc_id, d.text, d.title) for d in docs] == [
        ("d1", "boundary layer", ""),
        ("d2", "heat transfer", "Heat"),
    ]
    cfg.write_text(COLLECTION + SYSTEM)  # JSON lines still read as before
    docs = list(load_config(cfg, progress=False).collection.iter_documents())
    assert [d.doc_id for d in docs] == ["d1", "d2"]
