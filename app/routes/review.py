"""The review queue (/review and its API) and the learner's progress page (/progress) with
calibration: what was missed, when to look again, and how well confidence matched results."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field, JsonValue

from app import rendering
from app.lessons.loader import Catalog
from app.modes.calibration import advice, calibration
from app.modes.drills import lesson_drills
from app.modes.menu import MODES
from app.modes.queue import NotDue, QueueView, ReviewQueue
from app.modes.review import KIND_NAMES, Answer, AnswerError
from app.modes.scheduler import Grade, describe_wait
from app.progress.store import ProgressStore
from app.routes.deps import (
    CatalogDep,
    LearnerDep,
    StoreDep,
    current_learner,
    get_catalog,
    get_store,
)
from app.routes.learning import catalog_progress
from app.web.templates import render, templates

router = APIRouter(tags=["review"])


def now() -> datetime:
    return datetime.now(UTC)


def queue_for(request: Request) -> ReviewQueue:
    catalog: Catalog = get_catalog(request)
    return ReviewQueue(get_store(request), catalog)


def review_due_count(request: Request) -> int:
    """For the catalog's "N items due" line."""
    learner = current_learner(request)
    if learner is None:
        return 0
    return len(queue_for(request).view(learner, now()).due)


templates.env.globals["review_due_count"] = review_due_count
templates.env.globals["describe_wait"] = describe_wait


# --- The review queue ------------------------------------------------------------------------
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
    belief_html: str | None
    tensor: str | None
    link: str


class ReviewQueueOut(BaseModel):
    due: list[ReviewItemOut]
    due_count: int
    scheduled: int
    next_due: datetime | None
    next_due_text: str | None = Field(description="e.g. 'in 10 minutes', 'tomorrow'")


class ReviewBody(BaseModel):
    choice: str | None = Field(default=None, max_length=2000)
    answer: Literal["yes", "no"] | None = None
    value: str | None = Field(default=None, max_length=2000)
    rating: Grade | None = None


class ReviewResult(BaseModel):
    correct: bool
    graded: bool = Field(description="False when a typed value could not be read: type again")
    reveal: dict[str, JsonValue]
    next_due: datetime
    comes_back: str = Field(description="When the item is due again, in words")
    due_count: int


def queue_items(view: QueueView) -> list[ReviewItemOut]:
    return [
        ReviewItemOut(
            id=item.card.id,
            lesson=item.prompt.lesson.slug,
            lesson_title=item.prompt.lesson.title,
            kind=item.prompt.kind,
            kind_name=KIND_NAMES[item.prompt.kind],
            key=item.prompt.key,
            source=item.prompt.source,
            question_html=str(rendering.markdown_inline(item.prompt.question)),
            code=item.prompt.code,
            choices=item.prompt.choices,
            belief_html=str(rendering.markdown_inline(item.prompt.belief))
            if item.prompt.belief
            else None,
            tensor=item.prompt.tensor,
            link=item.prompt.link,
        )
        for item in view.due
    ]


@router.get("/api/review", response_model=ReviewQueueOut)
def review_queue(request: Request) -> ReviewQueueOut:
    """The items due now (what was missed, when spaced repetition says to look again)."""
    learner = current_learner(request)
    if learner is None:
        return ReviewQueueOut(due=[], due_count=0, scheduled=0, next_due=None, next_due_text=None)
    moment = now()
    view = queue_for(request).view(learner, moment)
    return ReviewQueueOut(
        due=queue_items(view),
        due_count=len(view.due),
        scheduled=view.scheduled,
        next_due=view.next_due,
        next_due_text=describe_wait(view.next_due, moment) if view.next_due else None,
    )


@router.post("/api/review/{card_id}/answer", response_model=ReviewResult)
def answer_review(
    request: Request, card_id: int, body: ReviewBody, learner: LearnerDep
) -> ReviewResult:
    """Answer a due item: graded like its lesson page does, then rescheduled by FSRS (right:
    days ahead; wrong: back in ten minutes). 409 when it is not due (answered already)."""
    queue = queue_for(request)
    moment = now()
    given = Answer(choice=body.choice, answer=body.answer, value=body.value, rating=body.rating)
    try:
        answered = queue.answer(learner, card_id, given, moment)
    except AnswerError as exc:
        raise HTTPException(422, str(exc)) from exc
    except NotDue as exc:
        raise HTTPException(
            409, "This item was answered already; it is scheduled for later."
        ) from exc
    if answered is None:
        raise HTTPException(404, f"There is no review item {card_id}")
    outcome, memory = answered
    return ReviewResult(
        correct=outcome.correct,
        graded=outcome.grade is not None,
        reveal=outcome.reveal,
        next_due=memory.due,
        comes_back=describe_wait(memory.due, moment),
        due_count=len(queue.view(learner, moment).due),
    )


@router.get("/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(request: Request) -> HTMLResponse:
    learner = current_learner(request)
    view = queue_for(request).view(learner, now()) if learner else QueueView([], 0, None)
    return render(
        request,
        "modes/review.html",
        view=view,
        items=queue_items(view),
        kind_names=KIND_NAMES,
        now=now(),
    )


# --- Progress and calibration ------------------------------------------------------------------
class CalibrationRow(BaseModel):
    level: str
    label: str
    answered: int
    right: int
    percent: int | None


class CalibrationOut(BaseModel):
    levels: list[CalibrationRow]
    advice: str


def _calibration(store: ProgressStore, learner: str | None) -> CalibrationOut:
    rows = calibration(store.first_predictions(learner) if learner else [])
    return CalibrationOut(
        levels=[
            CalibrationRow(
                level=row.level,
                label=row.label,
                answered=row.answered,
                right=row.right,
                percent=row.percent,
            )
            for row in rows
        ],
        advice=advice(rows),
    )


@router.get("/api/progress/calibration", response_model=CalibrationOut)
def get_calibration(request: Request, store: StoreDep) -> CalibrationOut:
    """Per confidence level (certain, fairly sure, guess): first predictions made, and right."""
    return _calibration(store, current_learner(request))


@router.get("/progress", response_class=HTMLResponse, include_in_schema=False)
def progress_page(request: Request, catalog: CatalogDep, store: StoreDep) -> HTMLResponse:
    learner = current_learner(request)
    moment = now()
    view = queue_for(request).view(learner, moment) if learner else QueueView([], 0, None)
    reviewed_today = (
        store.review_answers_since(learner, moment - timedelta(hours=24)) if learner else 0
    )
    return render(
        request,
        "modes/progress.html",
        calibration=_calibration(store, learner),
        lessons=catalog.lessons,
        progress=catalog_progress(catalog, store, learner),
        modes_used=store.lesson_modes(learner) if learner else {},
        mode_names={m.slug: m.name for m in MODES},
        extra=store.mode_summary(learner) if learner else {},
        drills_total={lesson.slug: len(lesson_drills(lesson)) for lesson in catalog.lessons},
        view=view,
        reviewed_today=reviewed_today,
        now=moment,
    )
