"""A drill (Predict the gradient): read a verified snippet and type a tensor's `.grad`. A step's
typed value that is missed is reviewed as its drill. On a step with variants, each return asks
another instance of the step's code (never the one its typed value asked on the lesson page,
nor the one the previous return asked while another remains), `None` included where that is
its answer."""

from __future__ import annotations

from pydantic import Field

from app.errors import AnswerError
from app.learning.answers import grader
from app.learning.answers.grader import Graded, ValueRubric
from app.learning.kinds.kind import Prompt, QuestionKind, Review, ReviewAnswer
from app.lessons.format import Lesson
from app.lessons.memo import per_object
from app.modes.drills import Drill, find_drill, for_learner, lesson_drills


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def drill_fingerprint(drill: Drill) -> str:
    return DRILL.fingerprint(drill.code, drill.tensor, drill.expected)


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    if (drill := find_drill(lesson, key)) is None:
        return None
    asks = f"After this code runs, what is `{drill.tensor}.grad`?"
    # The drill as the lesson declares it names the question; the instance asked varies.
    shown = (
        for_learner(lesson, drill, learner, f"review/{order}", asked, seen) if learner else drill
    )
    return Prompt(
        lesson,
        DRILL,
        key,
        drill.source,
        asks,
        drill_fingerprint(drill),
        shown.code,
        tensor=drill.tensor,
        drill=shown,
        form=shown.instance,
    )


class TypedAnswer(ReviewAnswer):
    """A drill answered in review: the typed `.grad`."""

    value: str = Field(max_length=2000)


def _grade(prompt: Prompt, answer: TypedAnswer) -> Graded:
    drill = prompt.drill
    if drill is None:
        raise AnswerError("Type a value")
    return grader.graded_value(
        ValueRubric(drill.expected, misconceptions=drill.misconceptions), answer.value
    )


DRILL = QuestionKind(
    name="drill",
    label="Predict the gradient",
    plural="gradients to predict",
    page="predict-the-gradient",
    widget="value",
    confidence=True,
    count_in=lambda lesson: len(lesson_drills(lesson)),
    review=Review(_prompt, TypedAnswer, _grade),
    form_step=lambda lesson, key: drill.step if (drill := find_drill(lesson, key)) else None,
)
