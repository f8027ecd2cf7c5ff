"""Which recall questions a lesson asks a learner (app/learning/practice/recall.py), on the bundled
curriculum: three steps, one from each third of the lesson where it has one, preferring steps
whose instances compute other numbers, each on an instance that is neither the step's own code
nor the one its typed value asked, and the same every time for the same learner."""

from __future__ import annotations

import pytest

from app.learning.practice.recall import (
    RECALL_SIZE,
    RecallQuestion,
    asks_recall,
    build_up_committed,
    question_of,
    recall_items,
    recall_questions,
)
from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson
from app.lessons.variants import pick
from app.modes.drills import value_key
from app.progress.records import RecallRecord
from tests.catalogs import BUNDLED, FIXTURES

LEARNERS = [f"learner-{n}" for n in range(6)]


def _third(lesson: Lesson, number: int) -> int:
    return (number - 1) * RECALL_SIZE // len(lesson.steps)


@pytest.mark.parametrize("lesson", BUNDLED.lessons, ids=lambda lesson: lesson.slug)
def test_each_bundled_lesson_asks_three_spread_questions_on_other_numbers(lesson: Lesson) -> None:
    assert asks_recall(lesson)
    steps_of: set[tuple[int, ...]] = set()
    for learner in LEARNERS:
        questions = recall_questions(lesson, learner)
        numbers = [question.number for question in questions]
        assert len(numbers) == RECALL_SIZE and numbers == sorted(set(numbers))
        assert recall_questions(lesson, learner) == questions  # the same every time
        steps_of.add(tuple(numbers))
        for question in questions:
            step = lesson.steps[question.number - 1]
            # Recall grades as it is sent: never a question graded by a run (an ordering).
            side = question.prompt.kind.step
            assert side is not None and side.at_once, f"{lesson.slug} {question.number}"
            instance = question.prompt.instance
            assert instance is not None and step.snippet is not None
            assert instance.code.strip() != step.snippet.code.strip()
            if step.value_prediction is not None:
                typed = pick(step, value_key(learner, lesson.slug, question.number), ran=True)
                assert typed is not None and instance.index != typed.index
        # Every third of the lesson that has a step to ask is asked.
        asked = {_third(lesson, number) for number in numbers}
        assert {_third(lesson, q.number) for q in _all(lesson, learner)} <= asked
    assert len(steps_of) > 1, f"{lesson.slug}: every learner is asked the same steps"


def test_a_third_is_drawn_from_its_steps_with_other_numbers_first() -> None:
    for lesson in BUNDLED.lessons:
        for learner in LEARNERS:
            for question in recall_questions(lesson, learner):
                third = _third(lesson, question.number)
                others = [
                    q
                    for q in _all(lesson, learner)
                    if _third(lesson, q.number) == third and q.other_numbers
                ]
                assert question.other_numbers or not others, (lesson.slug, question.number)


def _all(lesson: Lesson, learner: str) -> list[RecallQuestion]:
    """Every step's recall question, before three are drawn."""
    found = [question_of(lesson, n, learner) for n in range(1, len(lesson.steps) + 1)]
    return [question for question in found if question is not None]


def test_a_lesson_without_variants_asks_none_and_nothing_opens_before_the_commits() -> None:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    assert not asks_recall(lesson) and recall_questions(lesson, "someone") == []

    def never() -> list[RecallRecord]:
        raise AssertionError("read before the build-up is committed")

    forms = BUNDLED.lessons[0]
    assert recall_items(Disclosure(forms, frozenset()), "someone", never) == []
    read_ahead = Disclosure(forms, frozenset(), read_ahead=True)
    assert recall_items(read_ahead, "someone", never) == []  # reading ahead is not committing
    assert not build_up_committed(read_ahead)
