"""A myth: a common belief, answered yes or no; its belief and reality travel only in the
reveal."""

from __future__ import annotations

from app.learning import grader
from app.learning.grader import Graded
from app.learning.kinds.kind import Answer, Prompt, QuestionKind, Review, item_number
from app.lessons.schema import Lesson, Myth


def myth_fingerprint(myth: Myth) -> str:
    return MYTH.fingerprint(myth.question, myth.answer)


def _prompt(lesson: Lesson, key: str, order: str, learner: str | None) -> Prompt | None:
    number = item_number(key, len(lesson.myths))
    if number is None:
        return None
    myth = lesson.myths[number - 1]
    return Prompt(lesson, MYTH, key, f"Myth {number}", myth.question, myth_fingerprint(myth))


def _grade(prompt: Prompt, answer: Answer) -> Graded:
    return grader.graded_myth(prompt.lesson.myths[int(prompt.key) - 1], answer.answer)


MYTH = QuestionKind(
    name="myth",
    label="Myth",
    plural="myths",
    page="myth-busters",
    widget="yes-no",
    confidence=True,
    count_in=lambda lesson: len(lesson.myths),
    review=Review(_prompt, _grade),
)
