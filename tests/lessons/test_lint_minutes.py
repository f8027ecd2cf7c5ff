"""The reading time counts what a learner reads: a wrong choice's `misconception`, written
for the teacher's dashboard, adds no minutes, while its `why`, which the learner reads, does."""

from __future__ import annotations

from typing import Any

from app.lessons.format import Lesson
from app.lessons.lint_minutes import WORDS_PER_MINUTE, estimated_minutes
from app.lessons.loader import parse_yaml
from tests.conftest import FIXTURE_LESSONS

LONG = " ".join(["Thinks a fresh tensor holds a gradient before any backward pass."] * 40)


def first_steps() -> dict[str, Any]:
    data: dict[str, Any] = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    return data


def wrong_choice(data: dict[str, Any]) -> dict[str, Any]:
    choice: dict[str, Any] = data["steps"][0]["prediction"]["choices"][0]
    assert choice["text"] != data["steps"][0]["prediction"]["answer"]
    return choice


def test_a_misconception_adds_no_reading_time() -> None:
    data = first_steps()
    before = estimated_minutes(Lesson.model_validate(data))
    wrong_choice(data)["misconception"] = LONG
    assert estimated_minutes(Lesson.model_validate(data)) == before


def test_a_why_the_learner_reads_adds_reading_time() -> None:
    data = first_steps()
    before = estimated_minutes(Lesson.model_validate(data))
    wrong_choice(data)["why"] += " " + LONG
    added = estimated_minutes(Lesson.model_validate(data)) - before
    assert abs(added - len(LONG.split()) / WORDS_PER_MINUTE) < 1e-9
