"""The reading time counts what a learner reads: a wrong choice's `why` adds to it, the
`misconception` written for the teacher's dashboard does not."""

from __future__ import annotations

from typing import Any

from app.lessons.format import Lesson
from app.lessons.lint_minutes import WORDS_PER_MINUTE, estimated_minutes
from app.lessons.loader import parse_yaml
from tests.conftest import FIXTURE_LESSONS

PLANTED = "Thinks a planted belief. " * WORDS_PER_MINUTE  # 4 minutes of reading


def _with_wrong_choice(**fields: str) -> Lesson:
    data: dict[str, Any] = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    choices = data["steps"][0]["prediction"]["choices"]
    choices.append({"text": "planted wrong choice", **fields})
    return Lesson.model_validate(data)


def test_a_misconception_adds_no_reading_time_and_a_why_does() -> None:
    plain = estimated_minutes(_with_wrong_choice(why="Short."))
    believed = estimated_minutes(_with_wrong_choice(why="Short.", misconception=PLANTED))
    rebutted = estimated_minutes(_with_wrong_choice(why="Short. " + PLANTED))
    assert believed == plain
    assert rebutted == plain + 4
