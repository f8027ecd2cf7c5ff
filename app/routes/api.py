"""The JSON API for lessons, health and runs (see docs/http-contract.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.learning.schemas import LessonListing, RunRequest
from app.lessons.public import lesson_summary
from app.routes.deps import LearnerDep, LearningDep, MaybeLearnerDep, learner_id, run_line
from app.sandbox.result import RunResult

router = APIRouter()


@router.get("/healthz", tags=["health"])
async def healthz(request: Request, learning: LearningDep) -> dict[str, Any]:
    sandbox = learning.runs.sandbox
    sandbox_report = (
        sandbox.health()
        if sandbox is not None
        else {"ready": False, "workers": 0, "isolation": {}, "problem": "disabled"}
    )
    return {"status": "ok", "lessons": len(learning.catalog), "sandbox": sandbox_report}


@router.get("/api/lessons", response_model=list[LessonListing], tags=["lessons"])
async def list_lessons(learning: LearningDep) -> list[dict[str, Any]]:
    return [lesson_summary(lesson) for lesson in learning.catalog.lessons]


@router.get("/api/lessons/{slug}", tags=["lessons"])
async def get_lesson(slug: str, learning: LearningDep, learner: LearnerDep) -> dict[str, Any]:
    """A lesson without its answers, nor what explains them (see app/lessons/public.py); the
    choices in this learner's order."""
    return learning.public_lesson(slug, learner)


@router.post(
    "/api/run",
    response_model=RunResult,
    tags=["sandbox"],
    responses={
        413: {"description": "The snippet is larger than the limit"},
        429: {"description": "This learner has as many runs going as allowed (see Retry-After)"},
        503: {
            "description": "Every worker is busy and the queue is full (see Retry-After), "
            "or the sandbox refuses to run snippets"
        },
    },
)
async def run_snippet(
    body: RunRequest, request: Request, learning: LearningDep, learner: MaybeLearnerDep
) -> RunResult:
    """Run a snippet in a fresh sandboxed process. A failing snippet is not an HTTP error:
    `status` says how it ended. With `lesson` and `step`, a step that asks for no prediction
    counts as done once its code has run."""
    who = run_line(request, learner)
    if body.lesson and learner is None:
        learner = learner_id(request)
    return await learning.run(body.code, learner, body.lesson, body.step, who)
