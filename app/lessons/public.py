"""What a client may see of a lesson before answering anything.

Quiz answers (prediction answers, value-prediction values, myth verdicts and everything that
gives them away) stay on the server; they are revealed only by answering.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.lessons.disclosure import Disclosure, asks
from app.lessons.format import (
    Connection,
    Lesson,
    Level,
    MentalModel,
    Overview,
    Pitfall,
    Snippet,
    Step,
    StepLevel,
    UnderTheHood,
)

# What explains a step's answer (see `Step`): revealed only with the answer.
_REVEALED_STEP_FIELDS = {"concept", "explanation", "insight"}
_HIDDEN_MYTH_FIELDS = {"answer", "belief", "reality", "why_it_matters", "demo", "forms"}
# The reference: sent once the build-up is answered or read ahead (app/lessons/disclosure.py).
_REFERENCE_FIELDS: dict[str, list[object] | None] = {
    "under_the_hood": None,
    "why_designed": None,
    "expert_zone": [],
    "when_not_to_use": None,
    "production_patterns": None,
    "connections": [],
    "takeaways": [],
}


class LessonListing(BaseModel):
    """A lesson in the catalog's list (GET /api/lessons)."""

    slug: str
    title: str
    summary: str
    level: Level
    minutes: int


def lesson_summary(lesson: Lesson) -> LessonListing:
    return LessonListing.model_validate(
        lesson.model_dump(include={"slug", "title", "summary", "level", "minutes"})
    )


class AskedChoice(BaseModel):
    question: str
    choices: list[str]


class AskedValue(BaseModel):
    question: str
    tensor: str


class AskedOrdering(BaseModel):
    question: str
    head: str  # the code above the lines, shown as it is
    lines: list[str]  # in this learner's order, never the author's
    output: str  # what the right order prints


class AskedSelectAll(BaseModel):
    question: str
    options: list[str]  # the statements, in this learner's order; never which hold


class PublicStep(BaseModel):
    """A step as a client sees it. On a step that asks something, `concept`, `explanation`
    and `insight` are absent and `snippet` is only its `code`; on a step that asks a choice,
    `value_prediction` is absent until that choice is committed."""

    title: str
    level: StepLevel
    setup: str | None = None
    concept: str | None = None
    explanation: str | None = None
    snippet: Snippet | None = None
    prediction: AskedChoice | None = None
    value_prediction: AskedValue | None = None
    ordering: AskedOrdering | None = None
    select_all: AskedSelectAll | None = None
    insight: str | None = None


class PublicMyth(BaseModel):
    question: str


class PublicPitfall(Pitfall):
    """A pitfall with its number in the lesson (only the open ones are sent)."""

    number: int


class PublicLesson(BaseModel):
    """The lesson without its answers (GET /api/lessons/{slug}). Serialize it with
    `exclude_unset`: a field that is hidden is absent, not null."""

    format: int
    slug: str
    title: str
    summary: str
    level: Level
    minutes: int
    order: int
    torch_version: str
    prerequisites: list[str]
    next: str | None
    overview: Overview
    mental_model: MentalModel
    steps: list[PublicStep]
    under_the_hood: UnderTheHood | None
    why_designed: str | None
    myths: list[PublicMyth]
    expert_zone: list[str]
    when_not_to_use: str | None
    production_patterns: str | None
    connections: list[Connection]
    pitfalls: list[PublicPitfall]
    takeaways: list[str]
    # True while the reference (under the hood ... takeaways) waits for the build-up's answers
    # (docs/quizzes.md); its fields are then empty.
    reference_withheld: bool = False


def public_lesson(
    lesson: Lesson, orders: list[list[str]] | None = None, disclosure: Disclosure | None = None
) -> PublicLesson:
    """The lesson as a learner with this disclosure may see it (by default, a new one).
    `orders`: each step's choices, or the lines it asks to order, in the order this learner
    sees them (when not given: a choice's file order; an ordering's lines never in the
    author's order)."""
    data = _public_data(lesson, disclosure or Disclosure(lesson, frozenset()))
    for order, raw, step in zip(orders or [], data["steps"], lesson.steps, strict=False):
        for field, question in step.questions():
            if question.in_learner_order and raw.get(field) is not None:
                raw[field][question.in_learner_order] = order
    return PublicLesson.model_validate(data)


def _public_data(lesson: Lesson, shown: Disclosure) -> dict[str, Any]:
    data = lesson.model_dump(mode="json")
    if not shown.reference:
        data.update({field: empty for field, empty in _REFERENCE_FIELDS.items()})
        data["reference_withheld"] = True
    opened = {number for number, _ in shown.pitfalls()}
    data["pitfalls"] = [
        {**pitfall, "number": number}
        for number, pitfall in enumerate(data["pitfalls"], start=1)
        if number in opened
    ]
    for number, (raw_step, step) in enumerate(zip(data["steps"], lesson.steps, strict=True), 1):
        _public_step(number, raw_step, step, shown)
    data["myths"] = [
        {k: v for k, v in myth.items() if k not in _HIDDEN_MYTH_FIELDS} for myth in data["myths"]
    ]
    return data


def _public_step(number: int, raw_step: dict[str, Any], step: Step, shown: Disclosure) -> None:
    """What of one step a learner is sent (in place, on the step's dump)."""
    raw_step.pop("variants", None)  # every instance's answers: practice asks one at a time
    raw_step.pop("no_variants", None)  # a note for authors
    for field in step.QUESTIONS:
        # A question that may wait for another is absent, never null, on a step that does not
        # ask it: null there and absent where it waits would tell the two apart.
        if getattr(step, field) is None and step.question_model(field).after_others:
            raw_step.pop(field, None)
    for field, question in step.questions():
        if not shown.question_open(number, question):
            # A typed value waits for the choice: its mere presence would say the code does
            # not raise.
            raw_step.pop(field, None)
        else:
            raw_step[field] = question.sent(step.snippet)
        if question.withholds_code:
            raw_step.pop("snippet", None)  # the code is the answer
    # A step that asks something keeps its output, grads and the text explaining them
    # until it is answered.
    if asks(step):
        for field in _REVEALED_STEP_FIELDS:
            raw_step.pop(field, None)
        if raw_step.get("snippet") is not None:
            raw_step["snippet"] = {"code": raw_step["snippet"]["code"]}
