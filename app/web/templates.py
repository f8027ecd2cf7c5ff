"""Jinja2 environment, filters and the friendly error pages."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import rendering
from app.config import TEMPLATES_DIR

log = logging.getLogger("gradlab")
templates = Jinja2Templates(directory=TEMPLATES_DIR)
templates.env.filters["markdown"] = rendering.markdown
templates.env.filters["markdown_inline"] = rendering.markdown_inline
templates.env.filters["python"] = rendering.python_code


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def _wants_html(request: Request) -> bool:
    return not request.url.path.startswith(("/api/", "/healthz", "/static/"))


def install_error_pages(app: FastAPI) -> None:
    """HTML pages get a friendly page; the API keeps FastAPI's JSON errors. A database that
    cannot be reached is a 503 with Retry-After (the request changed nothing), never a 500."""

    @app.exception_handler(OperationalError)
    async def database_unavailable(request: Request, exc: OperationalError) -> Response:
        log.error("progress store unavailable: %s", str(exc).splitlines()[0])
        unavailable = StarletteHTTPException(
            503,
            "Your progress cannot be reached right now; nothing was lost. Try again shortly.",
            headers={"Retry-After": "2"},
        )
        return await http_error(request, unavailable)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if not _wants_html(request):
            return JSONResponse(
                {"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers
            )
        title = "Page not found" if exc.status_code == 404 else "Something went wrong"
        return render(
            request,
            "error.html",
            status_code=exc.status_code,
            title=title,
            status=exc.status_code,
            detail=exc.detail,
        )
