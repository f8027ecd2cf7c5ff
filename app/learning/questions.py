"""Finding a lesson's questions, and whether a learner has committed one.

Every stored answer carries the fingerprint of the question it answered (each kind computes
its own: app/learning/kinds/), so that when a lesson writer rewrites or renumbers a question,
the old answers are retired: never shown as the answer to the new question, never counted in
calibration, never reviewed, and never taken as committing the new one.
"""

from __future__ import annotations

from app.errors import UnknownLesson, UnknownMyth, UnknownStep
from app.learning.kinds import (
    prediction_fingerprint,
    step_ordering_fingerprint,
    value_fingerprint,
)
from app.lessons.disclosure import Disclosure, asks
from app.lessons.loader import Catalog
from app.lessons.schema import Lesson, Myth, Step
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
    """Has the learner committed this version of the step's question? A choice or an order is
    committed when given (both are kept as the step's committed answer, told apart by their
    fingerprints); a typed value alone (a step without a choice) when right or revealed."""
    if record is None:
        return False
    if step.ordering is not None:
        saved = record.prediction
        return saved is not None and saved.fingerprint == step_ordering_fingerprint(step)
    if step.prediction is not None:
        saved = record.prediction
        return saved is not None and saved.fingerprint == prediction_fingerprint(step.prediction)
    value, guess = record.value, step.value_prediction
    return (
        value is not None
        and guess is not None
        and (value.correct or value.revealed)
        and value.fingerprint == value_fingerprint(guess)
    )


def disclosure_of(lesson: Lesson, records: LessonRecords) -> Disclosure:
    """What this learner may be sent of the lesson (app/lessons/disclosure.py)."""
    answered = frozenset(
        number
        for number, record in records.steps.items()
        if 1 <= number <= len(lesson.steps) and committed(lesson.steps[number - 1], record)
    )
    return Disclosure(lesson, answered, records.read_ahead)
