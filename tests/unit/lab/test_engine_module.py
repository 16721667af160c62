"""A ``python`` engine's module beside the TOML file imports without PYTHONPATH (issue 18)."""

from __future__ import annotations

import contextlib
import re
import sys
import uuid
from pathlib import Path

import pytest

from cranfield.errors import InputError
from cranfield.lab import load_config
from tests.conftest import SHARED, require

ENGINE = """
import json
from collections import Counter
from pathlib import Path

_POSTINGS = {}


def index(documents, folder):
    postings = {}
    for d in documents:
        for word in set(d.text.split()):
            postings.setdefault(word, []).append(d.doc_id)
    Path(folder, "index.json").write_text(json.dumps(postings))


def load(folder):
    _POSTINGS.update(json.loads(Path(folder, "index.json").read_text()))


def search(query, k):
    hits = Counter(d for word in set(query.split()) for d in _POSTINGS.get(word, ()))
    return {d: float(n) for d, n in hits.most_common(k)}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A tiny TREC collection beside the configuration file."""
    (tmp_path / "docs.jsonl").write_text(
        '{"doc_id": "d1", "text": "boundary layer"}\n{"doc_id": "d2", "text": "heat transfer"}\n'
    )
    (tmp_path / "topics.tsv").write_text("q1\tboundary layer\nq2\theat transfer\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    return tmp_path


TREC = """
[collection]
format = "trec"
qrels = "qrels.txt"
topics = "topics.tsv"
documents = "docs.jsonl"
"""


def _config(folder: Path, module: str, collection: str = TREC, *, isolate: bool) -> Path:
    cfg = folder / "exp.toml"
    cfg.write_text(
        f"""
[experiment]
workdir = "out"
measures = ["AP"]
k = 10
efficiency = false
isolate = {str(isolate).lower()}
{collection}
[[systems]]
name = "mine"
engine = "python"
search = "{module}:search"
index = "{module}:index"
load = "{module}:load"
"""
    )
    return cfg


@pytest.mark.parametrize("isolate", [False, True])
def test_an_engine_module_beside_the_configuration_runs_without_pythonpath(
    tmp_path: Path, isolate: bool
) -> None:
    """With ``isolate``, the system is unpickled in a spawned process, which imports the
    module as well (on a collection that pickles: the Cranfield one)."""
    module = f"engine_{uuid.uuid4().hex}"  # a name no other test has imported
    (tmp_path / f"{module}.py").write_text(ENGINE)
    cranfield = require(SHARED / "data" / "cranfield")
    collection = f'[collection]\nformat = "cranfield"\npath = "{cranfield}"\n'
    assert str(tmp_path) not in sys.path
    try:
        exp = load_config(_config(tmp_path, module, collection, isolate=isolate), progress=False)
        result = exp.run()
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(tmp_path))
        sys.modules.pop(module, None)
    assert 0 < result.means["AP"]["mine"] < 1
    index = result.systems[0].index
    assert index is not None
    assert ("in a fresh process" in index.memory_method) is isolate


def test_the_folder_goes_last_on_the_import_path_and_only_when_needed(folder: Path) -> None:
    cfg = _config(folder, "no_such_engine_module", isolate=False)
    before = list(sys.path)
    with pytest.raises(InputError, match=r"cannot import 'no_such_engine_module:search'"):
        load_config(cfg, progress=False)
    assert sys.path == before
    (folder / "json.py").write_text("raise RuntimeError('a module beside hid the real one')\n")
    text = re.sub(r"(index|load) = .*\n", "", cfg.read_text())
    cfg.write_text(text.replace("no_such_engine_module:search", "json:dumps"))
    load_config(cfg, progress=False)  # the standard library's json, not the file beside
    assert sys.path == before
