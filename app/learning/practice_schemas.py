"""What goes over HTTP for practice: the review queue's items and answers, the recall's
answers and calibration (the learning API's other bodies and reveals: app/learning/schemas.py).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from app.learning.schemas import Reveal, StepQuestionReveal


class ReviewItemOut(BaseModel):
    id: int
    lesson: str
    lesson_title: str
    kind: str
    kind_name: str
    key: str
    source: str
    question_html: str
    code: str | None
    choices: list[str]
    tensor: str | None
    link: str
    form: int | None = Field(
        default=None,
        description="Which other form of the question this return asks (a step's variant "
        "instance, a myth's form); null: the question as its lesson page asks it. Sent back "
        "as the answer's `form`.",
    )


class ReviewQueueOut(BaseModel):
    due: list[ReviewItemOut] = Field(description="This sitting, in the order to ask it")
    due_count: int = Field(description="Every item due now, also those beyond this sitting")
    sitting: int = Field(description="The most items one sitting asks (GRADLAB_REVIEW_SITTING)")
    scheduled: int
    next_due: datetime | None
    next_due_text: str | None = Field(description="e.g. 'in 10 minutes', 'tomorrow'")


class ReviewResult(BaseModel):
    correct: bool
    graded: bool = Field(description="False when a typed value could not be read: type again")
    reveal: Reveal
    next_due: datetime
    comes_back: str = Field(description="When the item is due again, in words")
    due_count: int
    left: bool = Field(
        default=False,
        description="Answered right on its only version: it leaves review (until missed again)",
    )


class RecallResult(BaseModel):
    """An answer to one of a lesson's recall questions: graded, revealed, and scheduled."""

    correct: bool
    reveal: StepQuestionReveal
    comes_back: str | None = Field(
        description="When the step comes back in review, in words; null: it does not (answered "
        "right, and not as a guess, with no review card of it)"
    )


class CalibrationRow(BaseModel):
    level: str
    label: str
    answered: int
    right: int
    percent: int | None
    verdict: Literal["none", "too_few", "overconfident", "underconfident", "matches"] = Field(
        description="What this level's answers support; judged only with enough answers"
    )
    finding: str = Field(description="This level's verdict in a sentence")
    needed: int = Field(description="More answers this level needs before it is judged")


class CertainMiss(BaseModel):
    """A question answered "certain", first time, and missed: the ones worth a second look."""

    lesson: str
    lesson_title: str
    step: int
    title: str = Field(description="The step's title")
    link: str = Field(description="The step on the step-by-step page")


class CalibrationOut(BaseModel):
    levels: list[CalibrationRow]
    advice: str = Field(description="What the numbers support, as a whole; never more")
    min_answers: int = Field(description="Answers a level needs before it is judged")
    based_on: int = Field(
        description="First answers counted: questions as they are now, never after a reveal"
    )
    certain_misses: list[CertainMiss] = Field(
        default_factory=list, description="Counted answers given as certain and wrong"
    )
