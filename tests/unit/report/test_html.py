"""The HTML report as text: self-contained, escaped, deterministic, with the right numbers."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from importlib import resources

import pytest

import cranfield
from cranfield.report.html import comparison_html, html_report, json_for_script
from cranfield.stats import compare_scores
from tests.conftest import REAL, require

DL19 = REAL / "trec-dl-passage"
# trec_eval 10.0 with -l 2 on DL19 passage (the shared data's README): nDCG@10 and MAP.
EXPECTED = {
    "bm25": ("0.5058", "0.2476"),
    "tasb": ("0.7210", "0.4050"),
    "splade-pp-ed": ("0.7308", "0.4464"),
}


@pytest.fixture(scope="module")
def page() -> str:
    runs = [require(DL19 / "runs" / "dl19" / f"{name}.txt.gz") for name in EXPECTED]
    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    return html_report(qrels, runs, ["nDCG@10", "AP"], relevance_level=2, seed=7)


class _Collector(HTMLParser):
    """Tags, attributes and the text of every ``<script>`` of a document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data


def _parse(text: str) -> _Collector:
    c = _Collector()
    c.feed(text)
    c.close()
    return c


def _sha(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def test_self_contained_with_a_strict_policy(page: str) -> None:
    doc = _parse(page)
    names = [t for t, _ in doc.tags]
    assert names.count("script") == 2
    assert not {"link", "img", "iframe", "object", "embed"} & set(names)
    for _, attrs in doc.tags:
        for key in ("src", "href"):
            value = attrs.get(key)
            assert value is None or value.startswith("#"), (key, value)
    csp = next(
        a["content"] for t, a in doc.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert csp is not None
    assert "default-src 'none'" in csp
    assert f"'sha256-{_sha(doc.scripts[1])}'" in csp  # the code, by hash
    assert f"'sha256-{_sha(doc.styles[0])}'" in csp
    assert "unsafe-inline" not in csp
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)


def test_summary_numbers_match_trec_eval(page: str) -> None:
    for run, (ndcg, ap) in EXPECTED.items():
        row = re.search(rf'<tr data-run="{re.escape(run)}">(.*?)</tr>', page)
        assert row is not None, run
        values = re.findall(r'<span class="value">([0-9.]+)</span>', row.group(1))
        assert values == [ndcg, ap], run


def test_embedded_data_is_the_comparison(page: str) -> None:
    doc = _parse(page)
    data = json.loads(doc.scripts[0])
    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    runs = {n: require(DL19 / "runs" / "dl19" / f"{n}.txt.gz") for n in EXPECTED}
    c = cranfield.compare(qrels, runs, ["nDCG@10", "AP"], relevance_level=2)
    assert data["runs"] == list(EXPECTED)
    assert data["topics"] == c.topics
    assert data["measures"] == ["nDCG@10", "AP"]
    for m in c.measures:
        for j, run in enumerate(c.runs):
            assert data["scores"][m][j] == pytest.approx(c.scores[m][:, j], abs=5e-7), run


def test_parameters_are_stated(page: str) -> None:
    table = re.search(r'<table id="parameters-table".*?</table>', page, re.S)
    assert table is not None
    text = re.sub(r"(<[^>]+>)+", "|", table.group(0))
    for needle in (
        "measures|nDCG@10, AP",
        "missing-query policy|zero: a judged query absent from a run scores 0",
        "tests|paired t-test",
        "correction|holm",
        "alpha|0.05",
        "seed|none (no random procedure",
        "relevance level|2",
        f"cranfield version|{cranfield.__version__}",
        "qrels|qrels.dl19-passage.txt",
    ):
        assert needle in text, needle
    assert "bm25.txt.gz" in page


def test_seed_of_random_tests_is_reported_and_output_is_deterministic() -> None:
    scores = {"a": {"AP": [0.1, 0.4, 0.3, 0.2] * 10}, "b": {"AP": [0.2, 0.3, 0.5, 0.2] * 10}}
    first = comparison_html(compare_scores(scores, tests="randomization", seed=11))
    again = comparison_html(compare_scores(scores, tests="randomization", seed=11))
    assert first == again
    assert '<th scope="row">seed</th><td>11</td>' in first


def test_curves_are_drawn(page: str) -> None:
    for chart in ("pr-chart", "gain-chart"):
        svg = re.search(rf'<figure id="{chart}">.*?</figure>', page, re.S)
        assert svg is not None
        n_lines = svg.group(0).count("<polyline")
        assert n_lines == len(EXPECTED)  # no "ideal" line: it is 1 at every k


def test_baseline_marks_and_no_curves() -> None:
    qrels = require(DL19 / "qrels" / "qrels.dl19-passage.txt")
    runs = {n: require(DL19 / "runs" / "dl19" / f"{n}.txt.gz") for n in EXPECTED}
    page = html_report(qrels, runs, ["nDCG@10"], baseline="bm25", relevance_level=2, curves=False)
    assert 'id="curves"' not in page
    row = re.search(r'<tr data-run="tasb">(.*?)</tr>', page)
    assert row is not None
    assert '<sup class="marks">▲</sup>' in row.group(1)
    assert "+42.5%" in row.group(1)
    assert "(baseline)" in page


PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'; alert(3); //",
    "</script><script>alert(4)</script>",
    "<!--",
    "&amp;<b>bold</b>",
]


