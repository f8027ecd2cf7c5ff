"""What goes over HTTP for the concept inventory: a test's items (never their answers), the
answers a learner sends, the result by concept (never an item's answer either: the concepts
to revisit, explained, and their lessons), a learner's gain and a class's, each with its n."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass

from app.learning.inventory.inventory_gain import HeldMisconception
from app.learning.schemas import Confidence
from app.pedagogy.sample_size import TOO_FEW, Figure

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


class LessonLinkOut(BaseModel):
    """A lesson as the inventory names it: by title; the slug makes its link."""

    slug: str
    title: str


class ConceptResultOut(BaseModel):
    concept: str
    name: str
    right: int
    asked: int
    percent: float
    lessons: list[LessonLinkOut] = Field(description="The lessons that teach the concept")


class RevisitOut(BaseModel):
    """A concept the learner did not get all right: the idea explained (not an item's answer)
    and the lessons that teach it."""

    concept: str
    name: str
    right: int
    asked: int
    explanation_html: str
    lessons: list[LessonLinkOut]


class GainOut(BaseModel):
    """A normalized gain with its n: `value` is null when `too_few` (n below `minimum`) or
    when nothing was left to gain (100 % before)."""

    value: float | None
    n: int
    minimum: int
    too_few: bool
    shown: str = Field(description='As a page prints it: the number, "too few to say" or "—"')

    @classmethod
    def of(cls, figure: Figure) -> GainOut:
        value = figure.stated
        return cls(
            value=round(value, 4) if value is not None else None,
            n=figure.n,
            minimum=figure.minimum,
            too_few=figure.too_few,
            shown=figure.shown(),
        )


class TestScoreOut(BaseModel):
    form: Literal["A", "B"]
    right: int
    asked: int
    percent: float
    concepts: list[ConceptResultOut]


class InventoryResultOut(BaseModel):
    """A test's result: by concept, never by item (no response carries an item's answer)."""

    phase: Phase
    score: TestScoreOut
    skip: list[LessonLinkOut] = Field(
        description="After the pre-test: the lessons, in path order, whose every concept was "
        "answered right (both items of each)"
    )
    start: LessonLinkOut | None = Field(
        None,
        description="After the pre-test: the first lesson on the path not in `skip` and not "
        "done yet (where to start)",
    )
    revisit: list[RevisitOut] = Field(
        description="The concepts not all right: the idea explained, and its lessons"
    )


class ConceptGainOut(BaseModel):
    concept: str
    name: str
    pre: float
    post: float
    gain: GainOut = Field(description="Hake's normalized gain, with its n")


class MyInventoryOut(BaseModel):
    pre: TestScoreOut | None
    post: TestScoreOut | None
    gain: GainOut | None = Field(description="Over the whole test (n: items on each test)")
    concepts: list[ConceptGainOut] = Field(
        description=f"By concept: two items each, so every gain is {TOO_FEW!r}"
    )
    revisit: list[RevisitOut] = Field(
        description="The concepts not all right on the latest test taken (the post-test once "
        "taken, else the pre-test): the idea explained, and its lessons by title"
    )
    next: Literal["pre", "post", "done"]
    path_finished: bool
    post_open: bool = Field(
        description="The post-test is open to this learner now (path finished, or opened by "
        "their teacher) and not yet taken"
    )


class BandOut(BaseModel):
    label: str
    learners: int


# The core's record as it goes over HTTP: its fields are the record's, declared once there.
@dataclass(frozen=True)
class HeldOut(HeldMisconception):
    """A wrong choice still picked on the post-test with confidence, and by how many."""


class ConceptBeforeOut(BaseModel):
    concept: str
    name: str
    known: GainOut = Field(
        description="Of the members who took the pre-test (n), the share who answered both of "
        "the concept's questions right; null and too_few below the minimum"
    )


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
    gain: GainOut = Field(description="Hake's class-average normalized gain (n: `matched`)")
    interval: list[float] | None = Field(
        description="95 % bootstrap interval of the gain; null when too few to say"
    )
    concepts: list[ConceptGainOut]
    bands: list[BandOut] = Field(description="How many individual gains fall in each band")
    no_gain: int = Field(description="Matched learners at 100 % before: no gain to compute")
    held: list[HeldOut] = Field(
        description="Post-test wrong choices picked as certain or fairly sure"
    )
    before: list[ConceptBeforeOut] = Field(
        description="What the class knew before the path, concept by concept (the pre-test)"
    )
