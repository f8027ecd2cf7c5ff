"""Finding a lesson's questions, and whether a learner has committed one.

Every stored answer carries the fingerprint of the question it answered (each kind computes
its own: app/learning/kinds/), so that when a lesson writer rewrites or renumbers a question,
the old answers are retired: never shown as the answer to the new question, never counted in
calibration, never reviewed, and never taken as committing the new one.
"""

from __future__ import annotations

from app.errors import UnknownLesson, UnknownMyth, UnknownStep
from app.learning.kinds import step_kind
from app.lessons.disclosure import Disclosure, asks
from app.lessons.format import Lesson, Myth, Step
from app.lessons.loader import Catalog
from app.progress.records import LessonRecords, StepRecord

__all__ = [
    "asks",
    "committed",
    "disclosure_of",
    "find_lesson",
    "find_myth",
    "find_step",
]


def find_lesson(catalog: Catalog, slug: str) -> Lesson:
    lesson = catalog.get(slug)
    if lesson is None:
        raise UnknownLesson(f"No lesson called {slug!r}")
    return lesson


def find_step(lesson: Lesson, number: int) -> Step:
    if not 1 <= number <= len(lesson.steps):
        raise UnknownStep(f"Lesson {lesson.slug!r} has no step {number}")
    return lesson.steps[number - 1]


def find_myth(lesson: Lesson, number: int) -> Myth:
    if not 1 <= number <= len(lesson.myths):
        raise UnknownMyth(f"Lesson {lesson.slug!r} has no myth {number}")
    return lesson.myths[number - 1]


def committed(step: Step, record: StepRecord | None) -> bool:
    """Has the learner committed this version of the step's question? The first question the
    step asks (in `Step.QUESTIONS` order) commits it, as its kind's declaration says: a choice
    or an order once given, a typed value alone (a step without a choice: one after a choice
    opens only once the choice is committed) once right or revealed."""
    asked = step.questions()
    kind = step_kind(asked[0][0]) if asked and record is not None else None
    return (
        kind is not None
        and kind.committed is not None
        and record is not None
        and kind.committed(step, record)
    )


def disclosure_of(lesson: Lesson, records: LessonRecords) -> Disclosure:
    """What this learner may be sent of the lesson (app/lessons/disclosure.py)."""
    answered = frozenset(
        number
        for number, record in records.steps.items()
        if 1 <= number <= len(lesson.steps) and committed(lesson.steps[number - 1], record)
    )
    return Disclosure(lesson, answered, records.read_ahead)
