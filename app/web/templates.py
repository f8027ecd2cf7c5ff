"""The Jinja2 environment and its filters (error pages: app/web/problems.py)."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from app import rendering
from app.config.paths import TEMPLATES_DIR

templates = Jinja2Templates(directory=TEMPLATES_DIR)
templates.env.filters["markdown"] = rendering.markdown
templates.env.filters["markdown_inline"] = rendering.markdown_inline
templates.env.filters["python"] = rendering.python_code


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context, status_code=status_code)
