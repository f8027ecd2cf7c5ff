"""The review queue (/review and its API) and the learner's progress page (/progress) with
calibration: what was missed, when to look again, and how well confidence matched results."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import HTMLResponse

from app.errors import (
    STORE,
    AnswerError,
    NotAChoice,
    NotDue,
    NotTheFormAsked,
    UnknownReviewItem,
)
from app.learning.practice_schemas import CalibrationOut, ReviewQueueOut, ReviewResult
from app.learning.schemas import ReviewAnswerBody
from app.routes.deps import (
    LearningDep,
    MaybeLearnerDep,
    PracticeDep,
    VisitorDep,
    WriterDep,
    read,
    render_page,
)
from app.web.problems import responses

router = APIRouter(tags=["review"])
# A card id the database can hold (a larger number is a 422, not an overflow).
CardId = Annotated[int, Path(ge=1, le=2**31 - 1)]
# The form of the question the page showed (the item's `form`): an answer is graded only
# against the question it answers.
Form = Annotated[int | None, Query(ge=0, le=2**31 - 1)]
# The answer: the item's kind reads it as its own answer model (app/learning/kinds/).
Answer = Annotated[
    ReviewAnswerBody,
    Body(
        description='As the item\'s kind answers: a prediction `{"choice", "confidence"}`, a '
        'myth `{"answer": "yes" | "no", "confidence"}`, a drill `{"value", "confidence"}`, a '
        'flashcard `{"rating"}`; 422 `not-an-answer` for a body that does not fit the kind',
    ),
]


@router.get("/api/review", responses=responses(*STORE))
async def review_queue(learning: LearningDep, learner: MaybeLearnerDep) -> ReviewQueueOut:
    """This sitting of the items due now: at most GRADLAB_REVIEW_SITTING, a right guess and a
    confident miss first, lessons and kinds interleaved."""
    if learner is None:
        return ReviewQueueOut(
            due=[],
            due_count=0,
            sitting=learning.sitting_size,
            scheduled=0,
            next_due=None,
            next_due_text=None,
        )
    return await read(learning, learning.practice(learner).review_queue)


@router.post(
    "/api/review/{card_id}/answer",
    responses=responses(
        UnknownReviewItem, NotDue, AnswerError, NotAChoice, NotTheFormAsked, *STORE
    ),
)
async def answer_review(
    card_id: CardId,
    body: Answer,
    practice: PracticeDep,
    write: WriterDep,
    form: Form = None,
) -> ReviewResult:
    """Answer a due item: graded like its lesson page does, then rescheduled by FSRS (right:
    days ahead; wrong: back in ten minutes; right but a guess: sooner). 409 when it is not due
    (answered already); 422 when `form` is not the form of the question the item asks."""
    return await write(practice.answer_review, card_id, body, form)


@router.get("/review", response_class=HTMLResponse, include_in_schema=False)
async def review_page(request: Request, learning: LearningDep, learner: VisitorDep) -> HTMLResponse:
    page = await read(learning, learning.review_page, learner)
    return render_page(request, page)


@router.get("/api/progress/calibration", responses=responses(*STORE))
async def get_calibration(learning: LearningDep, learner: MaybeLearnerDep) -> CalibrationOut:
    """Per confidence level (certain, fairly sure, guess): first predictions made, and right."""
    return await read(learning, learning.calibration, learner)


@router.get("/progress", response_class=HTMLResponse, include_in_schema=False)
async def progress_page(
    request: Request, learning: LearningDep, learner: VisitorDep
) -> HTMLResponse:
    page = await read(learning, learning.progress_page, learner)
    return render_page(request, page)
