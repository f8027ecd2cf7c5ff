"""Numbers no float holds, typed where a gradient is asked (a step's typed value, a drill, a
review): a clear answer that the number is too large, never a server error."""

from __future__ import annotations

import math

import pytest
from fastapi.testclient import TestClient

from app.lessons.grading import TOO_LARGE, TypedValueError, parse_typed_value
from tests.catalogs import LESSON
from tests.clock import time_passes

NINES = "9" * 1999  # a 1999-digit integer: float() overflows
HUGE = [
    NINES,
    "-" + "9" * 1998,
    "1e999",  # Python reads it as infinity
    "-1e999",
    "0x" + "f" * 1990,
    "[1, " + NINES[:1990] + "]",
    "tensor([" + NINES[:1980] + ".])",
    "1" + "0" * 400 + ".5",
]


@pytest.mark.parametrize("typed", HUGE)
def test_a_number_no_float_holds_is_too_large(typed: str) -> None:
    with pytest.raises(TypedValueError, match="too large"):
        parse_typed_value(typed)


def test_the_largest_floats_and_infinity_itself_are_still_read() -> None:
    assert parse_typed_value("1.7e308") == 1.7e308
    assert parse_typed_value("[-1e308, 2]") == [-1e308, 2.0]
    assert parse_typed_value("inf") == math.inf
    assert parse_typed_value("tensor([-inf, 1.])") == [-math.inf, 1.0]
    assert parse_typed_value(str(2**1000)) == float(2**1000)  # 302 digits: a float holds it


def _commit(client: TestClient) -> None:
    right = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
    assert client.post(f"{LESSON}/steps/1/prediction", json=right).status_code == 200


def _told_too_large(answer: dict[str, object]) -> None:
    assert answer["parsed"] is False, answer
    assert answer["problem"] == TOO_LARGE


def test_a_huge_typed_value_is_told_too_large(client: TestClient) -> None:
    _commit(client)
    for typed in (NINES, "1e999"):
        answer = client.post(f"{LESSON}/steps/1/value", json={"value": typed})
        assert answer.status_code == 200, answer.text
        _told_too_large(answer.json())


def test_a_huge_drill_answer_and_review_answer_are_told_too_large(client: TestClient) -> None:
    _commit(client)
    drill = client.post(f"{LESSON}/drills/step-1.x/answer", json={"value": NINES})
    assert drill.status_code == 200, drill.text
    _told_too_large(drill.json())
    client.post(f"{LESSON}/drills/step-1.x/answer", json={"value": "0"})  # a miss: to review
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    url = f"/api/review/{item['id']}/answer"
    review = client.post(url, json={"value": NINES, "confidence": "certain"})
    assert review.status_code == 200, review.text
    assert review.json()["graded"] is False  # nothing counted: type again
    assert client.get("/api/review").json()["due_count"] == 1
