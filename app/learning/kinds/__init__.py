"""Question kinds, one declaration each (app/learning/kinds/kind.py says what one declares).

Adding a kind is adding a module here with its `QuestionKind` and listing it in `KINDS`: the
grader's entry points, the review queue, the mode registry and the templates read it, and no
other module compares a kind's name (tests/learning/test_kinds.py keeps it so).
"""

from __future__ import annotations

from app.learning.kinds.drill import DRILL, drill_fingerprint
from app.learning.kinds.exercise import EXERCISE, exercise_fingerprint
from app.learning.kinds.fix import FIX
from app.learning.kinds.flashcard import FLASHCARD, flashcard_fingerprint
from app.learning.kinds.kind import (
    Answered,
    Prompt,
    QuestionKind,
    Review,
    ReviewAnswer,
    StepSide,
    Tried,
    Widget,
)
from app.learning.kinds.myth import MYTH, myth_fingerprint
from app.learning.kinds.ordering import (
    ORDERING,
    read_order,
    step_ordering_fingerprint,
    stored_order,
)
from app.learning.kinds.prediction import PREDICTION, choice_order, prediction_fingerprint
from app.learning.kinds.select_all import SELECT_ALL, select_all_fingerprint
from app.learning.kinds.value import VALUE, value_fingerprint
from app.lessons.format import Step

__all__ = [
    "DRILL",
    "EXERCISE",
    "FIX",
    "FLASHCARD",
    "KINDS",
    "MYTH",
    "ORDERING",
    "PREDICTION",
    "SELECT_ALL",
    "STEP_KINDS",
    "VALUE",
    "Answered",
    "Prompt",
    "QuestionKind",
    "Review",
    "ReviewAnswer",
    "StepSide",
    "Tried",
    "Widget",
    "answered_at",
    "choice_order",
    "drill_fingerprint",
    "exercise_fingerprint",
    "find_kind",
    "flashcard_fingerprint",
    "myth_fingerprint",
    "prediction_fingerprint",
    "read_order",
    "select_all_fingerprint",
    "step_answer_of",
    "step_kind",
    "step_ordering_fingerprint",
    "stored_order",
    "value_fingerprint",
]

KINDS: tuple[QuestionKind, ...] = (
    PREDICTION,
    VALUE,
    MYTH,
    DRILL,
    FLASHCARD,
    FIX,
    EXERCISE,
    ORDERING,
    SELECT_ALL,
)
_BY_NAME = {kind.name: kind for kind in KINDS}
# The kinds a step asks, in KINDS' order: the pages that draw a lesson's steps ask every one.
STEP_KINDS: tuple[QuestionKind, ...] = tuple(kind for kind in KINDS if kind.step_field)


def find_kind(name: str) -> QuestionKind | None:
    """The kind a stored name stands for (a review card's), or None for a name no kind has."""
    return _BY_NAME.get(name)


_BY_FIELD = {kind.step_field: kind for kind in KINDS if kind.step_field is not None}


def step_kind(field: str) -> QuestionKind | None:
    """The kind whose question a step holds in `field` (one of `Step.QUESTIONS`)."""
    return _BY_FIELD.get(field)


_BY_PATH = {kind.path: kind for kind in KINDS if kind.step is not None}


def answered_at(path: str) -> QuestionKind | None:
    """The kind a step's question is answered as at `.../steps/{n}/{path}`, or None."""
    return _BY_PATH.get(path)


def step_answer_of(step: Step) -> tuple[QuestionKind, str] | None:
    """The kind of the step's committed answer as the store keeps it (a choice, an order) and
    the fingerprint it carries for the step as it is today; None for a step that keeps none."""
    for kind in KINDS:
        fingerprint = kind.step_answer(step) if kind.step_answer is not None else None
        if fingerprint is not None:
            return kind, fingerprint
    return None
