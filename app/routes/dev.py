"""Development-only routes, mounted by `gradlab serve --reload` and never in production."""

from __future__ import annotations

from typing import Protocol

from fastapi import APIRouter, Request

router = APIRouter(include_in_schema=False)


class _Reloading(Protocol):
    """What this route reads of app/lessons/reload.py's LiveCatalog, which app/main.py sets."""

    version: int


@router.get("/dev/catalog-version")
async def catalog_version(request: Request) -> dict[str, int]:
    """How many times the lessons were reloaded; static/js/dev-reload.js polls it."""
    live: _Reloading = request.app.state.live_catalog
    return {"version": live.version}
