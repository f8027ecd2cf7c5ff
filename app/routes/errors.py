"""The learning core's exceptions as HTTP answers: one mapping instead of a try in each route.

Not a route module: app/main.py installs it."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from app.learning.grader import AnswerError
from app.learning.questions import NotFound
from app.learning.queue import NotDue
from app.learning.runs import SandboxDisabled
from app.sandbox.service import LearnerLimit, SandboxBusy, SandboxUnavailable, SnippetTooLarge
from app.web.client_address import TooManyNewLearners
from app.web.templates import render

# exception -> (status, message prefix, Retry-After seconds or None; an exception's own
# `retry_after`, when it has one, wins)
_STATUS: dict[type[Exception], tuple[int, str, str | None]] = {
    NotFound: (404, "", None),
    AnswerError: (422, "", None),
    NotDue: (409, "This item was answered already; it is scheduled for later.", None),
    SnippetTooLarge: (413, "", None),
    SandboxBusy: (503, "", "1"),
    LearnerLimit: (429, "", "2"),
    TooManyNewLearners: (429, "", "60"),
    SandboxUnavailable: (503, "The sandbox is not running snippets: ", "5"),
    SandboxDisabled: (503, "", None),
}


def _answer(request: Request, exc: Exception) -> Response:
    status, prefix, retry = next(v for k, v in _STATUS.items() if isinstance(exc, k))
    detail = prefix if status == 409 else f"{prefix}{exc}"
    retry = str(getattr(exc, "retry_after", retry)) if retry else None
    headers = {"Retry-After": retry} if retry else None
    if request.url.path.startswith(("/api/", "/healthz")):
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    title = "Page not found" if status == 404 else "Something went wrong"
    page = render(request, "error.html", status, title=title, status=status, detail=detail)
    if headers:
        page.headers.update(headers)
    return page


def install(app: FastAPI) -> None:
    for exception in _STATUS:
        app.add_exception_handler(exception, _answer)
