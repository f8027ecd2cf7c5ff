"""The one grader: every question kind (choice prediction, typed value, myth, drill, flashcard
rating, pitfall fix) is graded here, and here its reveal is built. The lesson page, the modes
and the review queue all call it, so a question is graded and explained the same everywhere.

A reveal carries what explains the answer (the step's concept, explanation and insight, the
picked wrong choice's `why`, a myth's belief and reality); nothing else sends them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app import rendering
from app.errors import AnswerError, NotAChoice
from app.learning.schemas import (
    DrillFeedback,
    FixVerdict,
    FlashcardBack,
    MythReveal,
    OrderingReveal,
    PredictionReveal,
    Reveal,
    Score,
    StepReveal,
    ValueFeedback,
    ValueQuestion,
)
from app.lessons.format import Myth, MythForm, Pitfall, Snippet, Step, ValueMisconception
from app.lessons.grading import TypedValueError, grade_value, why_wrong
from app.lessons.numeric import shape_of
from app.lessons.variants import Instance, expected_value
from app.modes.flashcards import Flashcard
from app.modes.pitfalls import judge_fix
from app.pedagogy.scheduler import Grade
from app.sandbox.result import RunResult


@dataclass(frozen=True)
class Graded:
    """A graded answer: right or not, how it schedules (None: nothing to count, e.g. a typed
    value that could not be read), and its reveal."""

    correct: bool
    grade: Grade | None
    reveal: Reveal  # the one union of what a graded answer reveals (app/learning/schemas.py)


def schedule(correct: bool) -> Grade:
    # Answers the server grades count as `good` when right, `again` when wrong.
    return Grade.good if correct else Grade.again


# --- choice predictions -----------------------------------------------------------------------
def step_reveal(step: Step) -> StepReveal:
    return StepReveal(
        concept_html=str(rendering.markdown_inline(step.concept)),
        explanation_html=str(rendering.markdown(step.explanation)),
        insight_html=str(rendering.markdown_inline(step.insight)),
    )


NO_CONFIDENCE = (
    "Say how sure you are (Guess, Fairly sure or Certain) before you commit: "
    "there is no default, so that calibration counts only what you chose"
)


def require_confidence(confidence: str | None) -> str:
    """A prediction's confidence, which the learner must choose: a default would be counted in
    calibration as if they had said it."""
    if confidence is None:
        raise AnswerError(NO_CONFIDENCE)
    return confidence


def grade_choice(step: Step, choice: str | None) -> bool:
    """Graded by the choice's text, never by its position."""
    if step.prediction is None or choice is None or step.prediction.choice(choice) is None:
        raise NotAChoice("That is not one of the choices")
    return choice == step.prediction.answer


def snippet_error(ran: Snippet | Instance | None) -> dict[str, str] | None:
    """What a snippet or a variant instance raised, for its reveal."""
    if ran is None or ran.error is None:
        return None
    return {"type": ran.error.type, "message_contains": ran.error.message_contains}


def prediction_reveal(
    step: Step, choice: str, correct: bool, attempt: int, instance: Instance | None = None
) -> PredictionReveal:
    """`instance`: the variant instance the typed value that this reveal opens asks on."""
    prediction = step.prediction
    if prediction is None:
        raise AnswerError("This step asks for no prediction")
    picked = prediction.choice(choice)
    why = picked.why if picked is not None and not correct else None
    return PredictionReveal(
        correct=correct,
        answer=prediction.answer,
        explanation_html=str(rendering.markdown(prediction.explanation)),
        why_html=str(rendering.markdown_inline(why)) if why else None,
        output=step.snippet.output if step.snippet is not None else None,
        error=snippet_error(step.snippet),
        attempt=attempt,
        step=step_reveal(step),
        value=value_question(step, instance),
    )


def value_question(step: Step, instance: Instance | None = None) -> ValueQuestion | None:
    """The typed-value question the committed choice opens, for the page to draw at once; on
    a variant instance, with that instance's code (the step's own answer was just shown)."""
    guess = step.value_prediction
    if guess is None:
        return None
    return ValueQuestion(
        question_html=str(rendering.markdown_inline(guess.question)),
        tensor=guess.tensor,
        code=instance.code if instance is not None else None,
    )


