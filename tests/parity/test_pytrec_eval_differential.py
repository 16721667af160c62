"""Differential tests against pytrec_eval, i.e. trec_eval 9.0.8's measure code run in C.

pytrec-eval-terrier 0.5.11 compiles trec_eval 9.0.8 (scores stored as C ``float``) into an
extension and calls the measure functions directly (research/trec_eval.md §8). So cranfield
with ``float32=True, compat=9`` must give the same value for every topic and every measure
that both have:

* through the API, ``evaluate(..., missing="skip")``, to 1e-9;
* through ``cranfield trec-eval --compat 9 -q -m all_trec`` on files, to the 4 printed
  decimals, per topic and for the ``all`` summary.

How pytrec_eval differs from a trec_eval run on files, and how the tests account for it:

* it evaluates the topics present in both the run and the qrels, and drops qrels topics whose
  dict is empty;
* a run topic with an empty dict is evaluated as "nothing retrieved", but with ``num_rel`` 0
  whatever the qrels say, so its values are not trec_eval's. In a file such a topic cannot
  exist, and cranfield treats it as absent (``missing_topics``): those topics are checked only
  for being reported missing, and depth 0 is emulated another way (:func:`pytrec_at_depth`);
* per topic, ``gm_map`` and ``gm_bpref`` are ``log(max(value, 1e-5))`` and ``num_q`` is 1;
  ``relstring`` comes back as 0.0 and ``runid`` as 0 (both left out);
* **a qrels topic whose labels are all negative crashes pytrec_eval** (a segfault, or a hang
  after heap corruption): trec_eval 9.0.8's ``te_form_res_rels`` sizes ``rel_levels`` by
  ``max label + 1``, which is then <= 0. Smallest case: qrels ``{'q': {'a': -1}}``, run
  ``{'q': {'a': 1.0, 'b': 2.0}}``, measures ``{'gm_bpref', 'recip_rank'}``. The generator
  therefore gives every judged topic one label >= 0; negative labels are otherwise frequent.

The generated data is adversarial on purpose: heavy score ties, scores that are equal in
float32 but not in float64, signed zeros and float32 overflow, unjudged and negatively judged
documents, graded labels up to 4 and odd ones (10, 50), topics without relevant documents,
topics only in the run or only in the qrels, query ids that sort differently as strings and
as numbers, non-ASCII doc ids, and 0 to 1001 documents per topic; under relevance levels 1
and 2, with and without ``judged_only``, and cut at depths 0 to 1100 (``depth=`` / ``-M``;
pytrec_eval has no such option, so its run is cut here in trec_eval's order).
"""

from __future__ import annotations

import functools
import gzip
import io
import math
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.cli.trec_eval import main as trec_eval
from tests.conftest import REAL, require

# Parity with peer tools on real TREC data: slow, left out by scripts/check --fast.
pytestmark = pytest.mark.slow

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

# --------------------------------------------------------------------------- measure names

