"""Development-only routes, mounted by `gradlab serve --reload` and never in production."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.lessons.reload import LiveCatalog

router = APIRouter(include_in_schema=False)


@router.get("/dev/catalog-version")
async def catalog_version(request: Request) -> dict[str, int]:
    """How many times the lessons were reloaded; static/js/dev-reload.js polls it."""
    live: LiveCatalog = request.app.state.live_catalog
    return {"version": live.version}
