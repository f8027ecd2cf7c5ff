"""The JSON API (see shared/design/api.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import BaseModel, Field

from app.lessons.loader import Catalog
from app.lessons.public import lesson_summary, public_lesson
from app.sandbox.result import RunResult
from app.sandbox.service import Sandbox, SandboxBusy, SandboxUnavailable, SnippetTooLarge

router = APIRouter()


def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


def get_sandbox(request: Request) -> Sandbox:
    sandbox: Sandbox | None = request.app.state.sandbox
    if sandbox is None:
        raise HTTPException(
            503, "The sandbox is disabled on this server (GRADLAB_SANDBOX_ENABLED)."
        )
    return sandbox


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
SandboxDep = Annotated[Sandbox, Depends(get_sandbox)]


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
async def run_snippet(body: RunRequest, sandbox: SandboxDep) -> RunResult:
    """Run a snippet in a fresh sandboxed process. A failing snippet is not an HTTP error:
    `status` says how it ended."""
    try:
        return await sandbox.run(body.code)
    except SnippetTooLarge as exc:
        raise HTTPException(413, str(exc)) from exc
    except SandboxBusy as exc:
        raise HTTPException(503, str(exc), headers={"Retry-After": "1"}) from exc
    except SandboxUnavailable as exc:
        raise HTTPException(
            503, f"The sandbox is not running snippets: {exc}", headers={"Retry-After": "5"}
        ) from exc
