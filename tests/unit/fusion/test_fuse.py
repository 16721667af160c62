"""cranfield.fusion.fuse on cases worked by hand: every normalisation, every method, the tie
rule, documents missing from a run, queries missing from a run, and the errors."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from cranfield import load_run
from cranfield.data.run import Run
from cranfield.errors import EvaluationError, OptionError
from cranfield.fusion import METHODS, NORMALIZATIONS, fuse
from cranfield.fusion.fuse import fusion_inputs
from cranfield.fusion.methods import CONDORCET
from tests.conftest import one_sentence

# a ranks d1 > d2 > d3; b ranks d3 > d1 (d2 missing from b)
A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d3": 0.9, "d1": 0.5}}


def runs(a: object = A, b: object = B) -> list[Run]:
    return [load_run(a, name="a"), load_run(b, name="b")]


def scores(run: Run, query: str = "q1") -> dict[str, float]:
    return run.to_dict()[query]


def test_every_method_and_normalisation_is_declared_with_a_paper_and_a_missing_rule() -> None:
    assert len(METHODS) == 25
    for spec in METHODS.values():
        assert spec.citation
        assert spec.missing
        assert spec.formula
    assert set(NORMALIZATIONS) == {
        "none",
        "min-max",
        "min-max-inverted",
        "max",
        "sum",
        "zmuv",
        "rank",
        "borda",
    }


# min-max of a: d1 1, d2 0.5, d3 0; of b: d3 1, d1 0
@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("sum", {"d1": 1.0, "d3": 1.0, "d2": 0.5}),
        ("mnz", {"d1": 2.0, "d3": 2.0, "d2": 0.5}),
        ("anz", {"d1": 0.5, "d3": 0.5, "d2": 0.5}),
        ("max", {"d1": 1.0, "d3": 1.0, "d2": 0.5}),
        ("min", {"d1": 0.0, "d3": 0.0, "d2": 0.5}),  # min over the runs that retrieved it
        ("med", {"d1": 0.5, "d3": 0.5, "d2": 0.5}),
    ],
)
def test_comb_methods_on_min_max_scores(method: str, expected: dict[str, float]) -> None:
    got = scores(fuse(runs(), method))  # type: ignore[arg-type]
    assert got == pytest.approx(expected)


def test_the_fused_run_is_ranked_by_score_then_doc_id_descending() -> None:
    # sum: d1 and d3 tie at 1.0: d3 before d1 (doc id descending, trec_eval's rule)
    assert list(scores(fuse(runs(), "sum"))) == ["d3", "d1", "d2"]


def test_gmnz_weighted_and_mixed() -> None:
    got = scores(fuse(runs(), "gmnz", params={"gamma": 0.5}))
    assert got["d1"] == pytest.approx(1.0 * math.sqrt(2))
    assert got["d2"] == pytest.approx(0.5)
    got = scores(fuse(runs(), "wsum", weights=[0.25, 0.75]))
    assert got == pytest.approx({"d1": 0.25, "d3": 0.75, "d2": 0.125})
    got = scores(fuse(runs(), "wmnz", weights=[0.25, 0.75]))  # (sum s) * (sum of w present)
    assert got == pytest.approx({"d1": 1.0, "d3": 1.0, "d2": 0.5 * 0.25})
    got = scores(fuse(runs(), "mixed", weights=[0.25, 0.75]))  # sqrt(n) * sum w s
    assert got == pytest.approx({"d1": 0.25 * math.sqrt(2), "d3": 0.75 * math.sqrt(2), "d2": 0.125})


def test_rank_methods() -> None:
    # positions: a d1 0, d2 1, d3 2; b d3 0, d1 1
    got = scores(fuse(runs(), "rrf", params={"k": 60}))
    assert got == pytest.approx({"d1": 1 / 61 + 1 / 62, "d3": 1 / 63 + 1 / 61, "d2": 1 / 62})
    got = scores(fuse(runs(), "isr"))  # n * sum 1/(i+1)^2
    assert got == pytest.approx({"d1": 2 * (1 + 1 / 4), "d3": 2 * (1 / 9 + 1), "d2": 1 / 4})
    got = scores(fuse(runs(), "log_isr"))  # ln(n) * ...: ln 1 = 0 for d2
    assert got == pytest.approx({"d1": math.log(2) * 1.25, "d3": math.log(2) * (10 / 9), "d2": 0})
    got = scores(fuse(runs(), "logn_isr", params={"sigma": 0.5}))
    assert got["d2"] == pytest.approx(math.log(1.5) / 4)
    got = scores(fuse(runs(), "rbc", params={"phi": 0.5}))  # (1 - phi) phi^i
    assert got == pytest.approx({"d1": 0.5 + 0.25, "d3": 0.125 + 0.5, "d2": 0.25})


def test_bordafuse_gives_a_missing_document_the_mean_of_the_points_left() -> None:
    # 3 candidates; a: d1 3, d2 2, d3 1; b: d3 3, d1 2, d2 (3 - 2 + 1) / 2 = 1
    assert scores(fuse(runs(), "bordafuse")) == {"d1": 5.0, "d3": 4.0, "d2": 3.0}
    got = scores(fuse(runs(), "w_bordafuse", weights=[2.0, 1.0]))
    assert got == {"d1": 8.0, "d2": 5.0, "d3": 5.0}


@pytest.mark.parametrize(
    ("norm", "expected_a"),
    [
        ("none", {"d1": 3.0, "d2": 2.0, "d3": 1.0}),
        ("min-max", {"d1": 1.0, "d2": 0.5, "d3": 0.0}),
        ("min-max-inverted", {"d1": 0.0, "d2": 0.5, "d3": 1.0}),
        ("max", {"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3}),
        ("sum", {"d1": 2 / 3, "d2": 1 / 3, "d3": 0.0}),  # (s - 1) / (6 - 3 * 1)
        ("zmuv", {"d1": math.sqrt(1.5), "d2": 0.0, "d3": -math.sqrt(1.5)}),  # std sqrt(2/3)
        ("rank", {"d1": 1.0, "d2": 2 / 3, "d3": 1 / 3}),
    ],
)
def test_normalisations(norm: str, expected_a: dict[str, float]) -> None:
    # fusing a with a run of another query only leaves a's normalised scores on q1
    other = {"q2": {"x": 1.0}}
    fused = fuse(
        [load_run(A, name="a"), load_run({**other, "q1": {"zz": 5.0}}, name="b")],
        "wsum",
        norm=norm,  # type: ignore[arg-type]
        weights=[1.0, 0.0],
    )
    got = {d: s for d, s in scores(fused).items() if d != "zz"}
    assert got == pytest.approx(expected_a)


def test_borda_normalisation_fills_every_run() -> None:
    # c = 3; a: 1, 2/3, 1/3; b: d3 1, d1 2/3, d2 missing 0.5 - (2 - 1) / 6 = 1/3
    got = scores(fuse(runs(), "sum", norm="borda"))
    assert got == pytest.approx({"d1": 5 / 3, "d3": 4 / 3, "d2": 1.0})
    # every run counts as retrieving every document: mnz multiplies by 2 for all
    assert scores(fuse(runs(), "mnz", norm="borda"))["d2"] == pytest.approx(2.0)


def test_constant_scores_divide_by_the_floor() -> None:
    got = scores(fuse(runs({"q1": {"d1": 2.0, "d2": 2.0}}, B), "max", norm="min-max"))
    assert got == pytest.approx({"d3": 1.0, "d1": 0.0, "d2": 0.0})


def test_a_query_missing_from_a_run_counts_as_an_empty_list() -> None:
    a = {"q1": {"d1": 1.0}, "q2": {"d5": 2.0, "d6": 1.0}}
    fused = fuse(runs(a, B), "rrf", params={"k": 0})
    assert fused.to_dict()["q2"] == {"d5": 1.0, "d6": 0.5}
    assert sorted(fused.topics) == ["q1", "q2"]


def test_ranks_from_the_input_order_as_pyserini() -> None:
    # the file lists d2 before d1 although d1 scores higher: pyserini's RRF reads the rank
    # column (the line order here), ranx and trec_eval the scores
    a = load_run({"q1": {"d2": 1.0, "d1": 2.0}}, name="a")
    b = load_run({"q1": {"d1": 5.0, "d2": 4.0}}, name="b")
    by_score = scores(fuse([a, b], "rrf", params={"k": 0}))
    by_input = scores(fuse([a, b], "rrf", params={"k": 0}, ranks="input"))
    assert by_score == {"d1": 2.0, "d2": 1.0}
    assert by_input == {"d2": 1.5, "d1": 1.5}
    assert list(by_input) == ["d2", "d1"]  # tie: doc id descending


def test_tied_input_scores_rank_by_doc_id_descending() -> None:
    a = load_run({"q1": {"d1": 1.0, "d2": 1.0}}, name="a")
    b = load_run({"q1": {"d9": 1.0}}, name="b")
    assert scores(fuse([a, b], "rrf", params={"k": 0})) == {"d2": 1.0, "d9": 1.0, "d1": 0.5}


def test_inputs_are_ranked_once_and_reused() -> None:
    inputs = fusion_inputs(runs())
    assert scores(fuse(inputs, "rrf")) == scores(fuse(runs(), "rrf"))
    assert inputs.queries == ["q1"]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: fuse(runs({"q1": {"d": 1.0}}, {"q2": {"d": 1.0}})), "share no query"),
        (lambda: fuse(runs(), "wsum", weights=[1.0]), "one weight per run (2: a, b)"),
        (lambda: fuse(runs(), "wsum", weights=[0.0, 0.0]), "not all 0"),
        (lambda: fuse(runs(), "wsum", weights=[-1.0, 2.0]), ">= 0"),
        (lambda: fuse(runs(), "rrf", weights=[1.0, 1.0]), "takes no weights"),
        (lambda: fuse(runs(), "rrf", params={"k": -1}), "an integer >= 0 for 'k' of method 'rrf'"),
        (lambda: fuse(runs(), "rbc", params={"phi": 1.0}), "< 1"),
        (lambda: fuse(runs(), "logn_isr", params={"sigma": 0}), "> 0"),
        (lambda: fuse(runs(), "rrf", params={"gamma": 1}), "it takes: k"),
        (lambda: fuse(runs(), "rrf", norm="borda"), "not 'borda'"),
        (lambda: fuse(runs(), "nope"), "'method'"),  # type: ignore[arg-type]
        (lambda: fuse([load_run(A, name="a")]), "at least 2 runs"),
        (lambda: fuse(runs({"q1": {"d": math.inf}}, B), "sum"), "finite"),
    ],
)
def test_bad_input_is_one_sentence(call: object, words: str) -> None:
    with pytest.raises((OptionError, EvaluationError)) as exc:
        call()  # type: ignore[operator]
    assert words in str(exc.value)
    one_sentence(exc)


@pytest.mark.parametrize(
    "method", sorted(m for m, s in METHODS.items() if not s.trained and m not in CONDORCET)
)
def test_grouping_by_hashes_equals_grouping_the_strings(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sorted 64-bit keys (query code, doc id hash) and polars' group_by on the strings,
    the path taken when two doc ids' hashes collide, give the same run."""
    import importlib

    module = importlib.import_module("cranfield.fusion.fuse")  # the package's fuse is the function

    a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"x": 1.0, "y": 0.5}}
    b = {"q1": {"d3": 0.9, "d1": 0.5, "d9": 0.1}, "q3": {"z": 2.0}}
    fast = fuse(runs(a, b), method, weights=[0.3, 0.7] if METHODS[method].weighted else None)  # type: ignore[arg-type]
    monkeypatch.setattr(module, "_grouped", lambda table, n: None)
    slow = fuse(runs(a, b), method, weights=[0.3, 0.7] if METHODS[method].weighted else None)  # type: ignore[arg-type]
    assert fast.topics == slow.topics
    for q, docs in fast.to_dict().items():
        assert docs == pytest.approx(slow.to_dict()[q])
    assert [list(d) for d in fast.to_dict().values()] == [list(d) for d in slow.to_dict().values()]


