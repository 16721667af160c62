"""The judging project (:mod:`cranfield.workbench.project`): making it from runs, topics and
documents; assessors; the judging screen's order, undo and resume; the strategy protocol."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from pathlib import Path

import pytest

from cranfield.errors import InputError, OptionError
from cranfield.lab.pooling import pool
from cranfield.workbench import create_project, open_project, parse_scale
from cranfield.workbench.project import NotAllowed
from cranfield.workbench.schema import SCHEMA_VERSION, current_version
from tests.unit.workbench.conftest import Inputs, Team


def test_the_project_holds_the_pool_in_the_order_lab_pool_exports(
    team: Team, inputs: Inputs
) -> None:
    p = team.project
    # the pool of the two runs at depth 2, shuffled with seed 0 as `lab pool --export` does
    expected: dict[str, list[str]] = {}
    for q, d in pool([str(r) for r in inputs.runs], 2).shuffled(0).iter_rows():
        expected.setdefault(q, []).append(d)
    assert {q: list(d) for q, d in p.order().items()} == expected
    assert sorted(expected["1"]) == ["d1", "d2", "d3", "d6"]
    assert sorted(expected["2"]) == ["d1", "d4", "d5"]
    assert [t.query_id for t in p.topics()] == ["1", "2"]
    s = p.settings()
    assert (s["topics_left_out"], s["documents_left_out"], s["pooled"]) == (1, 1, 7)
    assert list(p.runs()) == ["a", "b"]
    assert current_version(p.engine) == SCHEMA_VERSION
    with p.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_a_pooled_document_missing_from_the_documents_is_one_error(
    tmp_path: Path, inputs: Inputs
) -> None:
    lines = inputs.docs.read_text().splitlines(keepends=True)
    short = tmp_path / "short.jsonl"
    short.write_text("".join(lines[:2]))  # d1, d2
    with pytest.raises(
        InputError,
        match=r"short.jsonl: lacks 4 of the 6 pooled documents \(d3, d4, d5 and 1 more\)",
    ):
        create_project(
            tmp_path / "p", runs=inputs.runs, topics=inputs.topics, documents=short, pool_depth=2
        )
    assert not (tmp_path / "p").exists()


def test_a_pooled_topic_missing_from_the_topics_is_one_error(
    tmp_path: Path, inputs: Inputs
) -> None:
    one = tmp_path / "one.tsv"
    one.write_text("1\torganised crime\n")
    with pytest.raises(InputError, match=r"one.tsv: lacks 1 of the runs' 2 topics \(2\)"):
        create_project(
            tmp_path / "p", runs=inputs.runs, topics=one, documents=inputs.docs, pool_depth=2
        )


def test_a_folder_that_is_not_empty_is_refused(tmp_path: Path, inputs: Inputs) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x").write_text("")
    with pytest.raises(InputError, match="already exists and is not an empty folder"):
        create_project(
            tmp_path / "p", runs=inputs.runs, topics=inputs.topics, documents=inputs.docs
        )


def test_trec_topics_are_read_by_the_labs_reader(tmp_path: Path, inputs: Inputs) -> None:
    trec = tmp_path / "topics.txt"
    trec.write_text(
        "<top>\n<num> Number: 1\n<title> organised crime\n<desc> Description:\nRings.\n</top>\n"
        "<top>\n<num> Number: 2\n<title> solar\n</top>\n"
    )
    p = create_project(
        tmp_path / "p", runs=inputs.runs, topics=trec, documents=inputs.docs, pool_depth=2
    )
    assert p.topic("1").description == "Rings."
    p.close()


def test_the_scale_is_digits_with_their_wording() -> None:
    assert parse_scale("1=Relevant, 0=Not") == ((0, "Not"), (1, "Relevant"))
    for bad in ("0=a", "10=a,1=b", "0=a,0=b", "x=a,1=b", "0=,1=b"):
        with pytest.raises(OptionError):
            parse_scale(bad)


def test_judging_follows_the_order_and_undo_puts_the_document_back(team: Team) -> None:
    p = team.project
    ann = p.assessor("ann").id
    order = p.order()["1"]
    first = p.screen(ann, "1")
    assert (first.document and first.document.doc_id, first.done, first.total) == (order[0], 0, 4)
    p.judge(ann, "1", order[0], 2, "a note")
    second = p.screen(ann, "1")
    assert second.document is not None
    assert (second.document.doc_id, second.previous, second.done) == (order[1], order[0], 1)
    p.judge(ann, "1", order[1], 0)
    assert p.undo(ann, "1") == order[1]
    back = p.screen(ann, "1")
    assert back.document is not None
    assert back.document.doc_id == order[1]
    assert back.done == 1
    # revisiting the first: the assessor's own label and note, and the way forward
    old = p.screen(ann, "1", order[0])
    assert (old.label, old.note, old.previous, old.next) == (2, "a note", None, "")
    assert [(j.doc_id, j.label) for j in p.history(ann, "1")] == [(order[0], 2)]


def test_a_new_screen_resumes_where_the_assessor_left_off(team: Team) -> None:
    p = team.project
    ann = p.assessor("ann").id
    shown = p.screen(ann, "2").document
    again = open_project(p.folder)  # a restarted server
    try:
        resumed = again.screen(ann, "2").document
        assert resumed == shown
    finally:
        again.close()


def test_time_per_judgment_is_the_time_since_the_document_was_shown(team: Team) -> None:
    p = team.project
    ann = p.assessor("ann").id
    doc = p.screen(ann, "1").document
    assert doc is not None
    p.judge(ann, "1", doc.doc_id, 1)
    j = p.history(ann, "1")[0]
    assert j.seconds is not None
    assert j.seconds >= 0.0


def test_an_assessor_sees_and_writes_only_assigned_topics_and_pooled_documents(team: Team) -> None:
    p = team.project
    bob = p.assessor("bob").id
    with pytest.raises(NotAllowed):
        p.screen(bob, "2")
    with pytest.raises(NotAllowed):
        p.judge(bob, "2", "d4", 1)
    with pytest.raises(NotAllowed):
        p.judge(bob, "1", "d4", 1)  # d4 is not pooled for topic 1
    with pytest.raises(NotAllowed):
        p.screen(bob, "1", "d2")  # not his, not on his screen
    with pytest.raises(OptionError):
        p.judge(bob, "1", "d1", 7)


def test_judging_a_document_twice_keeps_one_judgment(team: Team) -> None:
    p = team.project
    ann = p.assessor("ann").id
    p.judge(ann, "1", "d1", 1)
    p.judge(ann, "1", "d1", 3, "changed my mind")
    assert [(j.doc_id, j.label, j.note) for j in p.judgments()] == [("d1", 3, "changed my mind")]


def test_a_serving_project_checkpoints_in_its_own_thread_not_on_commit(team: Team) -> None:
    p = team.project
    ann = p.assessor("ann").id
    p.checkpoint_in_background(every=3600.0)  # the thread waits: this test checkpoints
    raw = p.engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == 0  # a commit never checkpoints
        cursor.close()
    finally:
        raw.close()
    for doc in ("d1", "d2", "d3"):
        p.judge(ann, "1", doc, 1)
    pages, copied = p.checkpoint()
    assert pages > 0
    assert copied == pages
    assert p._checkpointer is not None
    thread = p._checkpointer[0]
    p.close()
    assert not thread.is_alive()
    again = open_project(p.folder)
    try:
        assert [j.doc_id for j in again.judgments()] == ["d1", "d2", "d3"]
    finally:
        again.close()


def test_an_unknown_assessor_is_one_error(team: Team) -> None:
    with pytest.raises(InputError, match="has no assessor named 'ghost'"):
        team.project.assign("ghost", ["1"])
    with pytest.raises(InputError, match="has no topic '9'"):
        team.project.assign("ann", ["9"])
    with pytest.raises(InputError, match="already has an assessor named 'ann'"):
        team.project.add_assessor("ann")


def test_log_in_gives_a_session_and_a_wrong_password_none(team: Team) -> None:
    p = team.project
    token = p.login("ann", team.passwords["ann"])
    assert token is not None
    session = p.session(token)
    assert session is not None
    assert session.assessor.name == "ann"
    assert p.login("ann", "wrong") is None
    assert p.login("nobody", "wrong") is None
    p.logout(token)
    assert p.session(token) is None


class _Reverse:
    """A strategy: the pool's documents in reverse id order; skips (nan) count as done."""

    def __init__(self) -> None:
        self.seen: list[dict[str, float]] = []

    def propose(self, query_id: str, judged: Mapping[str, float]) -> str | None:
        self.seen.append(dict(judged))
        pooled = {"1": ["d6", "d3", "d2", "d1"], "2": ["d5", "d4", "d1"]}[query_id]
        return next((d for d in pooled if d not in judged), None)


