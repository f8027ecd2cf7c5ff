"""What goes over HTTP for exercises (code to write): the lines a learner wrote, a diagnosis,
and the verdicts. See docs/http-contract.md."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from app.learning.schemas import Confidence
from app.sandbox.result import RunResult

Lines = Annotated[str, Field(max_length=4000)]


class ExerciseBody(BaseModel):
    lines: list[Lines] = Field(
        min_length=1,
        max_length=8,
        description="What the learner wrote into each blank, in order (one entry per blank)",
    )


class DiagnosisBody(BaseModel):
    choice: str = Field(max_length=2000, description="The diagnosis picked, by its text")
    confidence: Confidence | None = Field(
        default=None, description="How sure the learner is; required, as for a prediction"
    )


class ExerciseHintOut(BaseModel):
    level: int
    title: str
    text_html: str


class ExerciseVerdict(BaseModel):
    passed: bool
    reasons_html: list[str] = Field(description="What differs from the goal; empty when passed")
    hint: ExerciseHintOut | None = Field(description="The next hint, after a miss; never the line")
    result: RunResult
    comes_back: str | None = Field(
        default=None,
        description="When this check answered the exercise's due review item: when it returns",
    )
    due_count: int | None = Field(
        default=None, description="With comes_back: the review items due now"
    )


class CodePart(BaseModel):
    """A piece of an exercise's code: given code, or a blank for the learner to write."""

    kind: Literal["code", "blank"]
    text: str
    indent: str


class LessonLink(BaseModel):
    slug: str
    title: str
    url: str


class DiagnosisReveal(BaseModel):
    correct: bool
    answer: str
    why_html: str | None = Field(description="What the picked wrong diagnosis gets wrong")
    explanation_html: str
    source: LessonLink = Field(description="The lesson the bug comes from")
    parts: list[CodePart] = Field(description="The code to fix: its blanks where the bug was")
