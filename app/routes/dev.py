"""Development-only routes, mounted by `gradlab serve --reload` and never in production."""

from __future__ import annotations

from typing import Protocol

from fastapi import APIRouter, Request

router = APIRouter(include_in_schema=False)


class Reloading(Protocol):
    """The live catalog app/main.py keeps under `--reload` (app/lessons/reload.py)."""

    @property
    def version(self) -> int: ...


@router.get("/dev/catalog-version")
async def catalog_version(request: Request) -> dict[str, int]:
    """How many times the lessons were reloaded; static/js/dev-reload.js polls it."""
    live: Reloading = request.app.state.live_catalog
    return {"version": live.version}