def test_any_object_with_propose_chooses_the_next_document(team: Team) -> None:
    strategy = _Reverse()
    p = open_project(team.project.folder, strategy=strategy)
    try:
        ann = p.assessor("ann").id
        shown = []
        for label in (1, None, 0, 2):
            doc = p.screen(ann, "1").document
            assert doc is not None
            shown.append(doc.doc_id)
            p.judge(ann, "1", doc.doc_id, label)
        assert shown == ["d6", "d3", "d2", "d1"]
        assert p.screen(ann, "1").document is None
        assert p.setting("strategies") == ["_Reverse"]
        last = strategy.seen[-1]
        assert last["d6"] == 1.0
        assert math.isnan(last["d3"])
        assert last["d2"] == 0.0
    finally:
        p.close()


def test_a_strategy_proposing_a_document_done_already_is_a_bug(team: Team) -> None:
    class Stuck:
        def propose(self, query_id: str, judged: Mapping[str, float]) -> str | None:
            return "d1"

    p = open_project(team.project.folder, strategy=Stuck())
    try:
        ann = p.assessor("ann").id
        p.judge(ann, "1", "d1", 1)
        with pytest.raises(RuntimeError, match="the strategy proposed 'd1'"):
            p.screen(ann, "1")
    finally:
        p.close()


