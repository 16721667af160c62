"""``stats/effects.py``: GeoRisk over a set of systems, against a hand computation."""

from __future__ import annotations

import pytest


def test_georisk_by_hand() -> None:
    """Dinçer, Macdonald & Ounis (2016), worked by hand for two systems on three queries,
    α = 1: x = ((0.2, 0.6, 0.4), (0.4, 0.2, 0.4)); S = (1.2, 1.0), T = (0.6, 0.8, 0.8),
    N = 2.2. System 1: e = 1.2 T / 2.2 = (0.327273, 0.436364, 0.436364), z = (-0.222476,
    0.247714, -0.055048), ZRisk = 0.247714 + 2 (-0.277524) = -0.307334, Φ(-0.307334 / 3) =
    0.459202, GeoRisk = sqrt(0.4 × 0.459202) = 0.428580. System 2: e = T / 2.2, z =
    (0.243710, -0.271359, 0.060302), ZRisk = -0.238706, Φ(-0.079569) = 0.468290, GeoRisk =
    sqrt(0.468290 / 3) = 0.395091."""
    from cranfield.stats import georisk

    x = [[0.2, 0.6, 0.4], [0.4, 0.2, 0.4]]
    assert georisk(x).tolist() == pytest.approx([0.428580, 0.395091], abs=2e-6)
    # α = 0: ZRisk is the plain sum of z: system 1 0.247714 - 0.277524 = -0.029810
    from scipy.stats import norm

    assert georisk(x, risk_aversion=0)[0] == pytest.approx(
        (0.4 * norm.cdf(-0.029810 / 3)) ** 0.5, abs=2e-6
    )
    # a query no system scores on gives z = 0: mean 0.25, ZRisk 0, sqrt(0.25 × 0.5)
    assert georisk([[0.5, 0.0], [0.5, 0.0]]).tolist() == pytest.approx([0.125**0.5] * 2)
    assert georisk([[0.0, 0.0], [0.0, 0.0]]).tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "bad", [[[0.1, 0.2]], [[0.1, -0.2], [0.3, 0.4]], [[0.1, float("nan")], [0.3, 0.4]]]
)
def test_georisk_refuses_bad_scores(bad: list[list[float]]) -> None:
    from cranfield.errors import OptionError
    from cranfield.stats import georisk

    with pytest.raises(OptionError, match="'scores' option"):
        georisk(bad)
