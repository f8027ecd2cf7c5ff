"""Grade a learner's answers against a lesson. Pure functions: no web, no database."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
from typing import Any

from app.lessons.format import ValueMisconception
from app.lessons.numeric import Comparison, compare, shape_of

MAX_TYPED_CHARS = 2000
TOO_LARGE = "that number is too large: a float holds at most about 1.8e308 (write inf for infinity)"
_TENSOR_WRAPPER = re.compile(r"^\s*tensor\s*\((.*)\)\s*$", re.DOTALL)
_TRAILING_ARGS = re.compile(r",\s*(requires_grad|grad_fn|dtype|device)\s*=.*$", re.DOTALL)


class TypedValueError(ValueError):
    """The learner's text is not a number or a (nested) list of numbers."""


def parse_typed_value(text: str) -> Any:
    """`4`, `[4, 6]`, `tensor([4., 6.])`, `tensor(3.)`, `None` → a number, nested list or None.

    Only literals are accepted (ast.literal_eval), never code.
    """
    if len(text) > MAX_TYPED_CHARS:
        raise TypedValueError(f"that is longer than {MAX_TYPED_CHARS} characters")
    body = text.strip()
    wrapped = _TENSOR_WRAPPER.match(body)
    if wrapped:
        body = _TRAILING_ARGS.sub("", wrapped.group(1)).strip()
    if body in ("None", "none", "null"):
        return None
    # torch prints `4.` for 4.0; Python needs `4.0`.
    body = re.sub(r"(\d)\.(?![\d])", r"\1.0", body)
    body = re.sub(r"(-?)\b(nan|inf)\b", r"'\1\2'", body)
    try:
        value = ast.literal_eval(body)
    except (ValueError, SyntaxError) as exc:
        raise TypedValueError(
            "write a number or a list of numbers, e.g. 4.0, [4, 6] or tensor([4., 6.])"
        ) from exc
    value = _normalise(value)
    if shape_of(value) is None:
        raise TypedValueError("the rows of that list have different lengths")
    return value


def _normalise(value: Any) -> Any:
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list):
        return [_normalise(item) for item in value]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypedValueError("only numbers may appear in the value")
    if isinstance(value, str):
        if value not in ("nan", "inf", "-inf", "-nan"):
            raise TypedValueError("only numbers may appear in the value")
        return float(value)
    # A number no float holds: an integer float() cannot convert, or a literal like 1e999
    # that Python reads as infinity (infinity itself is typed as `inf`, a string above).
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if math.isinf(number):
        raise TypedValueError(TOO_LARGE)
    return number


def grade_value(actual: Any, typed: str) -> tuple[Comparison, Any]:
    """Compare what the learner typed with the real `.grad`; returns (comparison, parsed)."""
    parsed = parse_typed_value(typed)
    return compare(parsed, actual), parsed


# What a typed value with the right size and the wrong sign is told.
SIGN_ERROR = (
    "The size is right but the sign is not: the gradient has the opposite sign of what you "
    "typed. Check which way the result moves when the input grows."
)


def _negated(value: Any) -> Any:
    if isinstance(value, list):
        return [_negated(item) for item in value]
    return -value if isinstance(value, int | float) else value


def sign_flipped(expected: Any, parsed: Any) -> bool:
    """Is the typed value the right one with its signs turned over (and not simply right, as
    zeros would be)?"""
    if expected is None or parsed is None or compare(expected, parsed).matches:
        return False
    return compare(expected, _negated(parsed)).matches


def misconception_for(
    misconceptions: Sequence[ValueMisconception], parsed: Any
) -> ValueMisconception | None:
    """The named misconception a wrong typed value (as parsed) is, if it is one."""
    return next((m for m in misconceptions if compare(m.value, parsed).matches), None)


def why_wrong(
    misconceptions: Sequence[ValueMisconception], expected: Any, parsed: Any
) -> str | None:
    """What a wrong typed value gets wrong: a sign turned over is a sign error, whatever else
    its numbers happen to equal (with `x = -2`, `-4` typed as `4` is not "the value of `y`",
    `x · x`); otherwise the named misconception it is, if any."""
    if sign_flipped(expected, parsed):
        return SIGN_ERROR
    named = misconception_for(misconceptions, parsed)
    return named.why if named is not None else None