def instance_choice(step: Step, instance: Instance, choice: str | None) -> Graded:
    """A prediction asked on a variant instance: graded by text against that instance's
    answer; its reveal shows the instance's output and explanation."""
    picked = instance.choice(choice) if choice is not None else None
    if step.prediction is None or picked is None:
        raise NotAChoice("That is not one of the choices")
    correct = picked.text == instance.answer
    why = picked.why if not correct else None
    reveal = PredictionReveal(
        correct=correct,
        answer=instance.answer or "",
        explanation_html=str(rendering.markdown(instance.explanation)),
        why_html=str(rendering.markdown_inline(why)) if why else None,
        output=instance.output,
        error=snippet_error(instance),
        attempt=0,
        # The step's concept and insight hold for every instance; its explanation speaks of the
        # step's own numbers, so the instance's own (above) stands in for it.
        step=step_reveal(step).model_copy(update={"explanation_html": ""}),
    )
    return Graded(correct, schedule(correct), reveal)


def instance_rubric(step: Step, instance: Instance, unlocks: Step | None = None) -> ValueRubric:
    """What a typed value asked on a variant instance is graded against."""
    return ValueRubric(
        expected_value(step, instance), instance.explanation, unlocks, instance.misconceptions
    )


# --- orderings -------------------------------------------------------------------------------
def ordering_program(step: Step, order: list[str], instance: Instance | None = None) -> str:
    """The code a learner's order of the step's lines (or of `instance`'s, a variant instance
    review asks) makes; refused unless the order has each of the lines once."""
    ordering = step.ordering
    texts = list(instance.lines) if instance is not None else ordering.texts if ordering else []
    if ordering is None or not texts or sorted(order) != sorted(texts):
        raise NotAChoice("Send each of the step's lines once, in the order you chose")
    head = instance.head if instance is not None else step.ordering_head
    return ordering.program(head, order)


def order_passes(step: Step, result: RunResult, instance: Instance | None = None) -> bool:
    """Graded by running: an order passes when its code prints the snippet's output (or the
    instance's) without raising, whatever its order (any order that behaves right is right)."""
    expected = _ordering_output(step, instance)
    return result.status == "ok" and result.error is None and result.stdout == expected


def _ordering_output(step: Step, instance: Instance | None) -> str:
    if instance is not None:
        return instance.output
    return step.snippet.output if step.snippet is not None else ""


def ordering_reveal(
    step: Step,
    correct: bool,
    attempt: int,
    result: RunResult | None = None,
    instance: Instance | None = None,
) -> OrderingReveal:
    """`result`: the run of the learner's order (None when restored: only the verdict is kept);
    `instance`: the variant instance asked (its own order and explanation are revealed)."""
    if step.ordering is None or step.snippet is None:
        raise AnswerError("This step asks for no ordering")
    error = result.error if result is not None else None
    explanation = instance.explanation if instance is not None else step.ordering.explanation
    shown = step_reveal(step)
    if instance is not None:
        # The step's concept and insight hold for every instance; its explanation speaks of
        # the step's own code, so the instance's own (above) stands in for it.
        shown = shown.model_copy(update={"explanation_html": ""})
    return OrderingReveal(
        correct=correct,
        answer=list(instance.lines) if instance is not None else step.ordering.texts,
        explanation_html=str(rendering.markdown(explanation)),
        expected=_ordering_output(step, instance),
        output=result.stdout if result is not None else None,
        error={"type": error.type, "message": error.message[:300]} if error else None,
        attempt=attempt,
        step=shown,
    )


# --- myths ------------------------------------------------------------------------------------
def grade_myth(myth: Myth, answer: str | None) -> bool:
    if answer not in ("yes", "no"):
        raise AnswerError("Answer yes or no")
    return answer == myth.answer


def myth_reveal(
    myth: Myth, correct: bool, score: Score | None = None, form: MythForm | None = None
) -> MythReveal:
    """A myth's reveal; asked as another `form`, that form's answer, reality and demo, with the
    myth's belief and why it matters, which hold for every form."""
    asked = form or myth
    demo = {"code": asked.demo.code, "output": asked.demo.output} if asked.demo else None
    return MythReveal(
        correct=correct,
        answer=asked.answer,
        belief_html=str(rendering.markdown_inline(myth.belief)),
        reality_html=str(rendering.markdown(asked.reality)),
        why_it_matters_html=str(rendering.markdown(myth.why_it_matters)),
        demo=demo,
        score=score,
    )


