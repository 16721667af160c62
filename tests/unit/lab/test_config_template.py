"""``cranfield lab init``'s template: every declared key documented, and it runs (issue 18)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from cranfield.lab.config import declared_keys, load_config, make_system
from cranfield.lab.config_template import TEMPLATE
from tests.conftest import SHARED, require

_HEADER = re.compile(r"^\[\[?([a-z_]+)\]\]?(\s|$)")
_KEY = re.compile(r"^([a-z_0-9]+) = (\S.*)$")


def documented_keys(template: str) -> dict[str, set[str]]:
    """The keys ``template`` writes or shows commented out (``# key = value``), grouped as
    :func:`declared_keys` groups them: a ``format`` line starts a collection format's keys,
    a ``[[systems]]`` table's ``engine`` line names the engine its keys belong to."""
    found: dict[str, set[str]] = {"": set()}
    section = ""
    block: set[str] = set()

    def close() -> None:
        if section.startswith("systems"):
            found.setdefault(section, set()).update(block)

    for raw in template.splitlines():
        line = raw.removeprefix("# ") if raw.startswith("# ") else raw
        header = _HEADER.match(line)
        if header:
            close()
            section, block = header[1], set()
            found[""].add(header[1])
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        value = key[2].split("#")[0].strip().strip('"')
        if section.startswith("systems") and key[1] == "engine":
            section = f"systems {value}"
        if section.startswith("collection") and key[1] == "format":
            section = f"collection {value}"
        target = block if section.startswith("systems") else found.setdefault(section, set())
        target.add(key[1])
    close()
    return found


def test_the_template_documents_exactly_the_declared_keys() -> None:
    declared = {where: set(keys) for where, keys in declared_keys().items()}
    assert documented_keys(TEMPLATE) == declared


def test_a_key_missing_from_the_template_is_noticed() -> None:
    shorter = TEMPLATE.replace("# throughput_passes = 1 ", "# ")
    assert "throughput_passes" not in documented_keys(shorter)["experiment"]
    assert documented_keys(shorter) != {k: set(v) for k, v in declared_keys().items()}


def test_the_template_is_toml_and_loads_beside_the_shared_data(tmp_path: Path) -> None:
    tomllib.loads(TEMPLATE)
    clone = tmp_path / "clone"
    clone.mkdir()
    (tmp_path / "shared").symlink_to(require(SHARED).resolve(), target_is_directory=True)
    cfg = clone / "cranfield.toml"
    cfg.write_text(TEMPLATE, encoding="utf-8")
    exp = load_config(cfg)
    assert [s.name for s in exp.systems] == ["bm25s", "sqlite-fts5"]
    assert exp.workdir == clone / "lab-out"


@pytest.mark.parametrize(
    ("section", "keys"), [(w, k) for w, k in declared_keys().items() if w.startswith("systems")]
)
def test_each_engine_block_of_the_template_is_valid_when_uncommented(
    section: str, keys: tuple[str, ...]
) -> None:
    engine = section.split(" ", 1)[1]
    block = next(b for b in TEMPLATE.split("\n\n") if f'engine = "{engine}"' in b)
    lines = (line.removeprefix("# ") for line in block.splitlines())
    text = "\n".join(line for line in lines if _HEADER.match(line) or _KEY.match(line))
    table = tomllib.loads(text)["systems"][0]
    assert set(table) == set(keys)
    if engine not in ("python", "run"):  # those name code and files that are examples only
        assert make_system(table).name == table["name"]
