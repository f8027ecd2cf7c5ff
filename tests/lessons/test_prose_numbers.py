"""Reading numbers and arithmetic out of a lesson's prose (app/lessons/prose_numbers.py)."""

from __future__ import annotations

import pytest

from app.lessons.prose_numbers import equations, normal, stated_numbers


@pytest.mark.parametrize(
    ("text", "left", "holds"),
    [
        ("so `2 · 3 = 6`.", 6.0, True),
        ("(−3 − 6 + 0 − 12)/4 = −5.25 for the first", -5.25, True),
        ("the spacing is 2 ** -7 = 0.0078125 here", 2**-7, True),
        ("The norm is sqrt(3² + 4²) = 5.", 5.0, True),
        ("and 1/3 ≈ 0.33, close enough", 1 / 3, True),
        ("the loss is (9 + 25 + 49 + 81) / 4 = 42.", 41.0, False),
        ("a product of 6 × 3 = 19", 18.0, False),
        ("rounded to a whole number: 2 · 3.2 = 6", 6.4, False),
        ("2 · 3.2 ≈ 6", 6.4, True),
    ],
)
def test_an_equation_is_evaluated(text: str, left: float, holds: bool) -> None:
    (found,) = equations(normal(text))
    assert found.left == pytest.approx(left)
    assert found.holds is holds


@pytest.mark.parametrize(
    "text",
    [
        "2·x = 6 at x = 3",  # a name on one side: not arithmetic
        "x² + 1 = 3",  # the left side starts after a name
        "f(2) = 4",  # a call, not a parenthesis
        "y.grad = 40",  # a name bound to a number: checked against the runs instead
    ],
)
def test_algebra_is_not_taken_for_arithmetic(text: str) -> None:
    assert equations(normal(text)) == []


def test_positions_releases_widths_and_markers_are_not_quantities() -> None:
    text = normal("1. In step 2 of torch 2.1.0, a 16-bit float32 of x1 holds 0.5 and 1e-8.")
    assert [number.text for number in stated_numbers(text)] == ["0.5", "1e-8"]


def test_a_number_says_how_precisely_it_is_written() -> None:
    written = {n.text: n for n in stated_numbers("about 0.01, exactly 5.25, below 6e-5, 10⁻⁸")}
    assert written["0.01"].approximate and not written["5.25"].approximate
    assert [written[t].decimals for t in ("0.01", "5.25", "6e-5")] == [2, 2, 5]
    assert written["10⁻⁸"].value == pytest.approx(1e-8)


def test_a_minus_belongs_to_a_number_only_where_it_is_not_a_subtraction() -> None:
    signs = [n.negative for n in stated_numbers("at -2.5, (−3 − 6) and 4-1 = 3, [1, -1]")]
    assert signs == [True, True, False, False, False, False, False, True]
