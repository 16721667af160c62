"""cranfield._validate: the helpers every option check goes through."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield._validate import check_choice, check_float, check_int
from cranfield.errors import OptionError
from cranfield.evaluation.options import EvalOptions
from cranfield.stats.plan import TestPlan


def test_an_integer_from_numpy_is_accepted_as_a_plain_int() -> None:
    value = check_int("depth", np.int64(3), minimum=0)
    assert value == 3
    assert type(value) is int
    options = EvalOptions(depth=np.int64(5), relevance_level=np.int32(2))  # type: ignore[arg-type]
    assert type(options.depth) is int
    assert type(options.relevance_level) is int
    json.dumps(options.to_dict())  # provenance stays plain data
    assert TestPlan(n_resamples=np.int64(10)).n_resamples == 10  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [True, 2.0, "3", None, np.float64(2.0)])
def test_check_int_refuses_what_is_not_an_integer(bad: object) -> None:
    with pytest.raises(OptionError, match="The 'k' option must be an integer >= 1, got "):
        check_int("k", bad, minimum=1)


def test_bounds_are_written_as_a_person_writes_them() -> None:
    with pytest.raises(OptionError) as exc:
        check_int("heap_size", 10, minimum=15_000_000)
    assert str(exc.value) == "The 'heap_size' option must be an integer >= 15000000, got 10."
    with pytest.raises(OptionError) as exc:
        check_float("alpha", 0.0, minimum=0, maximum=1, above=True, below=True)
    assert str(exc.value) == "The 'alpha' option must be a number > 0 and < 1, got 0.0."
    assert check_float("b", np.float32(0.5), minimum=0, maximum=1) == 0.5


def test_a_long_value_is_cut_in_the_message() -> None:
    with pytest.raises(OptionError) as exc:
        check_choice("topics", list(range(1000)), [None])
    message = str(exc.value)
    assert message.endswith("...."), message  # the cut, then the sentence's full stop
    assert len(message) < 200
    assert exc.value.value == list(range(1000))  # the attribute keeps the whole value
