"""Renderings: terminal, Markdown (renders as a table), LaTeX (valid booktabs), CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from markdown_it import MarkdownIt

from cranfield.report.comparison import (
    latex_escape,
    legend,
    letters,
    notes,
    to_latex,
    to_markdown,
    to_text,
)
from cranfield.stats import Comparison, compare_scores

NASTY = ["bm25_tuned", "A&B 50%", "run#1 {x}", "$cost~^\\"]


@pytest.fixture(scope="module")
def nasty() -> Comparison:
    rng = np.random.default_rng(3)
    base = rng.random(30)
    scores = {
        name: {"AP": np.clip(base + 0.08 * i + rng.normal(0, 0.05, 30), 0, 1),
               "P(rel=2)@10": np.round(np.clip(base + 0.1 * i, 0, 1), 1)}
        for i, name in enumerate(NASTY)
    }  # fmt: skip
    return compare_scores(scores, tests=["randomization", "t-test"], seed=1, intervals=["t", "bca"])


@pytest.fixture(scope="module")
def baseline(nasty: Comparison) -> Comparison:
    scores = {
        r: {m: nasty.scores[m][:, j] for m in nasty.measures} for j, r in enumerate(nasty.runs)
    }
    return compare_scores(scores, baseline=NASTY[0], tests="t-test")


def test_letters() -> None:
    assert letters(3) == ["a", "b", "c"]
    assert letters(28)[25:] == ["z", "aa", "ab"]


def test_terminal_table(nasty: Comparison, robust03: Comparison) -> None:
    text = to_text(nasty)
    for name in NASTY:
        assert name in text
    assert "Letters mark the runs a run is significantly better than" in text
    assert "seed 1" in text
    assert "Holm correction over 12 comparisons" in text
    # The strongest run beats all others on AP: its row carries the three other letters.
    row = next(line for line in text.splitlines() if NASTY[3] in line)
    assert "abc" in row
    table = to_text(robust03)
    assert len([ln for ln in table.splitlines() if re.match(r"^[a-q] │", ln)]) == 17
    assert "100 queries" in table
    assert "seed 42" in table
    assert "Holm correction over 272 comparisons (136 pairs × 2 measures)" in table
    details = to_text(nasty, details=True)
    assert "rand. p adj." in details
    assert "W/T/L" in details
    assert "bca CI" in details


def test_baseline_marks(baseline: Comparison) -> None:
    text = to_text(baseline)
    assert f"{NASTY[0]} (baseline)" in text
    assert "▲" in text
    assert "%" in text
    assert "▲/▼: significantly better/worse than the baseline bm25_tuned" in text


def _rendered_table(md: str) -> tuple[list[str], list[list[str]]]:
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert html.count("<table>") == 1
    header = re.findall(r"<th[^>]*>(.*?)</th>", html)
    body = html.split("<tbody>")[1]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in body.split("</tr>") if "<td" in r]
    return header, rows


def test_markdown_renders_as_a_table(nasty: Comparison, baseline: Comparison) -> None:
    header, rows = _rendered_table(to_markdown(nasty))
    assert header == ["", "run", "AP", "P(rel=2)@10"]
    assert len(rows) == 4
    assert all(len(r) == 4 for r in rows)
    assert [r[1] for r in rows] == ["bm25_tuned", "A&amp;B 50%", "run#1 {x}", "$cost~^\\"]
    assert "<strong>" in rows[3][2]
    assert "<sup>abc</sup>" in rows[3][2]
    md = to_markdown(nasty)
    assert "Holm correction over 12 comparisons" in md
    header, rows = _rendered_table(to_markdown(baseline))
    assert header == ["run", "AP", "P(rel=2)@10"]
    assert rows[0][0] == "bm25_tuned (baseline)"


def _check_latex(tex: str, columns: int) -> list[str]:
    # Environments open and close in order.
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", tex):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack.pop() == env
    assert not stack
    # Braces balance (ignoring escaped ones).
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    # booktabs rules in order, each once; every row fills every column of the spec.
    positions = [tex.index(r) for r in (r"\toprule", r"\midrule", r"\bottomrule")]
    assert positions == sorted(positions)
    spec = re.search(r"\\begin\{tabular\}\{([lrc@{}]+)\}\n", tex)
    assert spec is not None
    assert len(re.sub(r"@\{\}", "", spec.group(1))) == columns
    body = tex[positions[0] : positions[2]]
    rows = [ln for ln in body.splitlines() if ln.endswith(r"\\")]
    for row in rows:
        cells = re.split(r"(?<!\\)&", row)
        assert sum(2 if r"\multicolumn{2}" in cell else 1 for cell in cells) == columns
    # No raw special character outside commands or math.
    text = re.sub(r"\$[^$]*\$", "", tex.replace(r"\$", ""))
    assert not re.search(r"(?<!\\)[#%&_](?![^{]*\})", text.replace("&", "").replace(r"\&", "")), (
        text
    )
    return rows


def test_latex_structure_and_escaping(nasty: Comparison, baseline: Comparison) -> None:
    tex = to_latex(nasty)
    rows = _check_latex(tex, 2 + 2 * 2)
    assert len(rows) == 5  # header + 4 runs
    assert r"bm25\_tuned" in tex
    assert r"A\&B 50\%" in tex
    assert r"run\#1 \{x\}" in tex
    assert r"\$cost\textasciitilde{}\textasciicircum{}\textbackslash{}" in tex
    assert r"\textbf{" in rows[4]
    assert r"\textsuperscript{abc}" in rows[4]
    caption = re.search(r"\\caption\{(.*)\}\n", tex)
    assert caption is not None
    for needle in ("paired randomization test", "Holm correction", r"$\le$ 0.05", "seed 1"):
        assert needle in caption.group(1)
    tex_b = to_latex(baseline, caption="Custom.", label=None)
    _check_latex(tex_b, 1 + 2 * 2)
    assert r"\caption{Custom.}" in tex_b
    assert r"\label" not in tex_b
    assert r"\textsuperscript{$\uparrow$}" in tex_b


def test_latex_escape() -> None:
    assert latex_escape("a_b & 5% $x$ #1 ~ ^ \\ {}") == (
        r"a\_b \& 5\% \$x\$ \#1 \textasciitilde{} \textasciicircum{} \textbackslash{} \{\}"
    )
    assert latex_escape("p ≤ α, 2 × 3") == r"p $\le$ $\alpha$, 2 $\times$ 3"


def test_csv_has_every_number(nasty: Comparison) -> None:
    rows = list(csv.DictReader(io.StringIO(nasty.to_csv())))
    assert len(rows) == len(nasty.pairs) == 12
    for key in (
        "measure", "control", "treatment", "control_mean", "treatment_mean", "mean_difference",
        "ci_t_low", "ci_t_high", "ci_bca_low", "ci_bca_high", "cohens_dz", "wins", "ties",
        "losses", "improved", "hurt", "urisk", "trisk", "randomization_p",
        "randomization_p_adjusted", "randomization_significant", "t_test_statistic", "t_test_p",
    ):  # fmt: skip
        assert key in rows[0]
    first = nasty.pairs[0]
    assert float(rows[0]["t_test_p"]) == first.tests["t-test"].p_value
    assert rows[0]["control"] == first.control


def test_json_has_every_number_and_the_method(nasty: Comparison) -> None:
    doc = json.loads(nasty.to_json(per_query=True))
    method = doc["method"]
    assert method["seed"] == 1
    assert method["correction"] == "holm"
    assert method["alpha"] == 0.05
    assert method["tests"] == ["randomization", "t-test"]
    assert method["queries"] == 30
    assert method["randomization"] == "monte-carlo"
    assert method["n_resamples"] == 10_000
    assert method["correction_family_size"] == {"randomization": 12, "t-test": 12}
    assert len(doc["comparisons"]) == 12
    c0 = doc["comparisons"][0]
    assert set(c0["tests"]["t-test"]) == {"statistic", "p_value", "p_adjusted", "significant"}
    assert set(c0["intervals"]) == {"t", "bca"}
    assert len(doc["per_query"]["topics"]) == 30
    assert doc["per_query"]["scores"]["AP"][NASTY[0]] == nasty.scores["AP"][:, 0].tolist()


def test_json_never_emits_nan() -> None:
    # Identical runs: Cohen's d is 0, a constant shift gives infinities, written as null.
    c = compare_scores(
        {"a": {"AP": [0.1, 0.2, 0.3]}, "b": {"AP": [0.35, 0.45, 0.55]}}, tests="t-test"
    )
    doc = json.loads(c.to_json())
    assert doc["comparisons"][0]["cohens_dz"] is None
    assert doc["comparisons"][0]["tests"]["t-test"]["p_value"] == 0.0


def test_the_method_is_data_and_the_legend_is_display(
    nasty: Comparison, baseline: Comparison
) -> None:
    # The comparison states its method; the legend of a table's marks belongs to the table.
    for c in (nasty, baseline):
        method = c.describe()
        assert not any("bold: highest mean" in sentence for sentence in method)
        assert method[-1].startswith("Mean differences have 95% confidence intervals")
        assert notes(c) == [*method[:-1], legend(c), method[-1]]
        assert json.loads(c.to_json())["method"]["notes"] == method
    assert legend(nasty).startswith("Letters mark the runs")
    assert legend(baseline).startswith("▲/▼: significantly better/worse than the baseline")
    no_intervals = compare_scores(
        {"a": {"AP": [0.1, 0.2, 0.4]}, "b": {"AP": [0.3, 0.2, 0.5]}}, intervals=[]
    )
    assert notes(no_intervals) == [*no_intervals.describe(), legend(no_intervals)]


def test_marks_stay_unambiguous_past_26_runs() -> None:
    """With 28 runs the last one beat 'z' and 'aa': written together that read 'zaa'."""
    rng = np.random.default_rng(0)
    scores = {f"r{i:02d}": {"AP": i + rng.normal(0, 0.01, 20)} for i in range(28)}
    c = compare_scores(scores, tests=["t-test"])
    rows = to_markdown(c).splitlines()[2:30]
    last = rows[-1]
    assert last.startswith("| ab | r27 | **27.")
    assert last.endswith("<sup>" + ",".join(letters(27)) + "</sup> |")
    assert rows[26].endswith("<sup>" + ",".join(letters(26)) + "</sup> |")  # 'aa' beat a..z
    assert rows[1].endswith("<sup>a</sup> |")


def test_intervals_beside_adjusted_p_values_say_they_are_not_adjusted(
    nasty: Comparison,
) -> None:
    assert nasty.p_values_adjusted
    assert nasty.describe()[-1] == (
        "Mean differences have 95% confidence intervals: t, bootstrap BCa (10,000 resamples; "
        "seed 1); they are not adjusted for multiple comparisons: each covers its own pair at "
        "95%, while the p-values are adjusted."
    )
    header = to_text(nasty, details=True, width=400).split("W/T/L")[0]
    assert "t CI unadj." in header
    assert "bca CI unadj." in header
    one = compare_scores({"a": {"AP": [0.2, 0.5, 0.1]}, "b": {"AP": [0.4, 0.5, 0.0]}})
    assert not one.p_values_adjusted  # Holm over one comparison changes nothing
    assert one.describe()[-1] == "Mean differences have 95% confidence intervals: t."
    assert "t CI " in to_text(one, details=True)
    assert "unadj." not in to_text(one, details=True)
