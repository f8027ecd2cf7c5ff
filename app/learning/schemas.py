"""What goes over HTTP: the request bodies and the responses of the learning API.

The reveals are here too: what explains an answer travels only in these, after the answer.
See docs/http-contract.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from app.pedagogy.scheduler import Grade
from app.sandbox.result import RunResult

Confidence = Literal["guess", "fairly_sure", "certain"]
YesNo = Literal["yes", "no"]


class Score(BaseModel):
    answered: int
    correct: int
    total: int


# --- requests ---------------------------------------------------------------------------------
class SandboxReport(BaseModel):
    ready: bool
    workers: int
    busy: int
    queued: int
    isolation: dict[str, str] = Field(description='Each layer: "on" or "off: <why>"')
    problem: str | None = Field(default=None, description="Why it is not ready, if it is not")


class DatabaseReport(BaseModel):
    ready: bool
    problem: str | None = Field(default=None, description="Why it is not ready, if it is not")


class Health(BaseModel):
    """GET /healthz (alive: answers at once, even while every sandbox worker is busy) and
    GET /readyz (ready: 503 unless `ready`)."""

    status: Literal["ok"] = Field(description="The server answers (liveness)")
    ready: bool = Field(
        description="The database answers and the sandbox runs snippets (or is switched off)"
    )
    lessons: int
    database: DatabaseReport
    sandbox: SandboxReport


class RunRequest(BaseModel):
    code: str = Field(description="Python source of the snippet")
    lesson: str | None = Field(default=None, max_length=64, description="Lesson slug, for context")
    step: int | None = Field(default=None, ge=0, le=1000, description="Step number, for context")


class ShareBody(BaseModel):
    """POST /api/shares: the code to share, and the lesson and step it came from, if any."""

    code: str = Field(description="Python source of the snippet (413 above GRADLAB_CODE_BYTES)")
    lesson: str | None = Field(default=None, max_length=64, description="Lesson slug it came from")
    step: int | None = Field(default=None, ge=1, le=1000, description="Step it came from")


class ShareMade(BaseModel):
    """A share made: its id and the link to it (immutable: its code never changes)."""

    id: str
    url: str


class PredictionBody(BaseModel):
    choice: str = Field(max_length=2000)
    confidence: Confidence | None = Field(
        default=None,
        description="How sure the learner is; required: a commit without one is refused (422)",
    )


class ValueBody(BaseModel):
    value: str = Field(max_length=2000)
    reveal: bool = False


class MythBody(BaseModel):
    answer: YesNo


class CodeBody(BaseModel):
    code: str = Field(max_length=20_000)


class RatingBody(BaseModel):
    rating: Grade


class FixBody(BaseModel):
    code: str = Field(max_length=20_000)


class ModeBody(BaseModel):
    mode: str = Field(max_length=32)


# A review answer: which fields fit depends on the item's kind, so the body is an object that
# the kind reads as its own answer model (`Review.answer`, app/learning/kinds/), refusing one
# that does not fit it (422 `not-an-answer`).
ReviewAnswerBody = dict[str, JsonValue]
# A step question's answer (POST /api/lessons/{slug}/steps/{n}/{question}), read the same way
# as the model of the question's kind.
AnswerBody = dict[str, JsonValue]


# --- reveals: what explains an answer, sent only once it is given -----------------------------
class StepReveal(BaseModel):
    """The step's own text, which explains its question's answer."""

    concept_html: str
    explanation_html: str
    insight_html: str


class ValueQuestion(BaseModel):
    """A step's typed-value question, which a step that also asks a choice sends only with
    the choice's reveal (its mere presence would say the code does not raise)."""

    question_html: str
    tensor: str = Field(description="The tensor whose `.grad` is typed")
    code: str | None = Field(
        default=None,
        description="On a step with variants: the code the value is asked on, the same idea "
        "with other numbers than the step's own (whose answer the reveal just showed)",
    )


class PredictionReveal(BaseModel):
    correct: bool
    answer: str
    explanation_html: str
    why_html: str | None = Field(description="What the picked wrong choice gets wrong")
    output: str | None
    error: dict[str, str] | None
    attempt: int
    step: StepReveal
    value: ValueQuestion | None = Field(
        default=None, description="The step's typed-value question, now open; null if none"
    )


