"""Every click model fitted on the real Yandex WSCD sample's train log and scored on its test
log (shared/data/clicks), through the public path: ``read_sessions`` for both files (each
coded in its own order) and ``compare_click_models``, which puts the test log on the training
codes. The figures are those of the README's "Evaluating from clicks" table.

Which models should beat the rank-CTR baseline on perplexity, and why:

* **DocumentCTR**: the sample has 20 queries with over a thousand sessions each, so the CTR of
  each (query, document) is well estimated, and it carries what a rank's CTR cannot: which
  document is shown there;
* **PBM**: the document's attractiveness times an examination per rank, so it knows both
  what RankCTR knows (the position bias) and what DocumentCTR knows, and tells them apart;
* **UBM**: PBM with the examination depending also on the rank of the click above;
* **DCM, DBN, SDBN**: the cascade family made to go on after a click (DCM's continuation
  per rank, DBN's satisfaction and perseverance γ), so an examination chain explains the
  position bias and a session's several clicks.

Which should not, and why:

* **GlobalCTR**: one click probability for every rank, blind to the position bias, the
  strongest effect in the log (in the test log, CTR 0.39 at rank 1 against 0.06 at rank 10);
* **Cascade**: the user stops at the first click, so the model cannot explain a session
  with two clicks or more (38% of the training sessions with a click, 45% of the test
  ones): its click probabilities below the first click are too low, and its conditional
  likelihood of a second click is the floor of 1e-6.

The perplexities are pinned to ``TOLERANCE`` (the four places the README prints, with room
for the last bit of floating point across platforms: every fit is deterministic), both with
the default pseudo-counts (1, 1), PyClick's estimate (``test_pyclick_agreement.py`` checks them
against PyClick itself), and unsmoothed (``pseudo_counts=(0, 0)``, the maximum likelihood,
cranfield's default before issue 35): there the 517 of 1,024 training pairs never clicked are
estimated at 0, so a test click on one costs ``log2(1e-6)``, about 20 bits, and every model
with parameters per pair is about 0.02 worse (the cascade model 0.11).
"""

from __future__ import annotations

import pytest

from cranfield.data.sessions import Sessions
from cranfield.io.click_logs import read_sessions
from cranfield.logs.fitted_click_model import ClickModelComparison, compare_click_models
from tests.conftest import SHARED, require

CLICKS = SHARED / "data" / "clicks"
TOLERANCE = 2e-4

PERPLEXITY = {
    "GlobalCTR": 1.5522,
    "RankCTR": 1.4880,
    "DocumentCTR": 1.4479,
    "PBM": 1.4335,
    "Cascade": 1.5409,
    "DCM": 1.4416,
    "UBM": 1.4340,
    "DBN": 1.4381,
    "SDBN": 1.4359,
}
"""With the default pseudo-counts (1, 1), as the README's table."""
UNSMOOTHED = {
    "GlobalCTR": 1.5522,
    "RankCTR": 1.4880,
    "DocumentCTR": 1.4708,
    "PBM": 1.4560,
    "Cascade": 1.6469,
    "DCM": 1.4612,
    "UBM": 1.4554,
    "DBN": 1.4577,
    "SDBN": 1.4571,
}
"""With ``pseudo_counts=(0, 0)``: the maximum likelihood."""
BEAT_RANK_CTR = ("DocumentCTR", "PBM", "DCM", "UBM", "DBN", "SDBN")
DO_NOT = ("GlobalCTR", "Cascade")


@pytest.fixture(scope="module")
def logs() -> tuple[Sessions, Sessions]:
    train = read_sessions(require(CLICKS / "yandex-wscd-sample.train.txt.gz"))
    test = read_sessions(require(CLICKS / "yandex-wscd-sample.test.txt.gz"))
    assert train.doc_ids[:3] != test.doc_ids[:3]  # each file codes its own ids
    return train, test


@pytest.fixture(scope="module")
def comparison(logs: tuple[Sessions, Sessions]) -> ClickModelComparison:
    return compare_click_models(*logs)


def test_the_models_that_should_beat_rank_ctr_do(comparison: ClickModelComparison) -> None:
    perplexity = {f.fitted.name: f.score.perplexity for f in comparison.fits}
    for name in BEAT_RANK_CTR:
        assert perplexity[name] < perplexity["RankCTR"], name
    for name in DO_NOT:
        assert perplexity[name] > perplexity["RankCTR"], name


def test_perplexities_as_in_the_readme(comparison: ClickModelComparison) -> None:
    perplexity = {f.fitted.name: f.score.perplexity for f in comparison.fits}
    assert perplexity == pytest.approx(PERPLEXITY, abs=TOLERANCE)
    assert [f.fitted.name for f in comparison.fits] == sorted(PERPLEXITY, key=PERPLEXITY.get)
    dbn = next(f.fitted for f in comparison.fits if f.fitted.name == "DBN")
    assert dbn.parameters()["continuation"] == pytest.approx(0.828, abs=1e-3)
    assert any("Beta(1, 1)" in d for d in comparison.to_dict()["definitions"])  # type: ignore[union-attr]


def test_unsmoothed_perplexities(logs: tuple[Sessions, Sessions]) -> None:
    """The maximum likelihood (no pseudo-counts), labelled so in the definitions."""
    unsmoothed = compare_click_models(*logs, pseudo_counts=(0.0, 0.0))
    perplexity = {f.fitted.name: f.score.perplexity for f in unsmoothed.fits}
    assert perplexity == pytest.approx(UNSMOOTHED, abs=TOLERANCE)
    dbn = next(f.fitted for f in unsmoothed.fits if f.fitted.name == "DBN")
    assert dbn.parameters()["continuation"] == pytest.approx(0.826, abs=1e-3)
    definitions = unsmoothed.to_dict()["definitions"]
    assert any("unsmoothed maximum likelihood" in d for d in definitions)  # type: ignore[union-attr]


def test_what_the_models_do_not_see(comparison: ClickModelComparison) -> None:
    """The test log's clicks on documents not shown (133 sessions) and its repeated clicks
    (2,262 sessions) are counted, not silently dropped; so are its pairs the training log never
    showed, which get the prior."""
    data = comparison.to_dict()
    assert data["ignored_clicks"] == {"unshown": 276, "repeated": 4334}
    assert data["unseen"] == {"pairs": 322, "of_pairs": 1031, "results": 2057, "of_results": 214130}
    models = data["models"]
    assert isinstance(models, list)
    assert all(m["sessions"] == 21413 for m in models)
