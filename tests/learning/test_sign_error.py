"""A typed value with the right size and the wrong sign is told so, not diagnosed as a
misconception whose value it happens to equal."""

from __future__ import annotations

from pathlib import Path

from app.learning.answers.grader import ValueRubric, grade_typed
from app.lessons.grading import SIGN_ERROR, sign_flipped
from app.lessons.loader import load_catalog
from app.lessons.variants import expected_value, instances

VARIANT_LESSONS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"
STEP = load_catalog([VARIANT_LESSONS]).lessons[0].steps[0]


def _check_of(x: float) -> ValueRubric:
    """The typed value the fixture lesson asks for `y = x * x` at `x`, with its misconception
    (the value of `y`) as the sandbox computed it."""
    (instance,) = [i for i in instances(STEP) if f"tensor({x}," in i.code]
    return ValueRubric(
        expected=expected_value(STEP, instance), misconceptions=instance.misconceptions
    )


def test_a_sign_error_is_not_called_the_value_of_y() -> None:
    check = _check_of(-2.0)  # the slope is -4, and y = 4: a turned sign equals the misconception
    assert check.expected == -4.0 and check.misconceptions[0].value == 4.0
    correct, feedback = grade_typed(check, "4", reveal=False)
    assert correct is False
    assert feedback.why_html is not None
    assert "value of" not in feedback.why_html
    assert "the sign is not" in feedback.why_html


def test_the_misconception_is_still_named_when_the_value_is_it() -> None:
    check = _check_of(5.0)  # the slope is 10, y = 25
    correct, feedback = grade_typed(check, "25", reveal=False)
    assert correct is False
    assert feedback.why_html == "That is the value of <code>y</code>, <code>5.0 · 5.0</code>."
    _, turned = grade_typed(check, "-10", reveal=False)
    assert turned.why_html is not None and "the sign is not" in turned.why_html
    _, other = grade_typed(check, "7", reveal=False)
    assert other.why_html is None


def test_what_counts_as_a_turned_sign() -> None:
    assert sign_flipped([1.0, -2.0], [-1.0, 2.0])
    assert sign_flipped([[0.0, 3.0]], [[0.0, -3.0]])  # a zero keeps its place
    assert not sign_flipped([0.0, 0.0], [0.0, 0.0])  # right, not turned
    assert not sign_flipped([1.0, -2.0], [-1.0, -2.0])  # one element turned is not the rule
    assert not sign_flipped(None, [1.0]) and not sign_flipped([1.0], None)
    assert not sign_flipped(3.0, 3.0)
    assert SIGN_ERROR.startswith("The size is right but the sign is not")
