"""Code to write: the learner fills the blank lines of a snippet (or writes a custom
`backward`), judged by running it and comparing what it does with the exercise's goal, as a
pitfall fix is. A missed check (which brings a hint) puts the exercise in the review queue,
where it comes back spaced, to be written again from scratch. It is graded there as on its
page, by a run in the sandbox (POST /api/lessons/{slug}/exercises/{n}, which reschedules a due
card), never by the review queue's synchronous answer; a capstone's diagnosis is asked on its
page only: in review the code to fix is shown at once."""

from __future__ import annotations

from app.errors import AnswerError
from app.learning.answers.grader import Graded
from app.learning.kinds.kind import (
    Prompt,
    QuestionKind,
    Review,
    ReviewAnswer,
    ReviewExercise,
    item_number,
)
from app.lessons.format import Exercise, Lesson
from app.lessons.memo import per_object


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def exercise_fingerprint(exercise: Exercise) -> str:
    return EXERCISE.fingerprint(exercise.code, exercise.output, exercise.grads, exercise.task)


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    number = item_number(key, len(lesson.exercises))
    if number is None:
        return None
    exercise = lesson.exercises[number - 1]
    return Prompt(
        lesson,
        EXERCISE,
        key,
        f"Code to write: {exercise.title}",
        "Write it again, from scratch: run it until it does what the goal says.",
        exercise_fingerprint(exercise),
        exercise=ReviewExercise.of(exercise, number),
    )


def _grade(prompt: Prompt, answer: ReviewAnswer) -> Graded:
    raise AnswerError(
        "Code to write is graded by running it: send the lines to "
        f"/api/lessons/{prompt.lesson.slug}/exercises/{prompt.key}"
    )


EXERCISE = QuestionKind(
    name="exercise",
    label="Code to write",
    plural="code to write",
    page="pitfall-fixer",
    widget="code",
    confidence=False,
    count_in=lambda lesson: len(lesson.exercises),
    review=Review(_prompt, ReviewAnswer, _grade),
    anchor="exercise-{key}",
)
