"""The ASGI application: `create_app(settings)` wires lessons, sandbox, routes and templates."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from app.config import PROJECT_ROOT, Settings
from app.lessons.loader import load_catalog
from app.progress.database import make_engine, migrate, require_current
from app.progress.store import ProgressStore
from app.routes import api, learning, modes, pages
from app.sandbox.service import Sandbox
from app.web import templates
from app.web.body_limit import BodyLimitMiddleware
from app.web.head import HeadMiddleware
from app.web.security_headers import SecurityHeadersMiddleware

log = logging.getLogger("gradlab")


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app. Lessons are loaded (and validated) now: a broken bundled lesson stops
    start-up with a message naming the file and the field."""
    settings = settings or Settings()
    catalog = load_catalog(settings.lessons_dir)
    engine = make_engine(settings.database_url)
    if settings.migrate == "auto":
        migrate(engine)
    else:
        require_current(engine)
    store = ProgressStore(engine)
    secret_key = (
        settings.secret_key.get_secret_value()
        if settings.secret_key
        else store.secret("cookie-signing-key")
    )
    sandbox = Sandbox(settings) if settings.sandbox_enabled else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if sandbox is not None:
            await sandbox.start()
        try:
            yield
        finally:
            if sandbox is not None:
                await sandbox.stop()
            engine.dispose()

    app = FastAPI(
        title="gradlab",
        summary="Learn PyTorch autograd and .grad by running real code.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.catalog = catalog
    app.state.sandbox = sandbox
    app.state.store = store
    app.state.real_grads = {}
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret_key,
        session_cookie="gradlab_learner",
        max_age=365 * 24 * 3600,
        same_site="lax",
        https_only=settings.cookie_secure,
    )
    # JSON may escape every character of a snippet as \uXXXX: leave room for that, no more.
    app.add_middleware(BodyLimitMiddleware, max_bytes=6 * settings.code_bytes + 64 * 1024)
    app.add_middleware(
        SecurityHeadersMiddleware,
        frame_ancestors=settings.frame_ancestors,
        hsts=settings.cookie_secure,
    )
    app.add_middleware(HeadMiddleware)  # outermost: everything inside sees a GET
    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    app.include_router(api.router)
    app.include_router(learning.router)
    app.include_router(pages.router)
    app.include_router(modes.router)
    templates.install_error_pages(app)
    log.info("gradlab: %d lessons from %s", len(catalog), settings.lessons_dir)
    return app


def __getattr__(name: str) -> FastAPI:
    # `uvicorn app.main:app` builds the app from the environment when it is first asked for,
    # so that importing this module (tests, tools) starts nothing.
    if name == "app":
        application = create_app()
        globals()["app"] = application
        return application
    raise AttributeError(name)
