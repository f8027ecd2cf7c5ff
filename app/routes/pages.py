"""The HTML pages a learner sees."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.lessons.loader import Catalog
from app.routes.deps import current_learner, get_store
from app.routes.learning import catalog_progress
from app.web.templates import render

router = APIRouter(include_in_schema=False)

PLAYGROUND_CODE = """import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()
y.backward()
print(x.grad)
"""


def _catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


@router.get("/", response_class=HTMLResponse)
def catalog_page(request: Request) -> HTMLResponse:
    catalog = _catalog(request)
    progress = catalog_progress(catalog, get_store(request), current_learner(request))
    return render(
        request,
        "catalog.html",
        lessons=catalog.lessons,
        progress=progress,
        broken=catalog.broken,  # empty unless `gradlab serve --reload`
    )


@router.get("/lessons/{slug}", response_class=HTMLResponse)
def lesson_page(request: Request, slug: str) -> HTMLResponse:
    catalog = _catalog(request)
    lesson = catalog.get(slug)
    if lesson is None:
        broken = catalog.get_broken(slug)  # only under `gradlab serve --reload`
        if broken is not None:
            return render(request, "lesson_broken.html", status_code=500, broken=[broken])
        raise HTTPException(404, f"There is no lesson called “{slug}”.")
    previous, following = catalog.neighbours(slug)
    titles = {other.slug: other.title for other in catalog.lessons}
    progress = catalog_progress(catalog, get_store(request), current_learner(request))[slug]
    return render(
        request,
        "lesson.html",
        lesson=lesson,
        previous=previous,
        following=following,
        titles=titles,
        progress=progress,
    )


@router.post("/progress/reset")
def reset_progress_form(request: Request) -> RedirectResponse:
    """The catalog's "Reset my progress" button: works without JavaScript."""
    learner = current_learner(request)
    if learner is not None:
        get_store(request).reset(learner)
    return RedirectResponse("/", status_code=303)


@router.get("/playground", response_class=HTMLResponse)
def playground_page(request: Request) -> HTMLResponse:
    return render(request, "playground.html", code=PLAYGROUND_CODE)
