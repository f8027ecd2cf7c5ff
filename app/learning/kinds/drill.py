"""A drill (Predict the gradient): read a verified snippet and type a tensor's `.grad`. A step's
typed value that is missed is reviewed as its drill."""

from __future__ import annotations

from app.errors import AnswerError
from app.learning import grader
from app.learning.grader import Graded, ValueCheck
from app.learning.kinds.kind import Answer, Prompt, QuestionKind, Review
from app.lessons.schema import Lesson
from app.modes.drills import Drill, find_drill, lesson_drills


def drill_fingerprint(drill: Drill) -> str:
    return DRILL.fingerprint(drill.code, drill.tensor, drill.expected)


def _prompt(lesson: Lesson, key: str, order: str) -> Prompt | None:
    if (drill := find_drill(lesson, key)) is None:
        return None
    asks = f"After this code runs, what is `{drill.tensor}.grad`?"
    return Prompt(
        lesson,
        DRILL,
        key,
        drill.source,
        asks,
        drill_fingerprint(drill),
        drill.code,
        tensor=drill.tensor,
    )


def _grade(prompt: Prompt, answer: Answer) -> Graded:
    drill = find_drill(prompt.lesson, prompt.key)
    if drill is None:
        raise AnswerError("Type a value")
    return grader.graded_value(
        ValueCheck(drill.expected, misconceptions=drill.misconceptions), answer.value
    )


DRILL = QuestionKind(
    name="drill",
    label="Predict the gradient",
    plural="gradients to predict",
    page="predict-the-gradient",
    widget="value",
    confidence=True,
    count_in=lambda lesson: len(lesson_drills(lesson)),
    review=Review(_prompt, _grade),
)
