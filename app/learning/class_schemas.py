"""What goes over HTTP for classes: joining, the dashboard's parts and reports."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, JsonValue

from app.learning.kinds import KINDS, MYTH

# The kinds of question a learner can report: those item analysis counts (every step question
# whose kind declares its item, and the myths; app/learning/classes/first_attempts.py).
REPORTED_KINDS = (
    *(kind.name for kind in KINDS if kind.reported),
    MYTH.name,
)


def _reported_kind(name: str) -> str:
    if name not in REPORTED_KINDS:
        raise ValueError(f"a report is about one of: {', '.join(REPORTED_KINDS)}")
    return name


class JoinBody(BaseModel):
    display_name: str = Field(max_length=200, description="The name the teacher will see")


class Joined(BaseModel):
    class_id: str
    name: str
    display_name: str


class ReportBody(BaseModel):
    kind: Annotated[str, AfterValidator(_reported_kind)] = Field(
        json_schema_extra={"enum": list(REPORTED_KINDS)}
    )
    number: int = Field(ge=1, le=1000)
    text: str = Field(max_length=4000, description="What is wrong with the question")


class ChoiceOut(BaseModel):
    text: str
    picked: int
    share: float
    correct: bool
    why: str | None = Field(description="What the lesson tells a learner who picks it")
    belief: str | None = Field(
        default=None,
        description="The belief behind a wrong choice, in a teacher's words (the lesson's "
        "`misconception`; a myth's belief); null for the right choice",
    )


class ItemOut(BaseModel):
    lesson: str
    kind: str
    number: int
    question: str
    answered: int
    difficulty: float | None = Field(description="Share of first attempts that were right")
    discrimination: float | None = Field(
        description="Point-biserial correlation of the item with the learner's total"
    )
    sure_wrong_share: float | None = Field(
        description="Share of first attempts wrong while 'fairly sure' or 'certain'"
    )
    held_share: float | None = Field(
        description="Share of first attempts that picked the most confidently picked wrong "
        "choice while 'fairly sure' or 'certain'"
    )
    flags: list[str] = Field(description="Only with enough answers; n is `answered`")
    too_few_for_flags: bool = Field(
        description="Fewer answers than flags need (docs/teaching.md): too few to say"
    )
    choices: list[ChoiceOut]


class ItemsOut(BaseModel):
    items: list[ItemOut]
    left_out: int = Field(
        description="First attempts left out: at questions rewritten since, or after reading ahead"
    )


class MisconceptionOut(BaseModel):
    lesson: str
    kind: str
    number: int
    question: str
    choice: str
    why: str | None = Field(description="What the lesson tells a learner who picked it")
    picked: int
    weight: float
    belief: str | None = Field(
        default=None,
        description="The belief behind a wrong choice, in a teacher's words (the lesson's "
        "`misconception`; a myth's belief)",
    )


class RosterOut(BaseModel):
    display_name: str
    lessons_started: int
    lessons_done: int
    last_active: datetime | None


class FunnelOut(BaseModel):
    lesson: str
    title: str
    reached: list[int]


class LevelOut(BaseModel):
    level: str
    answered: int
    right: int


class DashboardOut(BaseModel):
    id: str
    name: str
    roster: list[RosterOut]
    funnels: list[FunnelOut]
    misconceptions: list[MisconceptionOut]
    calibration: list[LevelOut]
    calibration_advice: str
    left_out: int


class MyData(BaseModel):
    """Everything gradlab keeps about one learner, by table (GET /api/progress/export)."""

    learner: str
    tables: dict[str, list[dict[str, JsonValue]]]
