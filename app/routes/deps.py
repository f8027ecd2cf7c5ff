"""FastAPI dependencies shared by the routes: the catalog, the sandbox, the store, the learner."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from app.lessons.loader import Catalog
from app.progress.store import ProgressStore
from app.sandbox.service import Sandbox

LEARNER_KEY = "learner"


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


def get_store(request: Request) -> ProgressStore:
    store: ProgressStore = request.app.state.store
    return store


def current_learner(request: Request) -> str | None:
    """The learner named by the signed cookie, if any."""
    learner = request.session.get(LEARNER_KEY)
    return learner if isinstance(learner, str) else None


def learner_for_writing(request: Request) -> str:
    """The learner behind this request, made on the first thing they record."""
    learner = current_learner(request)
    if learner is None:
        learner = get_store(request).new_learner()
        request.session[LEARNER_KEY] = learner
    return learner


async def _sandbox(request: Request) -> Sandbox:
    # A coroutine, so FastAPI resolves it on the event loop: a plain function would cost every
    # run a hop to the thread pool and back.
    return get_sandbox(request)


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
SandboxDep = Annotated[Sandbox, Depends(_sandbox)]
StoreDep = Annotated[ProgressStore, Depends(get_store)]
LearnerDep = Annotated[str, Depends(learner_for_writing)]
