"""A step's choice prediction: asked on the deep dive and step by step, one choice among texts,
graded by the choice's text (never its position) and shown to each learner in an order of
their own. On a step with variants (app/lessons/variants.py) the review asks an instance,
picked by the return's own key: never the one the learner's typed value asked on the lesson
page, nor the one the previous return asked while another remains."""

from __future__ import annotations

import hashlib

from pydantic import Field

from app.learning.answers import grader
from app.learning.answers.grader import Graded
from app.learning.kinds.kind import (
    Answered,
    Prompt,
    QuestionKind,
    Review,
    ReviewAnswer,
    StepItem,
    StepSide,
    item_number,
)
from app.learning.schemas import PredictionReveal
from app.lessons.format import ChoicePrediction, Lesson, Step
from app.lessons.memo import per_object
from app.lessons.variants import pick
from app.modes.drills import value_key
from app.progress.records import StepRecord


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
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


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    number = item_number(key, len(lesson.steps))
    step = lesson.steps[number - 1] if number else None
    if number is None or step is None or step.prediction is None:
        return None
    # On a step with variants, each return asks an instance: other numbers than the lesson's
    # own code, than the typed value the learner answered there and than the previous return.
    # (A step without a typed value asks no instance on its lesson page: none to avoid.)
    asks_value = step.value_prediction is not None
    avoid = value_key(learner, lesson.slug, number) if learner and asks_value else None
    instance = pick(step, order, avoid=avoid, previous=asked, seen=seen)
    texts = instance.texts if instance else step.prediction.texts
    code = instance.code if instance else step.snippet.code if step.snippet else None
    return Prompt(
        lesson,
        PREDICTION,
        key,
        f"Step {number}: {step.title}",
        step.prediction.question,
        prediction_fingerprint(step.prediction),
        code=code,
        choices=choice_order(order, lesson.slug, number, texts),
        instance=instance,
        form=instance.index if instance else None,
    )


class ChoiceAnswer(ReviewAnswer):
    """A prediction answered in review: the chosen text (graded by text, never position)."""

    choice: str = Field(max_length=2000)


def _grade(prompt: Prompt, answer: ChoiceAnswer) -> Graded:
    step = prompt.lesson.steps[int(prompt.key) - 1]
    if prompt.instance is not None:
        return grader.instance_choice(step, prompt.instance, answer.choice)
    return grader.graded_choice(step, answer.choice)


def _reveal_step(
    step: Step, choice: str, correct: bool, attempt: int, answered: Answered
) -> PredictionReveal:
    return grader.prediction_reveal(step, choice, correct, attempt, answered.opens)


def _committed(step: Step, record: StepRecord) -> bool:
    # A choice commits its step once given (right or wrong).
    saved = record.answer
    return (
        step.prediction is not None
        and saved is not None
        and saved.fingerprint == prediction_fingerprint(step.prediction)
    )


def _item(step: Step) -> StepItem | None:
    if (prediction := step.prediction) is None:
        return None
    whys = {c.text: c.why for c in prediction.choices if c.why}
    beliefs = {c.text: c.misconception for c in prediction.choices if c.misconception}
    texts = tuple(prediction.texts)
    return StepItem(prediction.question, prediction.answer, whys, texts, beliefs)


PREDICTION = QuestionKind(
    name="prediction",
    label="Prediction",
    plural="predictions",
    page="step-by-step",
    widget="choice",
    confidence=True,
    count_in=lambda lesson: sum(step.prediction is not None for step in lesson.steps),
    review=Review(_prompt, ChoiceAnswer, _grade),
    anchor="step-{key}",
    step_field="prediction",
    committed=_committed,
    step_answer=lambda step: prediction_fingerprint(step.prediction) if step.prediction else None,
    form_step=lambda lesson, key: item_number(key, len(lesson.steps)),
    step_item=_item,
    step=StepSide(
        keep=lambda answer: answer.choice,
        sent=lambda text: {"choice": text},
        grade=lambda step, answer, _: grader.grade_choice(step, answer.choice),
        reveal=_reveal_step,
    ),
)
