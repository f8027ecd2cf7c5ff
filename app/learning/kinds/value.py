"""A step's typed value: the learner types a tensor's `.grad`, checked element by element
against what the step's code really produces (the step's own run, or the variant instance the
value is asked on, whose answer is stored). It is tried until right or revealed, through the
one step route (`StepSide.tried`). A miss is reviewed as the step's drill (the same question,
asked on Predict the gradient), so this kind never enters the queue itself."""

from __future__ import annotations

from app.learning.answers import grader
from app.learning.kinds.drill import DRILL, TypedAnswer
from app.learning.kinds.kind import Answered, QuestionKind, StepSide, Tried
from app.learning.schemas import DrillFeedback, ValueFeedback
from app.lessons.format import Lesson, Step, ValuePrediction
from app.lessons.memo import per_object
from app.modes.drills import value_drill_id
from app.progress.records import StepRecord, ValueRecord


class ValueAnswer(TypedAnswer):
    """A typed `.grad` sent to the step route (as a drill's is typed in review); `reveal`: show
    the answer (a try that gives up)."""

    reveal: bool = False


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


def _rubric(step: Step, answered: Answered) -> grader.ValueRubric:
    """What a try is graded against: the variant instance the value is asked on (its stored
    answer), or the step's own run (the lesson's value, proved by `gradlab check`, when no
    sandbox ran it)."""
    guess = _asked(step)
    if answered.opens is not None:
        return grader.instance_rubric(step, answered.opens)
    ran = answered.result.tensors if answered.result is not None else ()
    found = next((tensor for tensor in ran if tensor.name == guess.tensor), None)
    actual = found.grad if found is not None else guess.expected
    unlocks = step if step.prediction is None else None  # a choice's reveal explains it
    return grader.ValueRubric(actual, guess.explanation, unlocks, guess.misconceptions)


def _asked(step: Step) -> ValuePrediction:
    if step.value_prediction is None:
        raise ValueError("this step asks no typed value")
    return step.value_prediction


def _graded(
    step: Step, answer: ValueAnswer, answered: Answered
) -> tuple[bool | None, DrillFeedback]:
    return grader.grade_typed(_rubric(step, answered), answer.value, answer.reveal)


def _program(step: Step, _: ValueAnswer, answered: Answered) -> str | None:
    # Asked on a variant instance, its answer is stored: nothing to run.
    return step.snippet.code if answered.opens is None and step.snippet is not None else None


def _record(step: Step, answer: ValueAnswer, correct: bool, seen: bool) -> ValueRecord:
    fingerprint = value_fingerprint(_asked(step))
    return ValueRecord(answer.value, correct, answer.reveal, fingerprint, seen)


def _missed(lesson: Lesson, number: int) -> tuple[QuestionKind, str] | None:
    drill = value_drill_id(lesson, number)
    return (DRILL, drill) if drill is not None else None


def _check(
    step: Step, answer: ValueAnswer, answered: Answered
) -> tuple[bool | None, ValueFeedback]:
    correct, feedback = _graded(step, answer, answered)
    return correct, grader.value_feedback(feedback)


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
    step=StepSide(
        keep=lambda answer: answer.value,
        sent=lambda text: {"value": text},
        grade=lambda step, answer, answered: _graded(step, answer, answered)[0],
        program=_program,
        answer=ValueAnswer,
        without_sandbox=True,
        tried=Tried(record=_record, missed=_missed, check=_check),
    ),
)
