"""Which version of a question an answer belongs to, and the order a learner sees its choices.

A fingerprint is a short hash of what makes a question that question (its text, its choices,
its answer). Every stored answer carries the fingerprint of the question it answered, so that
when a lesson writer rewrites or renumbers a question, the old answers are retired: never shown
as the answer to the new question, never counted in calibration, never reviewed.
"""

from __future__ import annotations

import hashlib
import json

from app.errors import UnknownLesson, UnknownMyth, UnknownStep
from app.lessons.disclosure import Disclosure, asks
from app.lessons.loader import Catalog
from app.lessons.schema import ChoicePrediction, Lesson, Myth, Step, ValuePrediction
from app.progress.records import LessonRecords, StepRecord

__all__ = [
    "asks",
    "choice_order",
    "committed",
    "disclosure_of",
    "find_lesson",
    "find_myth",
    "find_step",
    "item_fingerprint",
    "myth_fingerprint",
    "prediction_fingerprint",
    "value_fingerprint",
]


def _digest(*parts: object) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def prediction_fingerprint(prediction: ChoicePrediction) -> str:
    # The choices' file order is not part of the question: learners see them shuffled anyway.
    return _digest("prediction", prediction.question, sorted(prediction.texts), prediction.answer)


def value_fingerprint(guess: ValuePrediction) -> str:
    return _digest("value", guess.question, guess.tensor, guess.expected)


def myth_fingerprint(myth: Myth) -> str:
    return _digest("myth", myth.question, myth.answer)


def item_fingerprint(*parts: object) -> str:
    """For items made from lesson content (drills, flashcards): what they ask and expect."""
    return _digest(*parts)


def choice_order(learner: str, lesson: str, step: int, texts: list[str]) -> list[str]:
    """The choices in this learner's order: a keyed hash of (lesson, step, choice) with the
    learner's id as key. Stable for one learner (across reloads, devices with the same cookie,
    and every page that asks the question), different between learners, never file order."""
    key = learner.encode()[:64]

    def rank(text: str) -> bytes:
        message = f"{lesson}\0{step}\0{text}".encode()
        return hashlib.blake2b(message, key=key, digest_size=16).digest()

    return sorted(texts, key=rank)


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
    """Has the learner committed this version of the step's question? A choice is committed
    when given; a typed value alone (a step without a choice) when right or revealed."""
    if record is None:
        return False
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