# --- typed values and drills ------------------------------------------------------------------
@dataclass(frozen=True)
class ValueRubric:
    """What a typed `.grad` is graded against, and what a reveal of it shows (its rubric)."""

    expected: object
    explanation: str | None = None
    step: Step | None = None  # the step whose text the answer unlocks, if any
    misconceptions: Sequence[ValueMisconception] = ()  # named wrong values and their why


def grade_typed(rubric: ValueRubric, typed: str, reveal: bool) -> tuple[bool | None, DrillFeedback]:
    """Grade a typed `.grad` numerically, element by element. Returns (correct, or None when
    the text could not be read; feedback). The answer, its explanation and the step's text are
    in the feedback only when right or when `reveal` asks for them."""
    try:
        comparison, parsed = grade_value(rubric.expected, typed)
    except TypedValueError as exc:
        if not reveal:
            return None, DrillFeedback(
                correct=False,
                parsed=False,
                problem=str(exc),
                shape_ok=False,
                expected_shape=None,
                your_shape=None,
                elements=[],
            )
        comparison, parsed = None, None
    correct = comparison is not None and comparison.matches
    show = correct or reveal
    explanation = rubric.explanation if show else None
    why = (
        why_wrong(rubric.misconceptions, rubric.expected, parsed)
        if comparison and not correct
        else None
    )
    return correct, DrillFeedback(
        correct=correct,
        parsed=comparison is not None,
        problem=comparison.problem if comparison else None,
        shape_ok=comparison.shape_ok if comparison else False,
        expected_shape=shape_of(rubric.expected) if rubric.expected is not None else None,
        your_shape=shape_of(parsed) if comparison is not None and parsed is not None else None,
        elements=comparison.elements if comparison else [],
        expected=rubric.expected if show else None,  # type: ignore[arg-type]
        explanation_html=str(rendering.markdown(explanation)) if explanation else None,
        why_html=str(rendering.markdown_inline(why)) if why else None,
        step=step_reveal(rubric.step) if show and rubric.step is not None else None,
    )


def value_feedback(feedback: DrillFeedback) -> ValueFeedback:
    """A lesson step's graded value answers without the queue flag."""
    return ValueFeedback.model_validate(feedback.model_dump(exclude={"queued"}))


# --- flashcards and pitfall fixes -------------------------------------------------------------
def flashcard_back(card: Flashcard) -> FlashcardBack:
    return FlashcardBack(
        back_html=str(rendering.markdown(card.back)),
        answer_html=str(rendering.markdown_inline(card.answer)) if card.answer else None,
    )


def grade_rating(card: Flashcard, rating: Grade | None) -> Graded:
    """A flashcard is graded by the learner: good and easy count as known."""
    if rating is None:
        raise AnswerError("Rate the card: again, hard, good or easy")
    return Graded(rating in (Grade.good, Grade.easy), rating, flashcard_back(card))


def fix_verdict(pitfall: Pitfall, result: RunResult) -> FixVerdict:
    verdict = judge_fix(pitfall, result)
    return FixVerdict(
        passed=verdict.passed,
        reasons_html=[str(rendering.markdown(reason)) for reason in verdict.reasons],
        result=result,
    )


# --- graded answers for the review queue (app/learning/kinds/ says which kind uses which) -----
def graded_choice(step: Step, choice: str | None) -> Graded:
    correct = grade_choice(step, choice)
    return Graded(correct, schedule(correct), prediction_reveal(step, choice or "", correct, 0))


def graded_myth(myth: Myth, answer: str | None) -> Graded:
    correct = grade_myth(myth, answer)
    return Graded(correct, schedule(correct), myth_reveal(myth, correct))


def graded_myth_form(myth: Myth, form: MythForm, answer: str | None) -> Graded:
    if answer not in ("yes", "no"):
        raise AnswerError("Answer yes or no")
    correct = answer == form.answer
    return Graded(correct, schedule(correct), myth_reveal(myth, correct, form=form))


def graded_value(rubric: ValueRubric, typed: str | None) -> Graded:
    if typed is None:
        raise AnswerError("Type a value")
    right, feedback = grade_typed(rubric, typed, reveal=False)
    if right is None:
        return Graded(False, None, feedback)  # unreadable: nothing graded, type again
    shown = feedback.model_copy(update={"expected": rubric.expected})
    return Graded(right, schedule(right), shown)
