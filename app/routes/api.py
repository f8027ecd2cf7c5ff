"""The JSON API (see shared/design/api.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from app.lessons.public import lesson_summary, public_lesson
from app.routes.deps import CatalogDep, SandboxDep, get_store, learner_for_writing
from app.sandbox.result import RunResult
from app.sandbox.service import Sandbox, SandboxBusy, SandboxUnavailable, SnippetTooLarge

router = APIRouter()


class LessonSummary(BaseModel):
    slug: str
    title: str
    summary: str
    level: str
    minutes: int


class RunRequest(BaseModel):
    code: str = Field(description="Python source of the snippet")
    lesson: str | None = Field(default=None, max_length=64, description="Lesson slug, for context")
    step: int | None = Field(default=None, ge=0, le=1000, description="Step number, for context")


@router.get("/healthz", tags=["health"])
def healthz(request: Request, catalog: CatalogDep) -> dict[str, Any]:
    sandbox: Sandbox | None = request.app.state.sandbox
    sandbox_report = (
        sandbox.health()
        if sandbox is not None
        else {"ready": False, "workers": 0, "isolation": {}, "problem": "disabled"}
    )
    return {"status": "ok", "lessons": len(catalog), "sandbox": sandbox_report}


@router.get("/api/lessons", response_model=list[LessonSummary], tags=["lessons"])
def list_lessons(catalog: CatalogDep) -> list[dict[str, Any]]:
    return [lesson_summary(lesson) for lesson in catalog.lessons]


@router.get("/api/lessons/{slug}", tags=["lessons"])
def get_lesson(slug: str, catalog: CatalogDep) -> dict[str, Any]:
    lesson = catalog.get(slug)
    if lesson is None:
        raise HTTPException(404, f"No lesson called {slug!r}")
    return public_lesson(lesson)


@router.post(
    "/api/run",
    response_model=RunResult,
    tags=["sandbox"],
    responses={
        413: {"description": "The snippet is larger than the limit"},
        503: {
            "description": "Every worker is busy and the queue is full (see Retry-After), "
            "or the sandbox refuses to run snippets"
        },
    },
)
async def run_snippet(body: RunRequest, request: Request, sandbox: SandboxDep) -> RunResult:
    """Run a snippet in a fresh sandboxed process. A failing snippet is not an HTTP error:
    `status` says how it ended. With `lesson` and `step`, a step that asks for no prediction
    counts as done once its code has run."""
    try:
        result = await sandbox.run(body.code)
    except SnippetTooLarge as exc:
        raise HTTPException(413, str(exc)) from exc
    except SandboxBusy as exc:
        raise HTTPException(503, str(exc), headers={"Retry-After": "1"}) from exc
    except SandboxUnavailable as exc:
        raise HTTPException(
            503, f"The sandbox is not running snippets: {exc}", headers={"Retry-After": "5"}
        ) from exc
    await _mark_step_run(request, body.lesson, body.step)
    return result


async def _mark_step_run(request: Request, slug: str | None, number: int | None) -> None:
    """Running a step's code completes a step that asks for no prediction."""
    lesson = request.app.state.catalog.get(slug) if slug else None
    if lesson is None or number is None or not 1 <= number <= len(lesson.steps):
        return
    if lesson.steps[number - 1].prediction is None:
        store = get_store(request)
        learner = learner_for_writing(request)
        await run_in_threadpool(store.mark_done, learner, lesson.slug, number)