# Every pytrec_eval measure but the two that carry no number.
MEASURES = sorted(pytrec_eval.supported_measures - {"relstring", "runid"})
INT_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
MULTS = tuple(i / 5 for i in range(1, 11))
LOG_PER_TOPIC = frozenset({"gm_map", "gm_bpref"})  # pytrec_eval gives log(max(v, 1e-5))
INTEGER_VALUED = frozenset({"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "num_q"})
NOT_PRINTED_PER_TOPIC = frozenset({"gm_map", "gm_bpref", "num_q"})  # by trec_eval -q


def trec_labels(name: str) -> list[str]:
    """trec_eval's output labels of a measure with its default parameters (``P`` -> ``P_5``...)."""
    if name in ("P", "recall", "ndcg_cut", "map_cut", "relative_P"):
        return [f"{name}_{c}" for c in INT_CUTS]
    if name == "success":
        return [f"success_{c}" for c in (1, 5, 10)]
    if name == "iprec_at_recall":
        return [f"{name}_{c:3.2f}" for c in RECALL_LEVELS]
    if name == "Rprec_mult":
        return [f"{name}_{c:3.2f}" for c in MULTS]
    return [name]


def cranfield_measures() -> dict[str, cranfield.Measure]:
    """``{pytrec_eval key: cranfield measure}``, expanding each name with ``parse_measures``."""
    table: dict[str, cranfield.Measure] = {}
    for name in MEASURES:
        parsed = cranfield.parse_measures(name)
        labels = trec_labels(name)
        assert len(parsed) == len(labels), f"{name}: {parsed} vs {labels}"
        table.update(zip(labels, parsed, strict=True))
    return table


BY_KEY = cranfield_measures()


def same(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def pytrec(
    qrels: Qrels, run: Run, *, relevance_level: int, judged_only: bool
) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, MEASURES, relevance_level=relevance_level, judged_docs_only_flag=judged_only
    )
    result: dict[str, dict[str, float]] = evaluator.evaluate(run)
    return result


def compare_api(
    qrels: Qrels | Path,
    run: Run | Path,
    expected: dict[str, dict[str, float]],
    *,
    relevance_level: int,
    judged_only: bool,
    empty_run_topics: set[str],
    depth: int | None = None,
) -> None:
    """cranfield's API against pytrec_eval's per-topic values, every measure, to 1e-9."""
    res = cranfield.evaluate(
        qrels,
        run,
        list(BY_KEY.values()),
        float32=True,
        compat=9,
        missing="skip",
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
    )
    assert set(res.topics) == set(expected) - empty_run_topics
    assert empty_run_topics <= set(res.missing_topics)
    position = {q: i for i, q in enumerate(res.topics)}
    wrong = []
    for qid in res.topics:
        assert set(expected[qid]) == set(BY_KEY), sorted(set(expected[qid]) ^ set(BY_KEY))
        for key, want in expected[qid].items():
            got = float(res.values[BY_KEY[key]][position[qid]])
            if key in LOG_PER_TOPIC:
                got = math.log(max(got, 1e-5))
            if not same(got, want):
                wrong.append((qid, key, want, got))
    assert not wrong, (
        f"{len(wrong)} values differ (qid, measure, pytrec_eval, cranfield): {wrong[:12]}"
    )


# --------------------------------------------------------------------------- data

QIDS = ("1", "2", "9", "10", "100", "01", "001", "a", "B_3", "q-7", "2024-1", "Z")
SCORE_POOL = (0.0, 1.0, 0.5, 0.1, -2.0, 17.25, 1e6, 3.0)
# relative steps: the first five vanish in float32 (2**-24 ~ 6e-8), the others do not
STEPS = (0.0, 1e-12, -1e-12, 1e-10, -3e-9, 1e-6, -1e-4, 1e-3)
EXTREMES = (0.0, -0.0, 1e-46, -1e-46, 1e-40, 3.4e38, 3.5e38, -3.5e38, 1e308, -1e308, 1e-300)
SCORE_MODES = ("ties", "float32", "ints", "uniform", "rounded", "extreme")


def doc_id(rng: random.Random, i: int) -> str:
    form = rng.randrange(7)
    return (
        f"d{i}",
        str(i),
        f"D{i:03d}",
        f"doc_{rng.choice('abXY')}{i}",
        f"{i}z",
        f"é{i}",
        f"d.{i}-x",
    )[form]


def score(rng: random.Random, mode: str, base: list[float]) -> float:
    if mode == "ties":
        return rng.choice(base)
    if mode == "float32":
        b = rng.choice(base)
        return b + b * rng.choice(STEPS) if b else rng.choice((0.0, 1e-45, 1e-39))
    if mode == "ints":
        return float(rng.randint(-3, 3))
    if mode == "uniform":
        return rng.uniform(-5.0, 5.0)
    if mode == "rounded":
        return round(rng.random(), rng.choice((1, 2, 3)))
    return rng.choice(EXTREMES)


@st.composite
def topic_specs(draw: Any) -> dict[str, Any]:
    return {
        "depth": draw(
            st.one_of(
                st.integers(0, 12),
                st.integers(0, 60),
                st.sampled_from((99, 100, 101, 999, 1000, 1001)),
            )
        ),
        "mode": draw(st.sampled_from(SCORE_MODES)),
        "judged": draw(st.sampled_from((0.0, 0.1, 0.5, 0.9, 1.0))),
        "max_label": draw(st.sampled_from((0, 1, 2, 3, 4, 4, 10, 50))),
        "negative": draw(st.booleans()),
        "no_relevant": draw(st.booleans()),
        "unretrieved_judged": draw(st.integers(0, 25)),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


def build_topic(spec: dict[str, Any]) -> tuple[dict[str, int], dict[str, float]]:
    rng = random.Random(spec["seed"])
    n = spec["depth"] + spec["unretrieved_judged"]
    ids: list[str] = []
    seen: set[str] = set()
    while len(ids) < n:
        d = doc_id(rng, rng.randrange(3 * n + 10))
        if d not in seen:
            seen.add(d)
            ids.append(d)
    retrieved = ids[: spec["depth"]]
    base = rng.sample(SCORE_POOL, rng.randint(1, 3))
    run = {d: score(rng, spec["mode"], base) for d in retrieved}
    low = -2 if spec["negative"] else 0
    high = 0 if spec["no_relevant"] else spec["max_label"]
    qrels = {
        d: rng.randint(low, high) for d in ids if rng.random() < spec["judged"] or d not in run
    }
    if qrels and max(qrels.values()) < 0:  # pytrec_eval crashes on such a topic (docstring)
        qrels[rng.choice(sorted(qrels))] = 0
    return qrels, run


@st.composite
def judged_runs(draw: Any) -> tuple[Qrels, Run]:
    """(qrels, run) dicts; at least one topic is in both with documents retrieved."""
    qids = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=6, unique=True))
    roles = [draw(st.sampled_from(("both", "both", "both", "qrels", "run"))) for _ in qids]
    roles[0] = "both"
    qrels: Qrels = {}
    run: Run = {}
    for i, (qid, role) in enumerate(zip(qids, roles, strict=True)):
        spec = draw(topic_specs())
        if i == 0:
            spec["depth"] = max(spec["depth"], 1)
        q, r = build_topic(spec)
        if role != "run":
            if i == 0 and not q:
                q = {next(iter(r)): 0}
            qrels[qid] = q
        if role != "qrels":
            run[qid] = r
    return qrels, run


def write_files(folder: Path, qrels: Qrels, run: Run) -> tuple[Path, Path]:
    rng = random.Random(len(qrels) * 1000 + len(run))
    qrels_path, run_path = folder / "qrels", folder / "run"
    with qrels_path.open("w", encoding="utf-8") as fh:
        for qid, docs in qrels.items():
            for doc, rel in docs.items():
                fh.write(f"{qid} 0 {doc} {rel}\n")
    with run_path.open("w", encoding="utf-8") as fh:
        for qid, docs in run.items():
            for doc, s in docs.items():  # rank column deliberately meaningless
                fh.write(f"{qid}\tQ0\t{doc}\t{rng.randint(0, 5)}\t{s!r}\thyp\n")
    return qrels_path, run_path


def shared_topics(qrels: Qrels, run: Run) -> set[str]:
    return {q for q in run if qrels.get(q)}


# --------------------------------------------------------------------------- depth

UNJUDGED = "zz-never-judged"  # no generated doc id looks like this


def trec_eval_order(docs: dict[str, float]) -> list[tuple[str, float]]:
    """trec_eval 9.x's ranking: float32 score descending, then doc id bytewise descending."""
    with np.errstate(over="ignore"):
        as_float32 = np.asarray(list(docs.values()), dtype=np.float64).astype(np.float32)
    keyed = zip(as_float32.tolist(), (d.encode() for d in docs), docs.items(), strict=True)
    return [item for *_, item in sorted(keyed, key=lambda k: (k[0], k[1]), reverse=True)]


def pytrec_at_depth(
    qrels: Qrels, run: Run, depth: int | None, *, relevance_level: int, judged_only: bool
) -> dict[str, dict[str, float]]:
    """pytrec_eval has no ``-M``: cut the run ourselves (trec_eval cuts before ``-J``).

    Depth 0 leaves every topic with an empty ranking. pytrec_eval mis-handles an empty run
    dict (it reports ``num_rel`` 0), so it gets the same empty ranking the way trec_eval
    builds it under ``-J``: one unjudged document, dropped.
    """
    if depth is None:
        return pytrec(qrels, run, relevance_level=relevance_level, judged_only=judged_only)
    if depth == 0:
        nothing = {q: {UNJUDGED: 0.0} for q, docs in run.items() if docs}
        return pytrec(qrels, nothing, relevance_level=relevance_level, judged_only=True)
    cut = {q: dict(trec_eval_order(docs)[:depth]) for q, docs in run.items()}
    return pytrec(qrels, cut, relevance_level=relevance_level, judged_only=judged_only)


# --------------------------------------------------------------------------- the tests

SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

DEPTHS = st.one_of(st.none(), st.none(), st.integers(0, 12), st.integers(0, 1100))


# The generated runs leave judged queries out on purpose, so one may answer fewer than half
# of them; the warning that says so is tested in tests/unit/evaluation/test_overlap.py.
@pytest.mark.filterwarnings("ignore::cranfield.errors.QueryOverlapWarning")
@settings(max_examples=400, deadline=None, suppress_health_check=SLOW_DATA)
@given(
    data=judged_runs(),
    relevance_level=st.sampled_from((1, 2)),
    judged_only=st.booleans(),
    depth=DEPTHS,
)
def test_api_matches_pytrec_eval(
    data: tuple[Qrels, Run], relevance_level: int, judged_only: bool, depth: int | None
) -> None:
    qrels, run = data
    empty = {q for q in shared_topics(qrels, run) if not run[q]}
    expected = pytrec_at_depth(
        qrels, run, depth, relevance_level=relevance_level, judged_only=judged_only
    )
    assert set(expected) | empty == shared_topics(qrels, run)
    compare_api(
        qrels,
        run,
        expected,
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        empty_run_topics=empty,
    )


def parse_trec_eval(text: str) -> Iterator[tuple[str, str, str]]:
    for line in text.splitlines():
        label, qid, value = line.split("\t")
        yield label.rstrip(), qid, value.strip()


def printed_matches(text: str, want: float, *, integer: bool) -> bool:
    """Is ``text`` what trec_eval prints for ``want`` (``%ld`` or ``%6.4f``)?"""
    if math.isnan(want):
        return text in ("nan", "-nan")
    if integer:
        return int(text) == want
    return abs(float(text) - want) <= 5e-5 + 1e-12


def aggregate(key: str, values: list[float]) -> float:
    if key == "num_q":
        return float(len(values))
    if key in INTEGER_VALUED:
        return float(sum(values))
    mean = math.fsum(values) / len(values)
    return math.exp(mean) if key in LOG_PER_TOPIC else mean


@settings(max_examples=200, deadline=None, suppress_health_check=SLOW_DATA)
@given(
    data=judged_runs(),
    relevance_level=st.sampled_from((1, 2)),
    judged_only=st.booleans(),
    depth=DEPTHS,
)
def test_cli_compat9_matches_pytrec_eval(
    data: tuple[Qrels, Run], relevance_level: int, judged_only: bool, depth: int | None
) -> None:
    """``cranfield trec-eval --compat 9 -q -m all_trec`` on files prints pytrec_eval's values."""
    qrels, run = data
    expected = pytrec_at_depth(
        qrels, run, depth, relevance_level=relevance_level, judged_only=judged_only
    )
    expected = {q: v for q, v in expected.items() if run[q]}  # an empty run topic has no line
    flags = ["--compat", "9", "-q", "-m", "all_trec", "-l", str(relevance_level)]
    flags += ["-J"] if judged_only else []
    flags += [] if depth is None else [f"-M{depth}"]
    with tempfile.TemporaryDirectory() as tmp:
        qrels_path, run_path = write_files(Path(tmp), qrels, run)
        out, err = io.StringIO(), io.StringIO()
        code = trec_eval([*flags, str(qrels_path), str(run_path)], out, err)
    assert code == 0, err.getvalue()
    printed = {(label, qid): value for label, qid, value in parse_trec_eval(out.getvalue())}
    keys = set(BY_KEY)
    per_topic_keys = (keys - NOT_PRINTED_PER_TOPIC) | {"relstring"}
    assert {(label, qid) for label, qid in printed if qid != "all"} == {
        (key, qid) for qid in expected for key in per_topic_keys
    }
    assert {label for label, qid in printed if qid == "all"} == keys | {"runid"}
    assert printed[("runid", "all")] == "hyp"
    wrong = []
    for qid, values in expected.items():
        for key, want in values.items():
            if key in NOT_PRINTED_PER_TOPIC:
                continue
            if not printed_matches(printed[(key, qid)], want, integer=key in INTEGER_VALUED):
                wrong.append((qid, key, want, printed[(key, qid)]))
    for key in keys:
        want = aggregate(key, [expected[q][key] for q in expected])
        if not printed_matches(printed[(key, "all")], want, integer=key in INTEGER_VALUED):
            wrong.append(("all", key, want, printed[(key, "all")]))
    assert not wrong, (
        f"{len(wrong)} lines differ (qid, measure, pytrec_eval, printed): {wrong[:12]}"
    )


def test_scores_equal_in_float32_tie_and_break_by_docno() -> None:
    """research/trec_eval.md §8: A (relevant) 0.100000000001 vs B 0.1 is a tie in 9.0.8."""
    qrels = {"q": {"A": 1}}
    run = {"q": {"A": 0.100000000001, "B": 0.1}}
    assert pytrec(qrels, run, relevance_level=1, judged_only=False)["q"]["recip_rank"] == 0.5
    assert cranfield.evaluate(qrels, run, "recip_rank", float32=True, compat=9)["RR"] == 0.5
    assert cranfield.evaluate(qrels, run, "recip_rank")["RR"] == 1.0


# --------------------------------------------------------------------------- real runs

DL = require(REAL / "trec-dl-passage")
DL_RUNS = sorted((DL / "runs").glob("dl*/*.txt.gz"))


@functools.cache
def read_qrels_dict(path: Path) -> Qrels:
    out: Qrels = {}
    with path.open() as fh:
        for line in fh:
            qid, _, doc, rel = line.split()
            assert doc not in out.setdefault(qid, {})
            out[qid][doc] = int(rel)
    return out


@functools.cache
def read_run_dict(path: Path) -> Run:
    out: Run = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            qid, _, doc, _, s, _ = line.split()
            assert doc not in out.setdefault(qid, {})
            out[qid][doc] = float(s)
    return out


def test_every_dl_run_is_used() -> None:
    assert len(DL_RUNS) == 26


@pytest.mark.parametrize("judged_only", [False, True], ids=["all-docs", "judged-only"])
@pytest.mark.parametrize("relevance_level", [1, 2], ids=["l1", "l2"])
@pytest.mark.parametrize(
    "run_path", DL_RUNS, ids=lambda p: f"{p.parent.name}/{p.name.removesuffix('.txt.gz')}"
)
def test_real_dl_runs_match_pytrec_eval(
    run_path: Path, relevance_level: int, judged_only: bool
) -> None:
    """The 26 TREC DL 2019-2021 passage runs: every shared measure of every topic, to 1e-9."""
    qrels_path = DL / "qrels" / f"qrels.{run_path.parent.name}-passage.txt"
    qrels = read_qrels_dict(qrels_path)
    run = read_run_dict(run_path)
    expected = pytrec(qrels, run, relevance_level=relevance_level, judged_only=judged_only)
    assert len(expected) == {"dl19": 43, "dl20": 54, "dl21": 53}[run_path.parent.name]
    # cranfield reads the files itself: its reader is part of what is compared.
    compare_api(
        qrels_path,
        run_path,
        expected,
        relevance_level=relevance_level,
        judged_only=judged_only,
        empty_run_topics=set(),
    )