def test_a_folder_without_a_project_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not a judging project"):
        open_project(tmp_path)


def test_an_adjudication_strategy_of_cranfield_judging_chooses_live(
    team: Team, inputs: Inputs
) -> None:
    """The workbench and :mod:`cranfield.judging` share one ``Strategy``: Move-to-Front over
    the project's runs picks each next document from the labels entered so far, exactly as
    the same strategy replayed alone does."""
    from cranfield.judging.strategies import Strategy, strategy

    chosen = strategy("mtf", list(inputs.runs), pool_depth=2)
    assert isinstance(chosen, Strategy)
    p = open_project(team.project.folder, strategy=chosen)
    try:
        ann = p.assessor("ann").id
        shown, labels = [], {"d1": 0, "d2": 1, "d3": 0, "d6": 1}
        while (doc := p.screen(ann, "1").document) is not None:
            shown.append(doc.doc_id)
            p.judge(ann, "1", doc.doc_id, labels[doc.doc_id])
    finally:
        p.close()
    replay, judged = strategy("mtf", list(inputs.runs), pool_depth=2), {}
    expected = []
    while (nxt := replay.propose("1", judged)) is not None:
        expected.append(nxt)
        judged[nxt] = float(labels[nxt])
    assert shown == expected
    assert sorted(shown) == ["d1", "d2", "d3", "d6"]


def test_judge_serve_strategy_uses_the_projects_runs_depth_and_seed(team: Team) -> None:
    """``cranfield judge serve --strategy mtf``: the strategy is built over the runs kept in
    the project at its pool depth and seed, and chooses what the screen shows."""
    from cranfield.cli.judge import serve
    from cranfield.judging.strategies import strategy

    folder = team.project.folder
    team.project.close()
    args = serve._parser(io.StringIO(), io.StringIO()).parse_args(
        [str(folder), "--strategy", "mtf"]
    )
    p = serve._with_strategy(open_project(folder), args.strategies[0])
    try:
        runs = {n: str(path) for n, path in p.runs().items()}
        replay = strategy("mtf", runs, pool_depth=2, seed=0)
        ann, judged = p.assessor("ann").id, {}
        for label in (1, 0, 1):
            doc = p.screen(ann, "1").document
            assert doc is not None
            assert doc.doc_id == replay.propose("1", judged)
            p.judge(ann, "1", doc.doc_id, label)
            judged[doc.doc_id] = float(label)
        assert p.setting("strategies")[-1] != "PoolOrder"
    finally:
        p.close()
    from cranfield.cli.parser import UsageError

    with pytest.raises(UsageError):
        serve._parser(io.StringIO(), io.StringIO()).parse_args([str(folder), "--strategy", "x"])
