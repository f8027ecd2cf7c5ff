"""Review items: what to ask for each kind of item in the queue, and how to grade the answer.

An item is named by (lesson, kind, key): a step's prediction ("prediction", "3"), a myth
("myth", "2"), a drill ("drill", "step-2.x") or a flashcard ("flashcard", "takeaway-1"). The
prompt never carries the answer; grading returns it with the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app import rendering
from app.lessons.grading import TypedValueError, grade_value
from app.lessons.numeric import shape_of
from app.lessons.schema import Lesson
from app.modes.drills import Drill, find_drill
from app.modes.flashcards import Flashcard, find_flashcard
from app.modes.scheduler import Grade

KINDS = ("prediction", "myth", "drill", "flashcard")
KIND_NAMES = {
    "prediction": "Prediction",
    "myth": "Myth",
    "drill": "Predict the gradient",
    "flashcard": "Flashcard",
}


class AnswerError(ValueError):
    """The answer does not fit the item (not one of its choices, no rating, ...)."""


@dataclass(frozen=True)
class Prompt:
    lesson: Lesson
    kind: str
    key: str
    source: str  # where it comes from, e.g. "Step 2: backward() writes the slope into .grad"
    question: str  # Markdown
    link: str  # the page it comes from
    code: str | None = None
    choices: list[str] = field(default_factory=list)
    belief: str | None = None
    tensor: str | None = None
    card: Flashcard | None = None


def _number(key: str, count: int) -> int | None:
    return int(key) if key.isdigit() and 1 <= int(key) <= count else None


def prompt_for(lesson: Lesson, kind: str, key: str) -> Prompt | None:
    """What to show for an item; None when the lesson no longer has it."""
    base = f"/lessons/{lesson.slug}"
    if kind == "prediction":
        number = _number(key, len(lesson.steps))
        step = lesson.steps[number - 1] if number else None
        if number is None or step is None or step.prediction is None:
            return None
        return Prompt(
            lesson,
            kind,
            key,
            f"Step {number}: {step.title}",
            step.prediction.question,
            f"{base}/step-by-step#step-{number}",
            code=step.snippet.code if step.snippet else None,
            choices=step.prediction.texts,
        )
    if kind == "myth":
        number = _number(key, len(lesson.myths))
        if number is None:
            return None
        myth = lesson.myths[number - 1]
        return Prompt(
            lesson,
            kind,
            key,
            f"Myth {number}",
            myth.question,
            f"{base}/myth-busters",
            belief=myth.belief,
        )
    if kind == "drill":
        drill = find_drill(lesson, key)
        if drill is None:
            return None
        return Prompt(
            lesson,
            kind,
            key,
            drill.source,
            f"After this code runs, what is `{drill.tensor}.grad`?",
            f"{base}/predict-the-gradient",
            code=drill.code,
            tensor=drill.tensor,
        )
    if kind == "flashcard":
        card = find_flashcard(lesson, key)
        if card is None:
            return None
        return Prompt(
            lesson,
            kind,
            key,
            "Key insight" if card.kind == "insight" else "Takeaway",
            card.prompt,
            f"{base}/flashcards",
            card=card,
        )
    return None


@dataclass(frozen=True)
class Answer:
    choice: str | None = None
    answer: str | None = None  # a myth's yes / no
    value: str | None = None
    rating: Grade | None = None


@dataclass(frozen=True)
class Outcome:
    correct: bool
    grade: Grade | None  # None: nothing to schedule (a typed value that could not be read)
    reveal: dict[str, Any]


def drill_feedback(drill: Drill, typed: str, reveal: bool) -> tuple[bool | None, dict[str, Any]]:
    """Grade a typed `.grad` (numerically, per element). Returns (correct or None when the
    text could not be read, feedback); the answer is in the feedback only when right or
    when `reveal` is asked for."""
    try:
        comparison, parsed = grade_value(drill.expected, typed)
    except TypedValueError as exc:
        if not reveal:
            return None, {
                "parsed": False,
                "problem": str(exc),
                "shape_ok": False,
                "elements": [],
                "expected_shape": None,
                "your_shape": None,
                "expected": None,
            }
        comparison, parsed = None, None
    correct = comparison is not None and comparison.matches
    show = correct or reveal
    return correct, {
        "parsed": comparison is not None,
        "problem": comparison.problem if comparison else None,
        "shape_ok": comparison.shape_ok if comparison else False,
        "elements": comparison.elements if comparison else [],
        "expected_shape": shape_of(drill.expected),
        "your_shape": shape_of(parsed) if comparison is not None and parsed is not None else None,
        "expected": drill.expected if show else None,
    }


def flashcard_back(card: Flashcard) -> dict[str, str | None]:
    return {
        "back_html": str(rendering.markdown(card.back)),
        "answer_html": str(rendering.markdown_inline(card.answer)) if card.answer else None,
    }


def grade(prompt: Prompt, answer: Answer) -> Outcome:
    """Grade a review answer. Right counts as `good`, wrong as `again`; flashcards carry the
    learner's own rating. The reveal holds the answer and why."""
    lesson = prompt.lesson
    if prompt.kind == "prediction":
        step = lesson.steps[int(prompt.key) - 1]
        if step.prediction is None or answer.choice not in step.prediction.texts:
            raise AnswerError("That is not one of the choices")
        correct = answer.choice == step.prediction.answer
        return Outcome(
            correct,
            Grade.good if correct else Grade.again,
            {
                "answer": step.prediction.answer,
                "explanation_html": str(rendering.markdown(step.prediction.explanation)),
                "output": step.snippet.output if step.snippet else None,
            },
        )
    if prompt.kind == "myth":
        myth = lesson.myths[int(prompt.key) - 1]
        if answer.answer not in ("yes", "no"):
            raise AnswerError("Answer yes or no")
        correct = answer.answer == myth.answer
        return Outcome(
            correct,
            Grade.good if correct else Grade.again,
            {
                "answer": myth.answer,
                "reality_html": str(rendering.markdown(myth.reality)),
                "why_it_matters_html": str(rendering.markdown(myth.why_it_matters)),
            },
        )
    if prompt.kind == "drill":
        drill = find_drill(lesson, prompt.key)
        if drill is None or answer.value is None:
            raise AnswerError("Type a value")
        right, feedback = drill_feedback(drill, answer.value, reveal=False)
        if right is None:
            return Outcome(False, None, feedback)  # unreadable: nothing graded, type again
        return Outcome(
            right, Grade.good if right else Grade.again, {**feedback, "expected": drill.expected}
        )
    if prompt.card is None or answer.rating is None:
        raise AnswerError("Rate the card: again, hard, good or easy")
    return Outcome(
        answer.rating in (Grade.good, Grade.easy), answer.rating, flashcard_back(prompt.card)
    )
