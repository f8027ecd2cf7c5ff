"""Review items: what to ask for each kind of item in the queue, graded by the one grader.

An item is named by (lesson, kind, key): a step's prediction ("prediction", "3"), a myth
("myth", "2"), a drill ("drill", "step-2.x") or a flashcard ("flashcard", "takeaway-1"). The
prompt never carries the answer, nor what explains it; grading returns them with the verdict.
Its fingerprint names the version of the question, so a rewritten one retires its old card.
A prediction or drill on a step with variants asks an instance (app/lessons/variants.py),
picked by the return's own key, never the one the learner's typed value asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.errors import AnswerError
from app.learning import grader
from app.learning.grader import Graded, ValueCheck
from app.learning.questions import (
    choice_order,
    item_fingerprint,
    myth_fingerprint,
    prediction_fingerprint,
)
from app.lessons.schema import Lesson
from app.lessons.variants import Instance, pick
from app.modes.drills import Drill, find_drill, for_learner, value_key
from app.modes.flashcards import Flashcard, find_flashcard
from app.modes.scheduler import Grade

__all__ = ["KIND_NAMES", "Answer", "Prompt", "grade", "prompt_for"]

# The mode page each kind of item is asked on.
_PAGES = {
    "prediction": "step-by-step",
    "myth": "myth-busters",
    "drill": "predict-the-gradient",
    "flashcard": "flashcards",
}
KIND_NAMES = {
    "prediction": "Prediction",
    "myth": "Myth",
    "drill": "Predict the gradient",
    "flashcard": "Flashcard",
}


@dataclass(frozen=True)
class Prompt:
    lesson: Lesson
    kind: str
    key: str
    source: str  # where it comes from, e.g. "Step 2: backward() writes the slope into .grad"
    question: str  # Markdown
    fingerprint: str
    code: str | None = None
    choices: list[str] = field(default_factory=list)
    tensor: str | None = None
    card: Flashcard | None = None
    instance: Instance | None = None  # a prediction asked on a variant instance
    drill: Drill | None = None  # a drill as asked (on this return's instance, if any)

    @property
    def link(self) -> str:
        """The page the item comes from."""
        page = f"/lessons/{self.lesson.slug}/{_PAGES[self.kind]}"
        return f"{page}#step-{self.key}" if self.kind == "prediction" else page


@dataclass(frozen=True)
class Answer:
    choice: str | None = None
    answer: str | None = None  # a myth's yes / no
    value: str | None = None
    rating: Grade | None = None
    confidence: str | None = None  # asked of every kind the server grades


def _number(key: str, count: int) -> int | None:
    return int(key) if key.isdigit() and 1 <= int(key) <= count else None


def _prediction(lesson: Lesson, key: str, order: str, learner: str | None) -> Prompt | None:
    number = _number(key, len(lesson.steps))
    step = lesson.steps[number - 1] if number else None
    if number is None or step is None or step.prediction is None:
        return None
    # On a step with variants, each return asks an instance: other numbers than the lesson's
    # own code and than the typed value the learner answered there.
    avoid = value_key(learner, lesson.slug, number) if learner else None
    instance = pick(step, order, avoid=avoid)
    texts = instance.texts if instance else step.prediction.texts
    code = instance.code if instance else step.snippet.code if step.snippet else None
    return Prompt(
        lesson,
        "prediction",
        key,
        f"Step {number}: {step.title}",
        step.prediction.question,
        prediction_fingerprint(step.prediction),
        code=code,
        choices=choice_order(order, lesson.slug, number, texts),
        instance=instance,
    )


def _myth(lesson: Lesson, key: str) -> Prompt | None:
    number = _number(key, len(lesson.myths))
    if number is None:
        return None
    myth = lesson.myths[number - 1]
    return Prompt(lesson, "myth", key, f"Myth {number}", myth.question, myth_fingerprint(myth))


def _drill(lesson: Lesson, key: str, order: str, learner: str | None) -> Prompt | None:
    if (drill := find_drill(lesson, key)) is None:
        return None
    asks = f"After this code runs, what is `{drill.tensor}.grad`?"
    # The drill as the lesson declares it names the question; the instance asked varies.
    fingerprint = item_fingerprint("drill", drill.code, drill.tensor, drill.expected)
    asked = for_learner(lesson, drill, learner, f"review/{order}") if learner else drill
    return Prompt(
        lesson,
        "drill",
        key,
        drill.source,
        asks,
        fingerprint,
        asked.code,
        tensor=drill.tensor,
        drill=asked,
    )


def _flashcard(lesson: Lesson, key: str) -> Prompt | None:
    if (card := find_flashcard(lesson, key)) is None:
        return None
    source = "Key insight" if card.kind == "insight" else "Takeaway"
    return Prompt(
        lesson, "flashcard", key, source, card.prompt, flashcard_fingerprint(card), card=card
    )


def flashcard_fingerprint(card: Flashcard) -> str:
    return item_fingerprint("flashcard", card.prompt, card.back)


def prompt_for(
    lesson: Lesson, kind: str, key: str, order: str, learner: str | None = None
) -> Prompt | None:
    """What to show for an item, its choices in the order `order` keys (see `choice_order`),
    and on a step with variants the instance `order` picks for `learner`; None when the
    lesson no longer has it."""
    if kind == "prediction":
        return _prediction(lesson, key, order, learner)
    if kind == "myth":
        return _myth(lesson, key)
    if kind == "drill":
        return _drill(lesson, key, order, learner)
    if kind == "flashcard":
        return _flashcard(lesson, key)
    return None


def grade(prompt: Prompt, answer: Answer) -> Graded:
    """Grade a review answer with the grader the lesson pages use. Right counts as `good`,
    wrong as `again`; flashcards carry the learner's own rating. Every other kind asks how sure
    the learner is, as a lesson page does."""
    lesson = prompt.lesson
    if prompt.kind != "flashcard":
        grader.require_confidence(answer.confidence)
    if prompt.kind == "prediction":
        step = lesson.steps[int(prompt.key) - 1]
        if prompt.instance is not None:
            return grader.instance_choice(step, prompt.instance, answer.choice)
        return grader.graded_choice(step, answer.choice)
    if prompt.kind == "myth":
        return grader.graded_myth(lesson.myths[int(prompt.key) - 1], answer.answer)
    if prompt.kind == "drill":
        drill = prompt.drill
        if drill is None:
            raise AnswerError("Type a value")
        return grader.graded_value(
            ValueCheck(drill.expected, misconceptions=drill.misconceptions), answer.value
        )
    if prompt.card is None:
        raise AnswerError("Rate the card: again, hard, good or easy")
    return grader.grade_rating(prompt.card, answer.rating)
