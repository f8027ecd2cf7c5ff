"""The HTML pages a learner sees: the catalog, a lesson and the playground."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.routes.deps import (
    INVENTORY_KEY,
    LearnerDep,
    LearningDep,
    MaybeLearnerDep,
    VisitorDep,
    WriterDep,
    read,
    render_page,
)

router = APIRouter(include_in_schema=False)


@router.get("/", response_class=HTMLResponse)
async def catalog_page(
    request: Request, learning: LearningDep, learner: MaybeLearnerDep
) -> HTMLResponse:
    flag = request.session.get(INVENTORY_KEY)  # "not now" said lately: no query
    page = await read(learning, learning.catalog_page, learner, flag)
    return render_page(request, page)


@router.get("/lessons/{slug}", response_class=HTMLResponse)
async def lesson_page(
    request: Request, slug: str, learning: LearningDep, learner: LearnerDep
) -> HTMLResponse:
    page = await read(learning, learning.lesson_page, slug, learner)
    return render_page(request, page)


@router.post("/lessons/{slug}/read-ahead")
async def read_ahead(
    slug: str, learning: LearningDep, learner: LearnerDep, write: WriterDep, mode: str = ""
) -> RedirectResponse:
    """ "Read ahead: show every answer": the whole lesson opens for this learner, and what they
    answer in it from now on is kept as seen. A form post, so it works without JavaScript."""
    back = await write(learning.read_ahead, learner, slug, mode)
    return RedirectResponse(back, status_code=303)


@router.post("/progress/reset")
async def reset_progress_form(
    learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> RedirectResponse:
    """The catalog's "Reset my progress" button: works without JavaScript."""
    await write(learning.reset, learner)
    return RedirectResponse("/", status_code=303)


@router.get("/playground", response_class=HTMLResponse)
async def playground_page(
    request: Request, learning: LearningDep, _: VisitorDep, share: str | None = None
) -> HTMLResponse:
    """The playground; with `?share=ID`, an editable copy of that share's code. A newcomer
    leaves with a learner's cookie, so their runs wait in a line of their own."""
    page = await read(learning, learning.playground_page, share)
    return render_page(request, page)