class StatementVerdict(BaseModel):
    """One statement of a select-all question, once answered."""

    text: str
    holds: bool = Field(description="Whether it holds after the code runs")
    ticked: bool = Field(description="Whether the learner ticked it")
    why_html: str | None = Field(description="What the learner's belief got wrong; null if right")


class SelectAllReveal(BaseModel):
    correct: bool
    statements: list[StatementVerdict] = Field(description="In the lesson's order")
    explanation_html: str
    output: str | None
    error: dict[str, str] | None
    attempt: int
    step: StepReveal


class OrderingReveal(BaseModel):
    correct: bool
    answer: list[str] = Field(description="The lines in the order the lesson wrote them")
    explanation_html: str
    expected: str = Field(description="What the code must print")
    output: str | None = Field(description="What the learner's order printed; null on restore")
    error: dict[str, str] | None = Field(description="What the learner's order raised")
    attempt: int
    step: StepReveal
    comes_back: str | None = Field(
        default=None, description="When this order answered the step's due review item: when"
    )
    due_count: int | None = Field(default=None, description="With comes_back: the items due")


# What a step's question reveals once answered (its kind's `StepSide.reveal`).
StepQuestionReveal = PredictionReveal | SelectAllReveal | OrderingReveal


class MythReveal(BaseModel):
    correct: bool
    answer: YesNo
    belief_html: str
    reality_html: str
    why_it_matters_html: str
    demo: dict[str, str] | None
    score: Score | None = None


class ValueFeedback(BaseModel):
    correct: bool
    parsed: bool
    problem: str | None
    shape_ok: bool
    expected_shape: list[int] | None
    your_shape: list[int] | None
    elements: list[bool]
    expected: JsonValue = None
    explanation_html: str | None = None
    why_html: str | None = Field(
        default=None, description="What the belief behind this wrong value gets wrong, if named"
    )
    step: StepReveal | None = None


class DrillFeedback(ValueFeedback):
    """A value check, and whether a miss went into the review queue."""

    queued: bool = False


class FlashcardBack(BaseModel):
    back_html: str
    answer_html: str | None


# What a graded answer reveals (the grader's `Graded.reveal`, a review answer's `reveal`): the
# one union of the reveals the grader builds for an answer it grades at once.
Reveal = PredictionReveal | SelectAllReveal | MythReveal | DrillFeedback | FlashcardBack


class RatingResult(BaseModel):
    queued: bool
    due_count: int


class HintOut(BaseModel):
    level: int
    title: str
    text_html: str
    code: str | None = Field(
        description="A line of the broken code, quoted, never numbered: the learner's code differs"
    )


class FixOut(BaseModel):
    code: str
    root_cause_html: str


class FixVerdict(BaseModel):
    passed: bool
    reasons_html: list[str]
    result: RunResult


# --- saved progress ---------------------------------------------------------------------------
class SavedAnswer(BaseModel):
    """A step's committed answer of a kind answered through the step route (a select-all, an
    order): the kind's name, what was sent, and its reveal (an order's without its run)."""

    kind: str
    sent: dict[str, JsonValue] = Field(description="The body the answer was sent as")
    confidence: str
    correct: bool
    reveal: StepQuestionReveal


class SavedValue(BaseModel):
    value: str
    correct: bool
    revealed: bool
    step: StepReveal | None = None


class SavedStep(BaseModel):
    done: bool
    code: str | None
    value: SavedValue | None
    answer: SavedAnswer | None = None


class SavedMyth(BaseModel):
    answer: str
    correct: bool
    reveal: MythReveal


class LessonProgress(BaseModel):
    steps: dict[str, SavedStep]
    myths: dict[str, SavedMyth]
    score: Score
    steps_done: int
    steps_total: int


class LessonSummary(BaseModel):
    done: bool = Field(
        description="Every question of the lesson answered (the one definition of "
        "done, app/learning/answers/completion.py)"
    )
    steps_done: int
    steps_total: int
    myths_answered: int
    myths_correct: int
    myths_total: int
    # A begun lesson's first unanswered step (where its address opens); None before the first
    # answer and once every step is answered.
    resume_step: int | None = None


class CatalogProgress(BaseModel):
    lessons: dict[str, LessonSummary]
