"""Compare gradients written by a person (a lesson author, a learner) with what torch computed.

Values are numbers, nested lists of numbers, or None. Comparison is numerical (like
`torch.allclose`), shape-aware, and says which elements differ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

RTOL = 1e-4
ATOL = 1e-6


def shape_of(value: Any) -> list[int] | None:
    """The shape of a nested list (None for a ragged one); [] for a number."""
    if not isinstance(value, list):
        return []
    if not value:
        return [0]
    inner = [shape_of(item) for item in value]
    if any(shape is None or shape != inner[0] for shape in inner):
        return None
    first = inner[0]
    return None if first is None else [len(value), *first]


def flatten(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):  # the sandbox sends non-finite numbers as text
        try:
            return float(value)
        except ValueError:
            return None
    return None


def numbers_close(expected: float, actual: float) -> bool:
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return expected == actual
    return abs(expected - actual) <= ATOL + RTOL * abs(actual)


@dataclass
class Comparison:
    matches: bool
    problem: str | None = None
    shape_ok: bool = True
    elements: list[bool] = field(default_factory=list)  # per element, row-major


def compare(expected: Any, actual: Any) -> Comparison:
    """Is `actual` (what torch holds) numerically what `expected` claims?"""
    if expected is None or actual is None:
        if expected is None and actual is None:
            return Comparison(True)
        which = "None" if actual is None else "a tensor"
        return Comparison(False, f"torch holds {which}", shape_ok=False)
    expected_shape, actual_shape = shape_of(expected), shape_of(actual)
    if expected_shape is None:
        return Comparison(False, "the value is not a rectangular list of numbers", shape_ok=False)
    # A one-element tensor may be written as a plain number.
    if expected_shape != actual_shape and not (len(flatten(expected)) == len(flatten(actual)) == 1):
        return Comparison(
            False, f"shape {expected_shape} where torch has {actual_shape}", shape_ok=False
        )
    elements = []
    for wanted, got in zip(flatten(expected), flatten(actual), strict=True):
        wanted_f, got_f = _as_float(wanted), _as_float(got)
        elements.append(
            wanted_f is not None and got_f is not None and numbers_close(wanted_f, got_f)
        )
    if all(elements):
        return Comparison(True, elements=elements)
    wrong = elements.count(False)
    return Comparison(False, f"{wrong} of {len(elements)} elements differ", elements=elements)
