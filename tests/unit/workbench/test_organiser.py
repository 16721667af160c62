"""The organiser's figures (:mod:`cranfield.workbench.organiser`) and the schema's version
(:mod:`cranfield.workbench.schema`), on hand-computed cases."""

from __future__ import annotations

import math

import pytest
import sqlalchemy as sa

from cranfield.errors import InputError
from cranfield.workbench import open_project
from cranfield.workbench.organiser import agreement, disagreements, live_scores, progress
from cranfield.workbench.schema import SCHEMA_VERSION, migrate, tables
from tests.unit.workbench.conftest import Team


def judged(team: Team) -> None:
    """ann: d1 2, d2 0, d3 1, d6 skipped; bob: d1 2, d2 1, d3 1, d6 0 (topic 1)."""
    p = team.project
    ann, bob = p.assessor("ann").id, p.assessor("bob").id
    for doc, a, b in (("d1", 2, 2), ("d2", 0, 1), ("d3", 1, 1), ("d6", None, 0)):
        p.judge(ann, "1", doc, a)
        p.judge(bob, "1", doc, b)


def test_progress_per_topic_and_assessor(team: Team) -> None:
    judged(team)
    rows = [
        (r.query_id, r.assessor, r.labelled, r.skipped, r.pooled) for r in progress(team.project)
    ]
    assert rows == [("1", "ann", 3, 1, 4), ("1", "bob", 4, 0, 4), ("2", "ann", 0, 0, 3)]
    per_hour = {(r.query_id, r.assessor): r.per_hour for r in progress(team.project)}
    assert per_hour[("2", "ann")] is None
    assert per_hour[("1", "ann")] is not None
    assert per_hour[("1", "ann")] > 0


def test_disagreements_and_kappa_as_cranfield_agree_computes_it(team: Team) -> None:
    judged(team)
    (d,) = disagreements(team.project)
    assert (d.query_id, d.doc_id, d.labels, d.adjudicated) == (
        "1",
        "d2",
        {"ann": 0, "bob": 1},
        None,
    )
    (k,) = agreement(team.project)
    # shared d1 d2 d3: ann 2 0 1, bob 2 1 1; observed 2/3; chance 1/3 * 2/3 + 1/3 * 1/3 = 1/3
    assert (k.assessor_a, k.assessor_b, k.shared) == ("ann", "bob", 3)
    assert k.observed == pytest.approx(2 / 3)
    assert k.kappa == pytest.approx(0.5)
    assert k.per_query == {"1": pytest.approx(0.5)}
    team.project.adjudicate(team.project.assessor("org").id, "1", "d2", 0)
    assert disagreements(team.project)[0].adjudicated == 0


def test_live_scores_rank_the_runs_under_the_judgments_so_far(team: Team) -> None:
    judged(team)
    team.project.adjudicate(team.project.assessor("org").id, "1", "d2", 0)
    scores = {(s.measure, s.run): s for s in live_scores(team.project, ["P@2"])}
    # topic 1 only: d1 2, d2 0, d3 1, d6 0. run a: d1 d2 -> 1/2; run b: d3 d6 -> 1/2
    assert scores[("P@2", "a")].mean == 0.5
    assert scores[("P@2", "b")].mean == 0.5
    assert [scores[("P@2", r)].rank for r in ("a", "b")] == [1, 2]  # a tie: by name
    assert scores[("P@2", "a")].topics == 1
    assert math.isnan(scores[("P@2", "a")].low)  # one topic: no interval


def test_a_database_of_a_newer_schema_is_refused(team: Team) -> None:
    p = team.project
    with p.engine.begin() as conn:
        conn.execute(
            tables().schema_version.insert().values(version=SCHEMA_VERSION + 1, applied_at=0.0)
        )
    with pytest.raises(InputError, match=f"has schema version {SCHEMA_VERSION + 1}, newer than"):
        migrate(p.engine, "x")
    with pytest.raises(InputError, match="newer than this cranfield's"):
        open_project(p.folder)


def test_an_empty_database_is_brought_to_the_current_version() -> None:
    engine = sa.create_engine("sqlite://")
    assert migrate(engine, "memory") == 0
    with engine.connect() as conn:
        versions = conn.execute(sa.select(tables().schema_version.c.version)).scalars().all()
    assert versions == list(range(1, SCHEMA_VERSION + 1))  # each step in order
    assert migrate(engine, "memory") == SCHEMA_VERSION  # nothing to do the second time


def test_a_version_1_database_gains_the_invitations_of_version_2(team: Team) -> None:
    p = team.project
    with p.engine.begin() as conn:  # as cranfield made it before invitations
        conn.execute(sa.text("DROP TABLE invitations"))
        conn.execute(tables().schema_version.delete().where(tables().schema_version.c.version > 1))
    p.close()
    again = open_project(p.folder)
    try:
        assert sa.inspect(again.engine).has_table("invitations")
        token = again.invite("ann")
        assert again.invitation(token)[0] == "valid"
    finally:
        again.close()
