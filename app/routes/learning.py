"""The learner's side of a lesson over JSON: predictions, values, myths, code and progress.
Each route parses, calls the learning core once, and returns what it gives."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, Response

from app.errors import (
    RUNS,
    STORE,
    AnswerError,
    NotAChoice,
    NotDue,
    NotTheFormAsked,
    PredictionNotCommitted,
    UnknownLesson,
    UnknownMyth,
    UnknownStep,
)
from app.learning.practice_schemas import RecallResult
from app.learning.schemas import (
    AnswerBody,
    CatalogProgress,
    CodeBody,
    LessonProgress,
    MythBody,
    MythReveal,
    StepQuestionReveal,
    ValueFeedback,
)
from app.routes.deps import (
    AddressDep,
    AnswersDep,
    LearnerDep,
    LearningDep,
    MaybeLearnerDep,
    PracticeDep,
    WriterDep,
    read,
)
from app.web.problems import responses

router = APIRouter(tags=["learning"])


# The last segment of a step question's route: the kind's path (`prediction`, `select-all`).
StepQuestion = Annotated[str, Path(pattern=r"^[a-z][a-z-]{0,31}$")]


STEP_REFUSALS = (UnknownLesson, UnknownStep, NotAChoice, AnswerError, PredictionNotCommitted)


@router.post(
    "/api/lessons/{slug}/steps/{number}/{question}",
    responses=responses(*STEP_REFUSALS, NotDue, NotTheFormAsked, *RUNS, *STORE),
)
async def answer_step(
    slug: str,
    number: int,
    question: StepQuestion,
    body: Annotated[AnswerBody, Body()],
    learning: LearningDep,
    learner: LearnerDep,
    address: AddressDep,
    form: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> StepQuestionReveal | ValueFeedback:
    """Answer the step's question, each kind reading its own body (422 naming what fits):
    `prediction`, `{choice, confidence}`; `select-all`, `{picked, confidence}`; `ordering`,
    `{order, confidence}`, graded by running the code the order makes; `value`, `{value,
    reveal}`, a typed `.grad` checked element by element against the step's real run, tried
    until right or revealed (409 before the step's choice is committed). A committed answer's
    verdict, what explains it and the step's output (an order's run: what it printed) come
    back; a typed value's check. With `form` (a review item's, for a kind graded by a run), an
    answer to the variant instance that the step's due review item asks: it answers that item
    (409 when none is due, 422 when it asks another form)."""
    return await learning.answer_step(learner, address, slug, number, question, body, form)


# The variant instance a recall question was asked as (its item's data-form): required, so an
# answer is graded only against the question the page showed.
RecallForm = Annotated[int, Query(ge=0, le=2**31 - 1)]
RECALL_REFUSALS = (UnknownLesson, UnknownStep, NotAChoice, AnswerError, NotTheFormAsked, NotDue)


@router.post(
    "/api/lessons/{slug}/recall/{number}",
    responses=responses(*RECALL_REFUSALS, PredictionNotCommitted, *STORE),
)
async def answer_recall(
    slug: str,
    number: int,
    body: Annotated[AnswerBody, Body()],
    practice: PracticeDep,
    write: WriterDep,
    form: RecallForm,
) -> RecallResult:
    """Answer the lesson's recall question on step `number`, asked as variant instance `form`:
    graded like review, revealed, and fed to the step's review card. 409 before the build-up
    is committed or once answered; 404 for a step the recall does not ask; 422 for another
    form than it asks."""
    return await write(practice.answer_recall, slug, number, body, form)


@router.post(
    "/api/lessons/{slug}/myths/{number}/answer",
    responses=responses(UnknownLesson, UnknownMyth, AnswerError, *STORE),
)
async def answer_myth(
    slug: str,
    number: int,
    body: MythBody,
    answers: AnswersDep,
    write: WriterDep,
    form: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> MythReveal:
    """Answer a myth buster yes or no (asked as its other `form`, in a fresh round); the
    verdict, the belief and the reasons come back."""
    return await write(answers.answer_myth, slug, number, body.answer, form)


@router.put(
    "/api/lessons/{slug}/steps/{number}/code",
    status_code=204,
    responses=responses(UnknownLesson, UnknownStep, *STORE),
)
async def save_code(
    slug: str, number: int, body: CodeBody, answers: AnswersDep, write: WriterDep
) -> Response:
    """Keep the learner's edited version of a step's code."""
    await write(answers.save_code, slug, number, body.code)
    return Response(status_code=204)


@router.delete(
    "/api/lessons/{slug}/steps/{number}/code",
    status_code=204,
    responses=responses(UnknownLesson, UnknownStep, *STORE),
)
async def reset_code(slug: str, number: int, answers: AnswersDep, write: WriterDep) -> Response:
    """Forget the edited code: the step shows the lesson's code again."""
    await write(answers.save_code, slug, number, None)
    return Response(status_code=204)


@router.get("/api/lessons/{slug}/progress", responses=responses(UnknownLesson, *STORE))
async def get_lesson_progress(
    slug: str, learning: LearningDep, learner: MaybeLearnerDep
) -> LessonProgress:
    """The learner's state in one lesson (empty for a new learner), reveals included."""
    return await read(learning, learning.lesson_progress, slug, learner)


@router.get("/api/progress", responses=responses(*STORE))
async def get_progress(learning: LearningDep, learner: MaybeLearnerDep) -> CatalogProgress:
    """The learner's progress on every lesson."""
    return await read(learning, learning.catalog_progress, learner)


@router.post("/api/progress/reset", status_code=204, responses=responses(*STORE))
async def reset_progress(
    learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> Response:
    """Forget everything this learner did, but the concept inventory (taken once for good)."""
    await write(learning.reset, learner)
    return Response(status_code=204)
