"""The JSON API for lessons, health and runs (see docs/http-contract.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.errors import RUNS, STORE, NotReady, TooManyNewLearners, UnknownLesson
from app.learning.schemas import Health, RunRequest
from app.lessons.public import LessonListing, PublicLesson, lesson_summary
from app.routes.deps import LearnerDep, LearningDep, VisitorDep, learner_id, read, run_line
from app.sandbox.result import RunResult
from app.web.problems import responses

router = APIRouter()


@router.get("/healthz", tags=["health"], response_model_exclude_none=True)
async def healthz(learning: LearningDep) -> Health:
    """Alive: 200 while the server answers, whatever the database and the sandbox do (they
    are reported, the database as last checked). For a liveness probe."""
    return learning.health()


@router.get(
    "/readyz", tags=["health"], response_model_exclude_none=True, responses=responses(NotReady)
)
async def readyz(learning: LearningDep) -> Health:
    """Ready: 200 while the database answers (asked at most once a second) and the sandbox
    runs snippets (or is switched off); 503 `not-ready` naming what is not. For a readiness
    probe."""
    return await learning.readiness()


@router.get("/api/lessons", tags=["lessons"])
async def list_lessons(learning: LearningDep) -> list[LessonListing]:
    return [lesson_summary(lesson) for lesson in learning.catalog.lessons]


@router.get(
    "/api/lessons/{slug}",
    tags=["lessons"],
    responses=responses(UnknownLesson, *STORE),
    response_model_exclude_unset=True,
)
async def get_lesson(slug: str, learning: LearningDep, learner: LearnerDep) -> PublicLesson:
    """A lesson without its answers, nor what explains them (see app/lessons/public.py); the
    choices in this learner's order, the reference once this learner's disclosure opens it."""
    return await read(learning, learning.public_lesson, slug, learner)


@router.post(
    "/api/run",
    response_model=RunResult,
    tags=["sandbox"],
    responses=responses(*RUNS, *STORE, TooManyNewLearners),
)
async def run_snippet(
    body: RunRequest, request: Request, learning: LearningDep, learner: VisitorDep
) -> RunResult:
    """Run a snippet in a fresh sandboxed process. A failing snippet is not an HTTP error:
    `status` says how it ended. With `lesson` and `step`, a step that asks for no prediction
    counts as done once its code has run. Without a cookie the run waits in the client
    address's line, and the answer brings a learner's cookie for the next."""
    who = run_line(request, learner)
    if body.lesson and learner is None:
        learner = learner_id(request)
    return await learning.run(body.code, learner, body.lesson, body.step, who)