def test_runs_given_as_files_in_any_format_or_a_mapping(tmp_path: object) -> None:
    import json
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "a.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 1.0 a\n")
    (folder / "b.json").write_text(json.dumps(B))
    from_files = fuse([folder / "a.run", folder / "b.json"], "rrf", params={"k": 0})
    assert scores(from_files) == scores(fuse(runs(), "rrf", params={"k": 0}))
    assert scores(fuse({"x": A, "y": B}, "sum")) == scores(fuse(runs(), "sum"))


@pytest.mark.parametrize("method", ["sum", "rrf", "wmnz", "bordafuse"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grouping_where_hash_prefixes_meet_equals_grouping_the_strings(
    method: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With 8 bits of each doc id's hash in the packed keys, ids of one query share prefixes
    by the dozen; told apart by their whole hashes, they give the run of the wide keys, and
    the scores of the string path."""
    import importlib

    import numpy as np

    module = importlib.import_module("cranfield.fusion.fuse")
    rng = np.random.default_rng(seed)
    given = []
    for _ in range(3):
        given.append(
            {
                f"q{q}": {
                    f"d{d}": float(rng.integers(0, 50))
                    for d in rng.choice(400, size=int(rng.integers(1, 300)), replace=False)
                }
                for q in range(4)
                if rng.random() < 0.9 or q == 0
            }
        )
    three = [load_run(docs, name=f"r{i}") for i, docs in enumerate(given)]
    weights = [0.2, 0.5, 0.3] if METHODS[method].weighted else None
    wide = fuse(three, method, weights=weights)  # type: ignore[arg-type]
    monkeypatch.setattr(module, "_hash_bits", lambda rows, queries: 8)
    groups = module.fusion_inputs(three).groups
    assert groups is not None
    assert groups.row_hashes is not None
    prefixes = set(zip(groups.query_codes, groups.row_hashes[groups.first_rows] >> 56, strict=True))
    assert len(prefixes) < len(groups.starts)  # documents of one query share a prefix
    packed = fuse(three, method, weights=weights)  # type: ignore[arg-type]
    assert packed.frame.equals(wide.frame)  # the same sums, added in the order of the runs
    monkeypatch.setattr(module, "_grouped", lambda table, n: None)
    strings = fuse(three, method, weights=weights)  # type: ignore[arg-type]
    by_strings = strings.to_dict()  # sums added in another order: equal up to rounding
    assert packed.to_dict() == {q: pytest.approx(docs) for q, docs in by_strings.items()}


@pytest.mark.parametrize(
    ("method", "norm"),
    [
        (m, norm)
        for m, spec in sorted(METHODS.items())
        if not spec.trained and m not in CONDORCET
        for norm in ("min-max", "borda", "zmuv")
        if not (spec.reads_ranks and norm == "borda")  # refused: borda gives no ranks
    ],
)
def test_fusing_by_blocks_on_threads_gives_the_run_fused_whole(
    method: str, norm: str, fusion_in_blocks: Callable[[], list[object]]
) -> None:
    """Large inputs are fused by blocks of queries on threads; here every input is large and
    two cores are said to be there: the run is the one fused whole, bit for bit, and ranked
    the same (queries bytewise, whatever order the runs give them in)."""
    import numpy as np

    rng = np.random.default_rng(7)
    given = []
    for r in range(3):
        queries = [f"q{q}" for q in rng.permutation(12) if rng.random() < 0.85 or r == 0]
        given.append(
            {
                q: {
                    f"d{d}": float(rng.integers(0, 40)) / 4
                    for d in rng.choice(60, size=int(rng.integers(1, 40)), replace=False)
                }
                for q in queries
            }
        )
    three = [load_run(docs, name=f"r{i}") for i, docs in enumerate(given)]
    weights = [0.2, 0.5, 0.3] if METHODS[method].weighted else None
    whole = fuse(three, method, norm=norm, weights=weights)  # type: ignore[arg-type]
    blocks = fusion_in_blocks()
    threaded = fuse(three, method, norm=norm, weights=weights)  # type: ignore[arg-type]
    assert len(blocks) > 2  # fused by blocks
    assert threaded.frame.equals(whole.frame)
    assert threaded.query_stretches[0] == whole.query_stretches[0]
    assert (threaded.query_stretches[1] == whole.query_stretches[1]).all()
    assert (threaded.doc_keys == whole.doc_keys).all()
