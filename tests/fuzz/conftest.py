"""The fuzzing budget: small and reproducible in CI, longer on demand.

Two hypothesis profiles are registered here, and every fuzz test takes its settings from
:func:`fuzz` (never from a loaded profile, which would change every other test's settings):

* ``cranfield-fuzz`` (the default): the examples are derived from each test's name
  (``derandomize``) and no example database is kept, so a CI run is reproducible; each
  test's number of examples keeps it to a few seconds;
* ``cranfield-fuzz-long`` (``CRANFIELD_FUZZ=long``): :data:`LONG_FACTOR` times as many
  examples, drawn at random on each run (a failure prints the seed and a
  ``@reproduce_failure`` blob to replay it).
"""

from __future__ import annotations

import os
from typing import Final

from hypothesis import HealthCheck, settings

LONG: Final = os.environ.get("CRANFIELD_FUZZ", "") == "long"
LONG_FACTOR: Final = 25

_COMMON: Final = {
    "database": None,
    "deadline": None,  # no timings in pass/fail tests: a slow machine is not a failure
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
}
settings.register_profile("cranfield-fuzz", derandomize=True, **_COMMON)
settings.register_profile("cranfield-fuzz-long", derandomize=False, print_blob=True, **_COMMON)


def fuzz(examples: int) -> settings:
    """The settings of a fuzz test that tries ``examples`` inputs in CI (times
    :data:`LONG_FACTOR` with ``CRANFIELD_FUZZ=long``)."""
    profile = settings.get_profile("cranfield-fuzz-long" if LONG else "cranfield-fuzz")
    return settings(profile, max_examples=examples * (LONG_FACTOR if LONG else 1))
