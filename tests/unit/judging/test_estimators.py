"""The sampling estimators: hand-computed values, and NIST's two scripts as oracles."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cranfield.errors import EvaluationError, InputError
from cranfield.judging.estimators import inferred, perl_number, statistical
from cranfield.report.judging import sample_eval_text, statap_text
from tests.conftest import REAL, SHARED, require
from tests.unit.judging.sampled_inputs import write_inputs

SCRIPTS = SHARED / "conformance" / "sampling"
WEB09 = REAL / "qrels-misc" / "anserini-tools" / "prels.web.1-50.txt.gz"
PERL_ENV = {**os.environ, "PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}


def oracle(script: str, *args: Path | str, per_query: bool = True) -> str:
    perl = shutil.which("perl")
    if perl is None:
        pytest.fail("perl is not installed: the oracle scripts need it")
    done = subprocess.run(
        [perl, str(require(SCRIPTS / script)), *(["-q"] if per_query else []), *map(str, args)],
        capture_output=True,
        text=True,
        env=PERL_ENV,
        check=True,
    )
    return done.stdout


# --------------------------------------------------------------------------- by hand

QRELS = """\
1 0 a 1 1
1 0 b 1 0
1 0 c 2 -1
1 0 d 2 1
1 0 e 2 -1
1 0 f 2 0
"""
RUN = "1 Q0 a 1 4 r\n1 Q0 c 2 3 r\n1 Q0 d 3 2 r\n1 Q0 z 4 1 r\n"


def test_xinfap_by_hand(tmp_path: Path) -> None:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    est = inferred(tmp_path / "q", tmp_path / "r")
    v = est.per_topic["1"]
    # stratum 1: 2 documents, both sampled, 1 relevant -> 1 relevant; stratum 2: 4
    # documents, 2 sampled, 1 relevant -> 2; R = 3
    assert v["inum_rel"] == 3.0
    # a at rank 1: precision 1. d at rank 3: above it a (stratum 1: 1 of 1 sampled relevant)
    # and c (stratum 2, nothing sampled above): 1/3 + (2/3) * (1/2 * (1 + e)/(1 + 2e) + 1/2 *
    # e/(2e)) = 1/3 + 2/3 * 3/4 = 0.8333...; AP = 1/3 * 1 + 2/3 * 0.8333 = 0.8889
    assert v["infAP"] == pytest.approx(1 / 3 + 2 / 3 * (1 / 3 + 2 / 3 * 0.75), abs=1e-5)
    # relevant retrieved by rank 4: a (1 of 1) + c, d of stratum 2 (1 relevant of 1 sampled)
    assert v["inum_rel_ret"] == pytest.approx(3.0)
    assert v["iP10"] == pytest.approx(0.3)
    compat = inferred(tmp_path / "q", tmp_path / "r", compat="sample_eval")
    assert compat.per_topic["1"]["inum_rel_ret"] == pytest.approx(3.0, abs=1e-4)
    assert compat.per_topic["1"]["inum_rel_ret"] != 3.0  # the script's smoothing shows


def test_the_default_averages_over_every_judged_topic(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1 1\n1 0 b 1 0\n2 0 x 1 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")  # topic 2 not answered
    compat = inferred(tmp_path / "q", tmp_path / "r", compat="sample_eval")
    default = inferred(tmp_path / "q", tmp_path / "r")
    assert compat.topics == ("1",)
    assert default.topics == ("1", "2")
    assert compat.summary["infAP"] == pytest.approx(1.0, abs=1e-4)
    assert default.summary["infAP"] == pytest.approx(0.5, abs=1e-4)
    assert default.per_topic["2"]["infAP"] == 0.0
    # both count every judged topic's estimated relevant documents
    assert compat.summary["inum_rel"] == default.summary["inum_rel"] == 2.0


def test_statap_by_hand(tmp_path: Path) -> None:
    # a (relevant, p 1/2), b (not, p 1/2), c (relevant, p 1/4): R = 2 + 4 = 6
    (tmp_path / "p").write_text("7 a 1 1 0.5\n7 b 0 1 0.5\n7 c 1 1 0.25\n")
    (tmp_path / "r").write_text("7 Q0 a 1 3 r\n7 Q0 b 2 2 r\n7 Q0 c 3 1 r\n")
    est = statistical(tmp_path / "p", tmp_path / "r")
    t = est.topics[0]
    assert t.relevant == 6.0
    # a: prec 1/1, weight 2; c at 3: prec (1 + 2)/3 = 1, weight 4: AP = (2 + 4)/6
    assert t.ap == pytest.approx(1.0)
    assert est.summary["statMAP"] == pytest.approx(1.0)
    # statPC@30: (2 + 4)/30 ; statRP at rank 6 (past the list): 6/6
    assert t.pc == pytest.approx(6 / 30)
    assert t.rp == pytest.approx(1.0)


def test_perfect_ranking_scores_statndcg_one_by_default_but_not_in_compat(tmp_path: Path) -> None:
    (tmp_path / "p").write_text("1 a 2 1 1\n1 b 1 1 1\n1 c 1 1 1\n1 d 0 1 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 4 r\n1 Q0 b 2 3 r\n1 Q0 c 3 2 r\n1 Q0 d 4 1 r\n")
    assert statistical(tmp_path / "p", tmp_path / "r").summary["statMNDCG"] == pytest.approx(1.0)
    # the script's second loop stops at relevant - very relevant: its ideal misses c
    compat = statistical(tmp_path / "p", tmp_path / "r", compat="statap")
    assert compat.summary["statMNDCG"] > 1.0


def test_perl_numbers() -> None:
    assert perl_number("0301") == 301.0
    assert perl_number("1e3x") == 1000.0
    assert perl_number("") == 0.0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("1 d1 1 1 1.5", "the inclusion probability must be in (0, 1], got '1.5'"),
        ("1 d1 1 1 0", "the inclusion probability must be in (0, 1], got '0'"),
        ("1 d1 1 1", "expected 5 fields"),
        ("1 d1 x 1 0.5", "the relevance must be a number"),
    ],
)
def test_bad_prels_are_one_sentence_with_the_line(tmp_path: Path, line: str, problem: str) -> None:
    (tmp_path / "p").write_text(f"1 d0 1 1 0.5\n{line}\n")
    with pytest.raises(InputError, match=re.escape(f"p:2: {problem}")):
        statistical(tmp_path / "p", {"1": {"d0": 1.0}})


def test_unjudged_sample_and_repeats_are_refused(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("1 0 a 1 -2\n")
    with pytest.raises(InputError, match="not judged yet"):
        inferred(tmp_path / "q", {"1": {"a": 1.0}})
    (tmp_path / "q").write_text("1 0 a 1 1\n1 0 a 2 0\n")
    with pytest.raises(InputError, match="listed twice"):
        inferred(tmp_path / "q", {"1": {"a": 1.0}})
    with pytest.raises(EvaluationError, match="nothing to estimate"):
        inferred(_one(tmp_path), {"9": {"a": 1.0}}, compat="sample_eval")


def _one(tmp_path: Path) -> Path:
    (tmp_path / "one").write_text("1 0 a 1 1\n")
    return tmp_path / "one"


# --------------------------------------------------------------------------- the oracles


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_byte_identical_to_the_scripts_on_generated_samples(tmp_path: Path, seed: int) -> None:
    """Several strata sampled at 1, 1/2 and 1/8, graded judgments, tie-free runs."""
    paths = write_inputs(tmp_path, seed)
    expected = oracle("sample_eval.pl", paths["qrels"], paths["run"])
    got = sample_eval_text(
        inferred(paths["qrels"], paths["run"], compat="sample_eval"), per_query=True
    )
    assert got == expected
    expected = oracle("statAP_MQ_eval_v3.pl", paths["prels"], paths["run"])
    got = statap_text(statistical(paths["prels"], paths["run"], compat="statap"), per_query=True)
    assert got == expected
    if seed == 0:  # without -q: the summary alone
        summary = inferred(paths["qrels"], paths["run"], compat="sample_eval")
        expected = oracle("sample_eval.pl", paths["qrels"], paths["run"], per_query=False)
        assert sample_eval_text(summary) == expected
        stat = statistical(paths["prels"], paths["run"], compat="statap")
        expected = oracle("statAP_MQ_eval_v3.pl", paths["prels"], paths["run"], per_query=False)
        assert statap_text(stat) == expected


def _renamed(topic: str, names: str) -> str:
    """Topic ids as written: numeric, none numeric (all equal as Perl numbers), or a mix
    (``q7``, ``7x``, ``7``, ``07``)."""
    if names == "numeric":
        return topic
    if names == "words":
        return f"topic-{topic}"
    return (f"q{topic}", f"{topic}x", topic, f"0{topic}")[int(topic) % 4]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("names", "tied"), [("numeric", False), ("numeric", True), ("words", True), ("mixed", True)]
)
def test_web09_prels_byte_identical_to_statap(tmp_path: Path, names: str, tied: bool) -> None:
    """The real Web 2009 prels (arbitrary probabilities, so the sums' last digits depend on
    their order), runs with and without tied scores, topic ids numeric or not: the script's
    output byte for byte, its hash order included."""
    with gzip.open(require(WEB09), "rt") as handle:
        lines = handle.read().splitlines()
    lines = [" ".join([_renamed(f[0], names), *f[1:]]) for f in map(str.split, lines)]
    prels = tmp_path / "prels"
    prels.write_text("\n".join(lines) + "\n")
    docs: dict[str, list[str]] = {}
    for line in lines:
        topic, doc = line.split()[:2]
        docs.setdefault(topic, []).append(doc)
    rng = np.random.default_rng(0)
    run = []
    for topic, pool in docs.items():
        picked = [pool[i] for i in rng.permutation(len(pool))[: len(pool) // 2]]
        picked += [f"other-{topic}-{i}" for i in range(20)]
        scores = rng.permutation(len(picked)) + 0.5
        if tied:
            scores = np.floor(scores / 5)
        for doc, score in zip(picked, scores, strict=True):
            run.append(f"{topic} Q0 {doc} 0 {float(score)!r} gen")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    expected = oracle("statAP_MQ_eval_v3.pl", prels, tmp_path / "run")
    got = statap_text(statistical(prels, tmp_path / "run", compat="statap"), per_query=True)
    assert got == expected


@pytest.mark.slow
@pytest.mark.parametrize("names", ["words", "mixed"])
def test_sample_eval_byte_identical_with_tied_runs_and_topic_ids_not_numbers(
    tmp_path: Path, names: str
) -> None:
    """sample_eval.pl orders topic ids equal as numbers by Perl's hash order of its run's
    topics; compat mode follows it (ties in scores it breaks by doc id, as we do)."""
    paths = write_inputs(tmp_path, 3, topics=12)
    for key in ("qrels", "run"):
        rows = [line.split() for line in paths[key].read_text().splitlines()]
        for f in rows:
            f[0] = _renamed(f[0], names)
            if key == "run":
                f[4] = repr(float(np.floor(float(f[4]))))
        paths[key].write_text("".join(" ".join(f) + "\n" for f in rows))
    expected = oracle("sample_eval.pl", paths["qrels"], paths["run"])
    got = sample_eval_text(
        inferred(paths["qrels"], paths["run"], compat="sample_eval"), per_query=True
    )
    assert got == expected
