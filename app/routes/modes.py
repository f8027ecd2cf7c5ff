"""The learning modes (/lessons/{slug}/{mode}) and the JSON endpoints their pages call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse

from app.errors import (
    RUNS,
    STORE,
    AnswerError,
    NotTheFormAsked,
    PredictionNotCommitted,
    UnknownDrill,
    UnknownFlashcard,
    UnknownLesson,
    UnknownMode,
    UnknownPitfall,
)
from app.learning.schemas import (
    DrillFeedback,
    FixBody,
    FixOut,
    FixVerdict,
    FlashcardBack,
    HintOut,
    ModeBody,
    RatingBody,
    RatingResult,
    ValueBody,
)
from app.routes.deps import (
    AddressDep,
    LearnerDep,
    LearningDep,
    PracticeDep,
    WriterDep,
    read,
    render_page,
)
from app.web.problems import responses

router = APIRouter(tags=["modes"])

# The variant instance a drill was asked on (its item's data-form), when its step has any.
DrillForm = Annotated[int | None, Query(ge=0, le=2**31 - 1)]


@router.get("/lessons/{slug}/{mode}", response_class=HTMLResponse, include_in_schema=False)
async def mode_page(
    request: Request, slug: str, mode: str, learning: LearningDep, learner: LearnerDep
) -> HTMLResponse:
    page = await read(learning, learning.mode_page, slug, mode, learner)
    return render_page(request, page)


@router.post(
    "/api/lessons/{slug}/mode",
    status_code=204,
    responses=responses(UnknownLesson, UnknownMode, *STORE),
)
async def remember_mode(
    slug: str, body: ModeBody, learning: LearningDep, learner: LearnerDep, write: WriterDep
) -> Response:
    """The mode page a learner opened, remembered per lesson (posted by the page)."""
    await write(learning.remember_mode, learner, slug, body)
    return Response(status_code=204)


@router.post(
    "/api/lessons/{slug}/drills/{drill_id}/answer",
    responses=responses(
        UnknownLesson, UnknownDrill, AnswerError, NotTheFormAsked, PredictionNotCommitted, *STORE
    ),
)
async def answer_drill(
    slug: str,
    drill_id: str,
    body: ValueBody,
    practice: PracticeDep,
    write: WriterDep,
    form: DrillForm = None,
) -> DrillFeedback:
    """Check a typed `.grad` numerically, element by element. A miss enters the review queue;
    the answer comes back only when right or when `reveal` asks for it. `form`: the variant
    instance the page asked (its `data-form`); 422 when the page asks another now."""
    return await write(practice.answer_drill, slug, drill_id, body, form)


@router.get(
    "/api/lessons/{slug}/flashcards/{card_id}",
    responses=responses(UnknownLesson, UnknownFlashcard, PredictionNotCommitted, *STORE),
)
async def flashcard_answer(
    slug: str, card_id: str, practice: PracticeDep, learning: LearningDep
) -> FlashcardBack:
    """The back of a card (asked for when the learner turns it over); 409 while the step it
    explains is not answered."""
    return await read(learning, practice.flashcard_back, slug, card_id)


@router.post(
    "/api/lessons/{slug}/flashcards/{card_id}/rating",
    responses=responses(
        UnknownLesson, UnknownFlashcard, AnswerError, PredictionNotCommitted, *STORE
    ),
)
async def rate_flashcard(
    slug: str, card_id: str, body: RatingBody, practice: PracticeDep, write: WriterDep
) -> RatingResult:
    """The learner's own grade of a card; `again` and `hard` put it in the review queue."""
    return await write(practice.rate_flashcard, slug, card_id, body.rating)


@router.get(
    "/api/lessons/{slug}/pitfalls/{number}/hints/{level}",
    responses=responses(UnknownLesson, UnknownPitfall, PredictionNotCommitted, *STORE),
)
async def pitfall_hint(
    slug: str, number: int, level: int, practice: PracticeDep, learning: LearningDep
) -> HintOut:
    """The hint ladder: 1 what to compare, 2 where to look, 3 why it goes wrong; none gives the
    fix (`/fix` does, when asked)."""
    return await read(learning, practice.hint, slug, number, level)


@router.get(
    "/api/lessons/{slug}/pitfalls/{number}/fix",
    responses=responses(UnknownLesson, UnknownPitfall, PredictionNotCommitted, *STORE),
)
async def pitfall_fix(
    slug: str, number: int, practice: PracticeDep, learning: LearningDep
) -> FixOut:
    """ "Show the fix": the corrected code and why."""
    return await read(learning, practice.fix, slug, number)


@router.post(
    "/api/lessons/{slug}/pitfalls/{number}/check",
    responses=responses(UnknownLesson, UnknownPitfall, PredictionNotCommitted, *RUNS),
)
async def check_fix(
    slug: str, number: int, body: FixBody, practice: PracticeDep, address: AddressDep
) -> FixVerdict:
    """Run the learner's fix in the sandbox and compare what it does (error, stdout, `.grad`)
    with what the corrected code is declared to do. Text is never compared."""
    return await practice.check_fix(slug, number, body.code, address)
