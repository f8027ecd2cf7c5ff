"""What a client may see of a lesson before answering anything.

Quiz answers (prediction answers, value-prediction values, myth verdicts and everything that
gives them away) stay on the server; they are revealed only by answering.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.lessons.schema import (
    Connection,
    Lesson,
    Level,
    MentalModel,
    Overview,
    Pitfall,
    Snippet,
    StepLevel,
    UnderTheHood,
)

_HIDDEN_STEP_FIELDS = {
    "prediction": {"answer", "explanation"},
    "value_prediction": {"expected", "explanation"},
}
# What explains a step's answer (see `Step`): revealed only with the answer.
_REVEALED_STEP_FIELDS = {"concept", "explanation", "insight"}
_HIDDEN_MYTH_FIELDS = {"answer", "belief", "reality", "why_it_matters", "demo"}


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


class PublicStep(BaseModel):
    """A step as a client sees it. On a step that asks something, `concept`, `explanation`
    and `insight` are absent and `snippet` is only its `code`."""

    title: str
    level: StepLevel
    setup: str | None = None
    concept: str | None = None
    explanation: str | None = None
    snippet: Snippet | None = None
    prediction: AskedChoice | None = None
    value_prediction: AskedValue | None = None
    insight: str | None = None


class PublicMyth(BaseModel):
    question: str


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
    pitfalls: list[Pitfall]
    takeaways: list[str]


def public_lesson(lesson: Lesson, orders: list[list[str]] | None = None) -> PublicLesson:
    """`orders`: each step's choices in the order this learner sees them (file order when
    not given)."""
    data = _public_data(lesson)
    for order, raw in zip(orders or [], data["steps"], strict=False):
        if raw.get("prediction") is not None:
            raw["prediction"]["choices"] = order
    return PublicLesson.model_validate(data)


def _public_data(lesson: Lesson) -> dict[str, Any]:
    data = lesson.model_dump(mode="json")
    for raw_step, step in zip(data["steps"], lesson.steps, strict=True):
        for field, hidden in _HIDDEN_STEP_FIELDS.items():
            if raw_step.get(field) is not None:
                raw_step[field] = {k: v for k, v in raw_step[field].items() if k not in hidden}
        if step.prediction is not None:
            # A wrong choice's `why` and `because` would say it is wrong: only its text shows.
            raw_step["prediction"]["choices"] = step.prediction.texts
        # A step that asks for a prediction keeps its output, grads and the text explaining
        # them until it is answered.
        if step.prediction or step.value_prediction:
            for field in _REVEALED_STEP_FIELDS:
                raw_step.pop(field, None)
            if raw_step.get("snippet") is not None:
                raw_step["snippet"] = {"code": raw_step["snippet"]["code"]}
    data["myths"] = [
        {k: v for k, v in myth.items() if k not in _HIDDEN_MYTH_FIELDS} for myth in data["myths"]
    ]
    return data
