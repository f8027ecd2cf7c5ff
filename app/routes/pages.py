"""The HTML pages a learner sees."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.lessons.loader import Catalog
from app.web.templates import render

router = APIRouter(include_in_schema=False)


def _catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


@router.get("/", response_class=HTMLResponse)
def catalog_page(request: Request) -> HTMLResponse:
    return render(request, "catalog.html", lessons=_catalog(request).lessons)


@router.get("/lessons/{slug}", response_class=HTMLResponse)
def lesson_page(request: Request, slug: str) -> HTMLResponse:
    catalog = _catalog(request)
    lesson = catalog.get(slug)
    if lesson is None:
        raise HTTPException(404, f"There is no lesson called “{slug}”.")
    previous, following = catalog.neighbours(slug)
    titles = {other.slug: other.title for other in catalog.lessons}
    return render(
        request,
        "lesson.html",
        lesson=lesson,
        previous=previous,
        following=following,
        titles=titles,
    )
