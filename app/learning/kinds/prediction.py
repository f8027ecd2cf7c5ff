"""A step's choice prediction: asked on the deep dive and step by step, one choice among texts,
graded by the choice's text (never its position) and shown to each learner in an order of
their own."""

from __future__ import annotations

import hashlib

from app.learning import grader
from app.learning.grader import Graded
from app.learning.kinds.kind import Answer, Prompt, QuestionKind, Review, item_number
from app.lessons.schema import ChoicePrediction, Lesson


def prediction_fingerprint(prediction: ChoicePrediction) -> str:
    # The choices' file order is not part of the question: learners see them shuffled anyway.
    return PREDICTION.fingerprint(prediction.question, sorted(prediction.texts), prediction.answer)


def choice_order(learner: str, lesson: str, step: int, texts: list[str]) -> list[str]:
    """The choices in this learner's order: a keyed hash of (lesson, step, choice) with the
    learner's id as key. Stable for one learner (across reloads, devices with the same cookie,
    and every page that asks the question), different between learners, never file order."""
    key = learner.encode()[:64]

    def rank(text: str) -> bytes:
        message = f"{lesson}\0{step}\0{text}".encode()
        return hashlib.blake2b(message, key=key, digest_size=16).digest()

    return sorted(texts, key=rank)


def _prompt(lesson: Lesson, key: str, order: str) -> Prompt | None:
    number = item_number(key, len(lesson.steps))
    step = lesson.steps[number - 1] if number else None
    if number is None or step is None or step.prediction is None:
        return None
    return Prompt(
        lesson,
        PREDICTION,
        key,
        f"Step {number}: {step.title}",
        step.prediction.question,
        prediction_fingerprint(step.prediction),
        code=step.snippet.code if step.snippet else None,
        choices=choice_order(order, lesson.slug, number, step.prediction.texts),
    )


def _grade(prompt: Prompt, answer: Answer) -> Graded:
    return grader.graded_choice(prompt.lesson.steps[int(prompt.key) - 1], answer.choice)


PREDICTION = QuestionKind(
    name="prediction",
    label="Prediction",
    plural="predictions",
    page="step-by-step",
    widget="choice",
    confidence=True,
    count_in=lambda lesson: sum(step.prediction is not None for step in lesson.steps),
    review=Review(_prompt, _grade),
    anchor="step-{key}",
)
