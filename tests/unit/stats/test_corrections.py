"""Multiple-comparison corrections against textbook examples computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.stats import adjust_p_values

# Benjamini & Hochberg (1995), section 4.2: 15 p-values from a study of myocardial infarction.
BH_1995 = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
    0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000,
]  # fmt: skip


def test_bh_1995_example_rejects_four_at_005() -> None:
    # The paper: BH rejects the four smallest; Bonferroni (and Holm) only three.
    adj = adjust_p_values(BH_1995, "bh")
    assert (adj <= 0.05).sum() == 4
    assert (adjust_p_values(BH_1995, "bonferroni") <= 0.05).sum() == 3
    assert (adjust_p_values(BH_1995, "holm") <= 0.05).sum() == 3


def test_bh_adjusted_values_by_hand() -> None:
    # adj_(i) = min_{j >= i} m p_(j) / j with m = 15.
    m = 15
    raw = [m * p / (i + 1) for i, p in enumerate(BH_1995)]
    expected = [min(1.0, *raw[i:]) for i in range(m)]
    np.testing.assert_allclose(adjust_p_values(BH_1995, "bh"), expected, rtol=1e-15)
    # A few by hand (m = 15): 0.0001*15 = 0.0015; 0.0004*15/2 = 0.003; 0.0019*15/3 = 0.0095;
    # 0.0095*15/4 = 0.035625; 0.0201*15/5 = 0.0603; then the running minimum from the top
    # makes p_(6) and p_(7) share 0.0298*15/7 = 0.063857...
    adj = adjust_p_values(BH_1995, "bh")
    assert adj[:5] == pytest.approx([0.0015, 0.003, 0.0095, 0.035625, 0.0603])
    assert adj[5] == adj[6] == pytest.approx(0.0298 * 15 / 7)
    assert adj[-1] == 1.0


def test_holm_wikipedia_example() -> None:
    # Four hypotheses, alpha = 0.05: p = 0.01, 0.04, 0.03, 0.005. Sorted 0.005, 0.01, 0.03, 0.04
    # times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max 0.02, 0.03, 0.06, 0.06.
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(adjust_p_values(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    assert (adjust_p_values(p, "holm") <= 0.05).tolist() == [True, False, False, True]


def test_bonferroni_and_none() -> None:
    p = np.array([0.01, 0.2, 0.5])
    np.testing.assert_allclose(adjust_p_values(p, "bonferroni"), [0.03, 0.6, 1.0])
    np.testing.assert_array_equal(adjust_p_values(p, "none"), p)


def test_shape_and_order_preserved() -> None:
    p = np.array([[0.04, 0.001], [0.5, 0.02]])
    adj = adjust_p_values(p, "holm")
    assert adj.shape == (2, 2)
    np.testing.assert_allclose(adj, [[0.08, 0.004], [0.5, 0.06]])


def test_equal_p_values_get_equal_adjustments() -> None:
    for method in ("bonferroni", "holm", "bh"):
        adj = adjust_p_values([0.01, 0.01, 0.01, 0.9], method)  # type: ignore[arg-type]
        assert adj[0] == adj[1] == adj[2]


def test_step_procedures_match_decisions() -> None:
    # Rejecting adjusted p <= alpha equals running the step-down / step-up procedure.
    rng = np.random.default_rng(5)
    for _ in range(50):
        p = np.sort(rng.random(12) ** 3)
        m, alpha = p.size, 0.05
        holm = 0
        while holm < m and p[holm] <= alpha / (m - holm):
            holm += 1
        bh = max([i + 1 for i in range(m) if p[i] <= alpha * (i + 1) / m], default=0)
        assert (adjust_p_values(p, "holm") <= alpha).sum() == holm
        assert (adjust_p_values(p, "bh") <= alpha).sum() == bh


def test_aliases_and_errors() -> None:
    fdr = adjust_p_values([0.01, 0.02], "fdr")  # type: ignore[arg-type]
    np.testing.assert_array_equal(fdr, adjust_p_values([0.01, 0.02], "bh"))
    with pytest.raises(ValueError, match=r"The 'method' option must be one of .* got 'sidak'"):
        adjust_p_values([0.1], "sidak")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must not contain NaN"):
        adjust_p_values([0.1, float("nan")])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\], got 1.5"):
        adjust_p_values([0.1, 1.5])
    assert adjust_p_values([], "holm").size == 0