def test_every_user_string_is_escaped() -> None:
    scores = {name: {"AP": [0.1 * (i + 1), 0.2, 0.3]} for i, name in enumerate(PAYLOADS[:3])}
    c = compare_scores(scores, topics=PAYLOADS[3:])
    page = comparison_html(c, title=PAYLOADS[0])
    doc = _parse(page)
    assert [t for t, _ in doc.tags].count("script") == 2
    assert not any(t == "img" for t, _ in doc.tags)
    body = page.split('<script type="application/json"', 1)[0]
    data_block = doc.scripts[0]
    for payload in PAYLOADS:
        assert payload not in body or payload == "'; alert(3); //"  # no markup in it
    assert not {"<", ">"} & set(data_block)
    data = json.loads(data_block)
    assert data["runs"] == PAYLOADS[:3]
    assert data["topics"] == PAYLOADS[3:]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;" in body


def test_json_for_script_round_trips() -> None:
    value = {"s": "</script><!-- & \u2028 ü", "n": [0.5, None, 1]}
    text = json_for_script(value)
    assert not {"<", ">", "&"} & set(text)
    assert json.loads(text) == value


def test_assets_are_package_data() -> None:
    assets = resources.files("cranfield.report").joinpath("assets")
    js = assets.joinpath("report.js").read_text("utf-8")
    assert not re.search(r"\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|eval\(", js)
    assert "textContent" in js
    assert assets.joinpath("report.css").is_file()


def test_bad_options() -> None:
    c = compare_scores({"a": {"AP": [0.1, 0.2]}, "b": {"AP": [0.2, 0.3]}})
    with pytest.raises(ValueError, match="The 'page_size' option must be an integer >= 1, got 0"):
        comparison_html(c, page_size=0)
    with pytest.raises(ValueError, match="The 'max_rank' option must be an integer >= 1, got 0"):
        html_report({"q": {"a": 1}}, [{"q": {"a": 1.0}}, {"q": {"a": 1.0}}], max_rank=0)


# --------------------------------------------------------------------------- the run diff

DIFF_QRELS = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1}, "q3": {"e": 1}}
DIFF_RUNS = {
    "bm25": {"q1": {"c": 3.0, "a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "x": 1.0}, "q3": {"e": 1.0}},
    "dense": {"q1": {"a": 3.0, "new": 2.0, "b": 1.0}, "q2": {"x": 2.0, "d": 1.0}, "q3": {"e": 1.0}},
}


def _without_the_diff(page: str) -> str:
    """``page`` with the run diff's three traces taken out: section, nav link, parameter."""
    start = page.index('<section id="run-diff">')
    end = page.index("</section>\n", start) + len("</section>\n")
    page = page[:start] + page[end:]
    page = page.replace('<a href="#run-diff">Run diff</a>', "", 1)
    return re.sub(r'<tr><th scope="row">run diff</th><td>[^<]*</td></tr>', "", page, count=1)


def test_the_run_diff_section_is_there_only_when_asked_and_adds_nothing_else() -> None:
    plain = html_report(DIFF_QRELS, DIFF_RUNS, ["AP", "P@1"], seed=3)
    assert "run-diff" not in plain
    assert "Run diff" not in plain
    with_diff = html_report(DIFF_QRELS, DIFF_RUNS, ["AP", "P@1"], seed=3, diff=["bm25", "dense"])
    assert with_diff.count('<section id="run-diff">') == 1
    assert _without_the_diff(with_diff) == plain


def test_the_run_diff_section_holds_the_diffs_numbers() -> None:
    from cranfield.stats import diff_runs

    page = html_report(DIFF_QRELS, DIFF_RUNS, ["AP"], diff=[1, "bm25"])  # B = bm25 here
    d = diff_runs(DIFF_QRELS, DIFF_RUNS["dense"], DIFF_RUNS["bm25"], "AP", names=["dense", "bm25"])
    section = page[page.index('<section id="run-diff">') :]
    section = section[: section.index("</section>")]
    assert "<h2>Run diff: bm25 against dense</h2>" in section
    pc = d.pair("AP")
    row = f'{d.comparison.means["AP"]["dense"]:.4f}</td><td class="num">'
    assert row in section
    assert f"{pc.tests['t-test'].p_adjusted:.4f}" in section
    assert f"mean {d.rbo_mean:.4f} over 3 queries" in section
    # q1: a (grade 2) is 1st in dense (A here) and 2nd in bm25 (B)
    assert "Query q1" in section
    assert '<td class="name">a</td><td class="num">2</td><td class="num">1</td>' in section
    assert '<td class="num">2</td></tr>' in section
    assert _parse(page).tags  # well formed enough to parse


def test_run_diff_strings_are_escaped() -> None:
    runs = {"<b>x</b>": DIFF_RUNS["bm25"], '"><img src=y>': DIFF_RUNS["dense"]}
    qrels = {"<i>q1</i>": DIFF_QRELS["q1"], "q2": DIFF_QRELS["q2"]}
    runs = {name: {"<i>q1</i>": r["q1"], "q2": r["q2"]} for name, r in runs.items()}
    page = html_report(qrels, runs, ["AP"], diff=list(runs))
    section = page[page.index('<section id="run-diff">') :]
    assert "<b>x</b>" not in section
    assert "<img" not in section
    assert "<i>q1</i>" not in section
    assert "&lt;b&gt;x&lt;/b&gt;" in section
    assert "&lt;i&gt;q1&lt;/i&gt;" in section


@pytest.mark.parametrize(
    ("diff", "message"),
    [
        (["bm25"], "The 'diff' option must be two runs of the report, A then B"),
        (["bm25", "nosuch"], "The 'diff' option must be two of the report's runs (bm25, dense)"),
        (["bm25", 0], "The 'diff' option must be two different runs"),
    ],
)
def test_a_bad_diff_is_refused(diff: list[object], message: str) -> None:
    with pytest.raises(cranfield.errors.OptionError) as exc:
        html_report(DIFF_QRELS, DIFF_RUNS, ["AP"], diff=diff)
    assert str(exc.value).startswith(message)


# --------------------------------------------------------------------------- judging section

JUDGING_RUNS = {
    "good": {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 2.0, "y": 1.0}},
    "bad": {"q1": {"c": 3.0, "d": 2.0, "a": 1.0}, "q2": {"z": 2.0, "x": 1.0}},
    "mid": {"q1": {"b": 3.0, "a": 2.0, "d": 1.0}, "q2": {"y": 2.0, "x": 1.0}},
}
JUDGING_QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"x": 1}}


