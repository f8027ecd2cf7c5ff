"""A step's typed value: the learner types a tensor's `.grad`, checked element by element
against what the step's code really produces. A miss is reviewed as the step's drill (the same
question, asked on Predict the gradient), so this kind never enters the queue itself."""

from __future__ import annotations

from app.learning.kinds.kind import QuestionKind
from app.lessons.schema import ValuePrediction


def value_fingerprint(guess: ValuePrediction) -> str:
    return VALUE.fingerprint(guess.question, guess.tensor, guess.expected)


VALUE = QuestionKind(
    name="value",
    label="Typed value",
    plural="typed values",
    page="step-by-step",
    widget="value",
    confidence=False,
    count_in=lambda lesson: sum(step.value_prediction is not None for step in lesson.steps),
    anchor="step-{key}",
)
