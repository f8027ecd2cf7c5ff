"""What goes over HTTP for the concept inventory: a test's items (never their answers), the
answers a learner sends, the result by concept, a learner's gain and a class's."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass

from app.learning.inventory_gain import HeldMisconception
from app.learning.schemas import Confidence

Phase = Literal["pre", "post"]


class InventoryItemOut(BaseModel):
    """An item as the test asks it: no answer, no why, choices in this learner's order."""

    id: str
    concept: str
    concept_name: str
    code: str
    question: str
    choices: list[str]


class InventoryTestOut(BaseModel):
    phase: Phase
    form: Literal["A", "B"]
    title: str
    minutes: int
    taken: bool = Field(description="This learner has taken this test already")
    items: list[InventoryItemOut]


class InventoryAnswerIn(BaseModel):
    item: str = Field(max_length=64)
    choice: str = Field(max_length=2000)
    confidence: Confidence


class InventoryBody(BaseModel):
    answers: Annotated[list[InventoryAnswerIn], Field(min_length=1, max_length=200)]


class ConceptResultOut(BaseModel):
    concept: str
    name: str
    right: int
    asked: int
    percent: float
    lessons: list[str] = Field(description="The lessons that teach the concept")


class ItemRevealOut(BaseModel):
    """After the post-test: each item's answer and why (and the learner's choice)."""

    item: str
    concept: str
    question: str
    code: str
    choice: str | None
    confidence: Confidence | None
    correct: bool
    answer: str
    explanation_html: str
    why_html: str | None = Field(description="What the picked wrong choice gets wrong")


class TestScoreOut(BaseModel):
    form: Literal["A", "B"]
    right: int
    asked: int
    percent: float
    concepts: list[ConceptResultOut]


class InventoryResultOut(BaseModel):
    phase: Phase
    score: TestScoreOut
    skip: list[str] = Field(description="Lessons whose every concept was answered right")
    items: list[ItemRevealOut] | None = Field(
        description="Each item's answer and why: after the post-test only"
    )


class ConceptGainOut(BaseModel):
    concept: str
    name: str
    pre: float
    post: float
    gain: float | None = Field(description="Hake's normalized gain; null when pre was 100 %")


class MyInventoryOut(BaseModel):
    pre: TestScoreOut | None
    post: TestScoreOut | None
    gain: float | None
    concepts: list[ConceptGainOut]
    next: Literal["pre", "post", "done"]
    path_finished: bool


class BandOut(BaseModel):
    label: str
    learners: int


# The core's record as it goes over HTTP: its fields are the record's, declared once there.
@dataclass(frozen=True)
class HeldOut(HeldMisconception):
    """A wrong choice still picked on the post-test with confidence, and by how many."""


class ClassGainOut(BaseModel):
    """A class's matched gain: only members who took both tests count."""

    id: str
    name: str
    learners: int = Field(description="Members of the class")
    matched: int = Field(description="Members who took both tests")
    pre_only: int
    post_only: int
    pre: float | None
    post: float | None
    gain: float | None = Field(description="Hake's class-average normalized gain")
    interval: list[float] | None = Field(description="95 % bootstrap interval of the gain")
    concepts: list[ConceptGainOut]
    bands: list[BandOut] = Field(description="How many individual gains fall in each band")
    no_gain: int = Field(description="Matched learners at 100 % before: no gain to compute")
    held: list[HeldOut] = Field(
        description="Post-test wrong choices picked as certain or fairly sure"
    )
