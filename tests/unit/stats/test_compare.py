"""compare(): query alignment, policies, names, baselines, options, and real TREC data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import cranfield
from cranfield.errors import (
    EvaluationError,
    InputError,
    MeasureError,
    MissingTopicError,
    OptionError,
    QrelsNoteWarning,
)
from cranfield.report.comparison import to_text
from cranfield.stats import Comparison, adjust_p_values, compare, compare_scores
from tests.unit.conftest import ROBUST03, robust03_runs

QRELS = {
    "q1": {"d1": 1, "d2": 1, "d3": 0},
    "q2": {"d1": 1, "d4": 2},
    "q3": {"d5": 1, "d6": 0},
    "q4": {"d7": 1, "d8": 1},
    "q5": {"d9": 1},
}
A = {
    "q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0},
    "q2": {"x": 3.0, "d1": 2.0, "d4": 1.0},
    "q3": {"d6": 2.0, "d5": 1.0},
    "q4": {"d7": 2.0, "y": 1.0},
    "q5": {"d9": 1.0},
}
B = {
    "q5": {"z": 2.0, "d9": 1.0},
    "q4": {"d8": 3.0, "d7": 2.0},
    "q3": {"d5": 2.0, "d6": 1.0},
    "q2": {"d4": 3.0, "d1": 2.0},
    "q1": {"d2": 2.0, "d1": 1.5, "d3": 1.0},
}
C = {"q1": {"d3": 1.0}, "q2": {"d1": 1.0}, "q3": {"d5": 1.0}}  # misses q4 and q5


def test_scores_aligned_by_query_id_never_by_position() -> None:
    c = compare(QRELS, {"A": A, "B": B}, ["AP", "P@1"], tests="t-test")
    assert c.topics == ["q1", "q2", "q3", "q4", "q5"]
    for m in c.measures:
        for j, run in enumerate(c.runs):
            per_topic = cranfield.evaluate(QRELS, {"A": A, "B": B}[run], m).per_query(m)
            assert c.scores[m][:, j].tolist() == [per_topic[t] for t in c.topics]
    # Reversing the dict order of a run changes nothing.
    rev = compare(QRELS, {"A": dict(reversed(A.items())), "B": B}, ["AP", "P@1"], tests="t-test")
    assert rev.to_json() == c.to_json()


def test_pair_orientation_and_effects() -> None:
    c = compare(QRELS, {"A": A, "B": B}, "AP", tests=["t-test", "sign"])
    p = c.pair("B", "A", "AP")
    assert (p.control, p.treatment) == ("A", "B")
    d = c.scores["AP"][:, 1] - c.scores["AP"][:, 0]
    assert p.mean_difference == pytest.approx(d.mean())
    assert (p.wins, p.ties, p.losses) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
    assert p.improved == p.wins / 5
    assert p.hurt == p.losses / 5
    assert p.cohens_dz == pytest.approx(d.mean() / d.std(ddof=1))
    r = np.where(d < 0, 2 * d, d)
    assert p.urisk == pytest.approx(r.mean())
    assert p.trisk == pytest.approx(r.mean() / (r.std(ddof=1) / np.sqrt(5)))
    assert p.tests["t-test"].p_value == stats.ttest_rel(d, np.zeros(5)).pvalue
    lo, hi = p.intervals["t"]
    assert lo < p.mean_difference < hi


def test_missing_zero_flags_the_short_run() -> None:
    c = compare(QRELS, {"A": A, "B": B, "C": C}, "AP")
    assert len(c.topics) == 5
    assert c.missing_topics == {"C": ["q4", "q5"]}
    assert c.scores["AP"][3:, 2].tolist() == [0.0, 0.0]
    notes = c.describe()
    assert notes[0].startswith("5 queries: every judged query")
    assert "† C has no ranking for 2 of the 5 judged queries (scored 0)." in notes
    assert "C †" in to_text(c)


def test_missing_skip_uses_the_common_queries() -> None:
    c = compare(QRELS, {"A": A, "B": B, "C": C}, "AP", missing="skip")
    assert c.topics == ["q1", "q2", "q3"]
    assert c.dropped_topics == ["q4", "q5"]
    assert c.missing_topics == {"C": ["q4", "q5"]}
    assert "2 judged queries left out" in c.describe()[0]


def test_missing_error_refuses() -> None:
    with pytest.raises(MissingTopicError):
        compare(QRELS, {"A": A, "C": C}, "AP", missing="error")


def test_baseline_mode() -> None:
    c = compare(QRELS, {"A": A, "B": B, "C": C}, ["AP", "P@1"], baseline="B")
    assert c.baseline == "B"
    assert [(p.control, p.treatment) for p in c.pairs] == [("B", "A"), ("B", "C")] * 2
    assert compare(QRELS, {"A": A, "B": B}, "AP", baseline=1).baseline == "B"
    assert "B (baseline)" in to_text(c)


def test_all_pairs_order() -> None:
    c = compare(QRELS, [A, B, C], "AP", names=["a", "b", "c"])
    assert [(p.control, p.treatment) for p in c.pairs] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert c.n_comparisons == 3


def test_family_is_pairs_times_measures() -> None:
    c = compare(QRELS, {"A": A, "B": B, "C": C}, ["AP", "P@1", "RR"], correction="holm")
    raw = np.array([p.tests["t-test"].p_value for p in c.pairs])
    adjusted = np.array([p.tests["t-test"].p_adjusted for p in c.pairs])
    np.testing.assert_array_equal(adjusted, adjust_p_values(raw, "holm"))
    assert "Holm correction over 9 comparisons (3 pairs × 3 measures)" in " ".join(c.describe())


def test_tukey_is_not_corrected_again() -> None:
    c = compare(QRELS, {"A": A, "B": B, "C": C}, ["AP", "P@1"], tests=["tukey-hsd"])
    for p in c.pairs:
        assert p.tests["tukey-hsd"].p_adjusted == p.tests["tukey-hsd"].p_value
    assert "adjusted for all 3 pairs of runs within each measure" in c.describe()[2]


def test_run_names_from_tags_or_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    paths = []
    for name, run, tag in (("bm25.txt.gz", A, "tagA"), ("dense.run", B, "tagB")):
        lines = [
            f"{q} Q0 {d} {i + 1} {s} {tag}\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs.items())
        ]
        path = tmp_path / name
        if name.endswith(".gz"):
            import gzip

            path.write_bytes(gzip.compress("".join(lines).encode()))
        else:
            path.write_text("".join(lines))
        paths.append(path)
    assert compare(QRELS, paths, "AP").runs == ["bm25", "dense"]  # the one naming rule
    assert compare(QRELS, paths, "AP", names="file").runs == ["bm25", "dense"]
    assert compare(QRELS, paths, "AP", names="tag").runs == ["tagA", "tagB"]
    by_path = compare(QRELS, paths, "AP", baseline=str(paths[1]))
    assert by_path.baseline == "dense"
    with pytest.raises(ValueError, match="The 'runs' option must be distinct runs, each given"):
        compare(QRELS, [paths[0], paths[0]], "AP")
    copy = paths[0].with_name("copy.gz")
    copy.write_bytes(paths[0].read_bytes())
    with pytest.raises(InputError, match=r"copy\.gz: has the run tag 'tagA', as .* has; name"):
        compare(QRELS, [paths[0], copy], "AP", names="tag")  # the files' data: not an option
    twins = [tmp_path / "a" / "bm25.run", tmp_path / "b" / "bm25.run"]
    for twin, path in zip(twins, paths, strict=True):
        twin.parent.mkdir()
        twin.write_bytes(path.read_bytes())
    assert compare(QRELS, twins, "AP").runs == ["a/bm25", "b/bm25"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tests": "z-test"}, ValueError, "The 'tests' option must be among .* got 'z-test'"),
        ({"tests": []}, ValueError, "The 'tests' option must be at least one of"),
        (
            {"correction": "sidak"},
            ValueError,
            "The 'correction' option must be one of .* got 'sidak'",
        ),
        ({"alpha": 0}, ValueError, "The 'alpha' option must be a number > 0 and < 1, got 0"),
        ({"alpha": 1.5}, ValueError, "got 1.5"),
        ({"n_resamples": 0}, ValueError, "The 'n_resamples' option must be an integer >= 1, got 0"),
        (
            {"intervals": ["wald"]},
            ValueError,
            "The 'intervals' option must be one of .* got 'wald'",
        ),
        ({"risk_aversion": -1}, ValueError, "The 'risk_aversion' option must be a number >= 0"),
        ({"baseline": "D"}, ValueError, r"'baseline' option must be a run's name or path \(A, B\)"),
        (
            {"baseline": 5},
            OptionError,
            "The 'baseline' option must be an integer >= 0 and <= 1, got 5",
        ),
        ({"seed": -3}, ValueError, "The 'seed' option must be an integer >= 0, a numpy Generator"),
        ({"names": "tags"}, ValueError, "The 'names' option must be one of 'file', 'tag' or a"),
    ],
)
def test_option_errors_name_the_bad_value(kwargs, error, message) -> None:  # type: ignore[no-untyped-def]
    runs = [A, B] if "names" in kwargs else {"A": A, "B": B}
    if "seed" in kwargs:
        kwargs = {**kwargs, "tests": "randomization"}
    with pytest.raises(error, match=message):
        compare(QRELS, runs, "AP", **kwargs)


def test_other_errors() -> None:
    with pytest.raises(MeasureError):
        compare(QRELS, {"A": A, "B": B}, "nDGC@10")
    with pytest.raises(ValueError, match="at least 2 runs, got 1"):
        compare(QRELS, {"A": A}, "AP")
    with pytest.raises(ValueError, match="'runs' option must be a list or a dict"):
        compare(QRELS, "run.txt", "AP")
    with pytest.raises(EvaluationError, match="at least 2 queries common to all runs, got 1"):
        compare({"q1": {"d1": 1}}, {"A": {"q1": {"d1": 1.0}}, "B": {"q1": {"d2": 1.0}}}, "AP")
    c = compare(QRELS, {"A": A, "B": B}, "AP")
    with pytest.raises(MeasureError, match="P@5 was not compared; compared: AP"):
        c.pair("A", "B", "P@5")
    with pytest.raises(OptionError, match="The 'b' option must be one of 'A', 'B', got 'Z'"):
        c.pair("A", "Z", "AP")
    with pytest.raises(
        OptionError, match="The 'b' option must be a run compared with 'A', got 'A'"
    ):
        c.pair("A", "A", "AP")
    with pytest.raises(OptionError, match="The 'test' option must be one of 't-test', got 'sign'"):
        c.significant("sign")


def test_measure_lookup_accepts_aliases() -> None:
    c = compare(QRELS, {"A": A, "B": B}, ["map"])
    assert c.measures == ["AP"]
    assert c.pair("A", "B", "map") is c.pair("A", "B", "AP")


def test_seed_recorded_only_for_random_procedures() -> None:
    assert compare(QRELS, {"A": A, "B": B}, "AP").seed is None
    c = compare(QRELS, {"A": A, "B": B}, "AP", tests="bootstrap", seed=5)
    assert c.seed == 5
    fresh = compare(QRELS, {"A": A, "B": B}, "AP", tests="bootstrap")
    again = compare(QRELS, {"A": A, "B": B}, "AP", tests="bootstrap", seed=fresh.seed)
    assert fresh.to_json() == again.to_json()


def test_compare_scores_validation() -> None:
    with pytest.raises(ValueError, match="scores must hold at least 2 runs, got 1"):
        compare_scores({"a": {"AP": [0.1, 0.2, 0.3]}})
    with pytest.raises(ValueError, match="has 2 values, expected 3"):
        compare_scores({"a": {"AP": [0.1, 0.2, 0.3]}, "b": {"AP": [0.1, 0.2]}})
    with pytest.raises(ValueError, match="every run must give the same measures"):
        compare_scores({"a": {"AP": [0.1, 0.2]}, "b": {"P@5": [0.1, 0.2]}})
    with pytest.raises(ValueError, match="must be finite"):
        compare_scores({"a": {"AP": [0.1, float("nan")]}, "b": {"AP": [0.1, 0.2]}})
    with pytest.raises(OptionError, match="The 'topics' option must be 2 distinct query ids"):
        compare_scores({"a": {"AP": [0.1, 0.3]}, "b": {"AP": [0.1, 0.2]}}, topics=["q", "q"])


# --------------------------------------------------------------------------- real data


def test_robust03_means_match_trec_eval(robust03: Comparison) -> None:
    assert len(robust03.runs) == 17
    assert len(robust03.topics) == 100
    assert robust03.runs[0] == "InexpC2"
    assert robust03.measures == ["AP", "nDCG@10"]
    # Sanity values of the data's README (trec_eval 10.0-rc3, default options).
    assert round(robust03.means["AP"]["pircRBa1"], 4) == 0.3101
    assert round(robust03.means["nDCG@10"]["THUIRr0301"], 4) == 0.4574
    assert round(robust03.means["AP"]["rutcor03100"], 4) == 0.0737
    assert robust03.missing_topics == {}
    assert len(robust03.pairs) == 2 * 136


def test_robust03_t_test_p_values_equal_scipy(robust03: Comparison) -> None:
    # Per-query values computed independently through evaluate(), aligned by query id.
    qrels = cranfield.load_qrels(ROBUST03 / "qrels.robust03.txt.gz")
    paths = robust03_runs()
    per_run = {}
    for path in (paths[0], paths[9], paths[13], paths[14]):  # InexpC2, aplrob03a, pircRBa1, rutcor
        run = cranfield.load_run(path)
        per_run[run.tag] = cranfield.evaluate(qrels, run, ["AP", "nDCG@10"])
    for m in ("AP", "nDCG@10"):
        for a in per_run:
            for b in per_run:
                if a >= b:
                    continue
                p = robust03.pair(a, b, m)
                x = per_run[p.treatment].per_query(m)
                y = per_run[p.control].per_query(m)
                topics = sorted(x)
                ref = stats.ttest_rel([x[t] for t in topics], [y[t] for t in topics])
                assert p.tests["t-test"].p_value == ref.pvalue
                assert p.tests["t-test"].statistic == ref.statistic


def test_robust03_holm_over_272_tests(robust03: Comparison) -> None:
    for test in ("t-test", "randomization"):
        raw = np.array([p.tests[test].p_value for p in robust03.pairs])
        adj = np.array([p.tests[test].p_adjusted for p in robust03.pairs])
        np.testing.assert_array_equal(adj, adjust_p_values(raw, "holm"))
    assert not robust03.exact_randomization
    assert robust03.seed == 42
    # Randomization p-values are multiples of 1 / 10,001 and at least that.
    rand = np.array([p.tests["randomization"].p_value for p in robust03.pairs])
    np.testing.assert_allclose(np.round(rand * 10_001), rand * 10_001, rtol=0, atol=1e-6)
    assert rand.min() >= 1 / 10_001
    # The best run beats the worst one, significantly, whatever the test.
    best = robust03.pair("pircRBa1", "rutcor03100", "AP")
    assert all(o.significant for o in best.tests.values())
    assert "rutcor03100" in robust03.better_than("pircRBa1", "AP")


def test_dl19_baseline_comparison(dl19: Comparison) -> None:
    assert dl19.runs[:2] == ["bm25-rm3", "bm25"]  # file names: every run tag is 'rank'
    assert dl19.baseline == "bm25"
    assert len(dl19.topics) == 43
    assert round(dl19.means["nDCG@10"]["bm25"], 4) == 0.5058
    assert round(dl19.means["AP"]["repllama"], 4) == 0.5298
    assert len(dl19.pairs) == 2 * 11
    for p in dl19.pairs:
        assert p.control == "bm25"
        lo, hi = p.intervals["bca"]
        assert lo <= p.mean_difference <= hi
    strong = dl19.pair("bm25", "repllama", "nDCG@10")
    assert strong.tests["randomization"].significant
    assert strong.mean_difference > 0.2


def test_what_reading_the_qrels_did_is_among_the_notes(tmp_path: Path) -> None:
    """A merged duplicate judgment (or any other reading note) is said once in the
    comparison's notes, however many runs were read against the qrels."""
    qrels = tmp_path / "qrels.txt"
    lines = [f"{q} 0 {d} {r}" for q, docs in QRELS.items() for d, r in docs.items()]
    qrels.write_text("\n".join([*lines, lines[0]]) + "\n")
    with pytest.warns(QrelsNoteWarning, match="repeated judgment line"):
        c = compare(qrels, {"A": A, "B": B}, "AP", tests="t-test")
    merged = [n for n in c.describe() if "repeated judgment line(s) merged" in n]
    assert merged == [
        f"{qrels}: 1 repeated judgment line(s) merged (the first: query 'q1', document 'd1')."
    ]
    assert c.describe().index(merged[0]) == 1  # right after the sentence on the queries
    assert merged[0] in to_text(c)
    plain = compare(QRELS, {"A": A, "B": B}, "AP", tests="t-test").table
    assert plain is not None
    assert plain.notes == ()


def test_a_comparison_shows_its_means_and_pairs_as_inert_tables() -> None:
    from cranfield.stats import compare_scores

    c = compare_scores(
        {
            "<script>x</script>": {"AP": [0.20, 0.30, 0.10, 0.40, 0.25, 0.35]},
            "dense": {"AP": [0.35, 0.45, 0.20, 0.60, 0.40, 0.50]},
        }
    )
    html = c._repr_html_()
    assert "<script>" not in html
    assert html.count("<table") == 2
    assert "&quot;&lt;script&gt;x&lt;/script&gt;&quot;</td><td>0.266667" in html
    p = c.pairs[0].tests["t-test"].p_adjusted
    assert f"<td>{p:.6f}</td>" in html  # the p-value, as polars prints it