def _judging_section(page: str) -> str:
    start = page.index('<section id="judging">')
    return page[start : page.index("</section>\n", start) + len("</section>\n")]


def test_the_judging_section_draws_the_simulation_and_adds_nothing_else() -> None:
    from cranfield.judging.simulation import simulate
    from cranfield.report.judging import simulation_text

    sim = simulate(JUDGING_RUNS, JUDGING_QRELS, ["depth", "mtf"], budget=4, checkpoints=[1, 2, 4])
    plain = html_report(JUDGING_QRELS, JUDGING_RUNS, ["AP"], seed=3)
    page = html_report(JUDGING_QRELS, JUDGING_RUNS, ["AP"], seed=3, judging=sim)
    assert "judging" not in plain
    section = _judging_section(page)
    # the three charts: found per judgment, tau-b and tau_AP at the checkpoints
    ids = [a.get("id") for tag, a in _parse(section).tags if tag == "svg"]
    assert ids == ["judging-found-svg", "judging-tau-svg", "judging-tau-ap-svg"]
    assert ">judgments per topic<" in section
    # the numbers are simulation_text's, escaped
    pre = section[section.index("<pre>") + 5 : section.index("</pre>")]
    assert pre == simulation_text(sim).replace("'", "&#x27;")
    # depth: q1 a c b d (a, b relevant), q2 x z y (x relevant) -> 1 + 1, 2 + 1, ...
    assert sim.found["depth"].tolist() == [2, 2, 3, 3]
    assert "depth             2       3" not in pre  # the table starts at 10 or the budget
    assert "depth             3" in pre
    # taken out again: the section, its nav link and its parameter row, the page is the plain one
    rest = page.replace(section, "", 1).replace('<a href="#judging">Judging</a>', "", 1)
    rest = re.sub(r'<tr><th scope="row">judging</th><td>[^<]*</td></tr>', "", rest, count=1)
    assert rest == plain
    assert "ranking compared with the full qrels&#x27; after 1, 2, 4 judgments per topic" in page


def test_the_judging_section_of_a_total_budget_counts_judgments_in_all() -> None:
    from cranfield.judging.simulation import simulate

    sim = simulate(JUDGING_RUNS, JUDGING_QRELS, ["depth"], budget_total=6, checkpoints=[])
    section = _judging_section(html_report(JUDGING_QRELS, JUDGING_RUNS, ["AP"], judging=sim))
    ids = [a.get("id") for tag, a in _parse(section).tags if tag == "svg"]
    assert ids == ["judging-found-svg"]  # no checkpoints, no tau charts
    assert ">judgments in all<" in section
    assert "a budget of 6 judgments in all, split evenly" in section
