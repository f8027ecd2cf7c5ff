"""A step's typed value: the learner types a tensor's `.grad`, checked element by element
against what the step's code really produces. A miss is reviewed as the step's drill (the same
question, asked on Predict the gradient), so this kind never enters the queue itself."""

from __future__ import annotations

from app.learning.kinds.kind import QuestionKind
from app.lessons.format import Step, ValuePrediction
from app.lessons.memo import per_object
from app.progress.records import StepRecord


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def value_fingerprint(guess: ValuePrediction) -> str:
    return VALUE.fingerprint(guess.question, guess.tensor, guess.expected)


def _committed(step: Step, record: StepRecord) -> bool:
    # A typed value commits its step (one that asks no choice) once right or revealed.
    value, guess = record.value, step.value_prediction
    return (
        value is not None
        and guess is not None
        and (value.correct or value.revealed)
        and value.fingerprint == value_fingerprint(guess)
    )


VALUE = QuestionKind(
    name="value",
    label="Typed value",
    plural="typed values",
    page="step-by-step",
    widget="value",
    confidence=False,
    count_in=lambda lesson: sum(step.value_prediction is not None for step in lesson.steps),
    anchor="step-{key}",
    step_field="value_prediction",
    committed=_committed,
)
