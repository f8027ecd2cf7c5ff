"""The ASGI application: `create_app(settings)` wires lessons, sandbox, routes and templates;
`from_environment` is the factory a server calls."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from app.config.loading import SettingsError, load_settings, refused, warn_unknown_variables
from app.config.paths import STATIC_DIR
from app.config.settings import Settings
from app.learning.lti.grades import ScoreSender, send_scores
from app.learning.readiness import DatabaseProbe
from app.learning.service import Learning
from app.learning.shares import SharePolicy, Shares
from app.lessons.loader import Catalog, load_catalog
from app.lessons.reload import LiveCatalog, log_broken
from app.pedagogy.scheduler import describe_wait
from app.progress.database import make_engine, prepare_schema
from app.progress.store import ProgressStore
from app.routes import (
    api,
    classes,
    dev,
    exercises,
    inventory,
    learning,
    lti,
    modes,
    pages,
    review,
    shares,
)
from app.sandbox.service import Sandbox
from app.web import page_speed, problems, templates
from app.web.body_limit import BodyLimitMiddleware
from app.web.client_address import ClientAddressMiddleware, NewLearnerLimit
from app.web.cross_site import CrossSiteMiddleware
from app.web.gc_tuning import settle_for_serving
from app.web.head_requests import HeadMiddleware
from app.web.logs import RequestIdMiddleware, configure_logging
from app.web.metrics import MeteredSandbox, Metrics, MetricsMiddleware
from app.web.process_metrics import watch_sandbox
from app.web.security_headers import SecurityHeadersMiddleware

log = logging.getLogger("gradlab")


def create_app(
    settings: Settings | None = None, *, reload: bool = False, started: Sandbox | None = None
) -> FastAPI:
    """Build the app. Lessons are loaded (and validated) now: a broken bundled lesson stops
    start-up with a message naming the file and the field.

    With `reload` (development: `gradlab serve --reload`) the lesson folders are watched and
    the catalog reloaded on change; a broken lesson shows its error instead of stopping.

    `started` is for embedding and for tests that share one sandbox between apps: a sandbox
    already started, with these settings' sandbox limits, that the app runs snippets on and
    reads the health and gauges of, but neither starts nor stops (its owner does); its runs are
    counted in this app's run metrics as its own would be. Without it, the app starts its own
    sandbox (unless `sandbox_enabled` is off) and stops it when it stops."""
    settings = settings or Settings()
    catalog = load_catalog(settings.lessons_dir, keep_broken=reload)
    engine = make_engine(settings.database_url)
    prepare_schema(engine, settings.migrate)
    store = ProgressStore(engine)
    secret_key = (
        settings.secret_key.get_secret_value()
        if settings.secret_key
        else store.secret("cookie-signing-key")
    )
    metrics = Metrics()
    database = _watch_database(metrics, store)
    owned = _own_sandbox(settings, started)  # the one this app starts and stops
    sandbox = _metered(started if started is not None else owned, metrics)
    gauges = watch_sandbox(metrics, sandbox, len(catalog))
    share_book = Shares(store, _share_policy(settings, secret_key), metrics.count_share)

    def learning(lessons: Catalog) -> Learning:
        return Learning(
            lessons,
            store,
            sandbox,
            share_book,
            settings.public_url,
            secret_key,
            settings.review_sitting,
            "public_url" in settings.model_fields_set,
            metrics,
            database,
        )

    def publish(reloaded: Catalog) -> None:
        app.state.catalog = reloaded
        # The core caches what it computed from the old lessons: a new one starts clean.
        app.state.learning = learning(reloaded)

    live = LiveCatalog(settings.lessons_dir, publish) if reload else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stopping = asyncio.Event()
        # From the start: a process whose sandbox is still starting counts as not ready.
        publishing = asyncio.create_task(gauges.keep_published(stopping)) if gauges else None
        watching = grading = checking = None
        try:
            if owned is not None:
                await owned.start()
            watching, grading, checking = (
                asyncio.create_task(live.watch(stopping)) if live else None,
                asyncio.create_task(send_scores(ScoreSender(store), stopping)),
                asyncio.create_task(database.keep_probing(stopping)),
            )
            if url := getattr(app.state, "listen_url", None):
                log.info("ready: open %s", url)
            yield
        finally:
            stopping.set()
            for task in (watching, publishing, grading, checking):
                if task is not None:
                    await task
            if owned is not None:
                await owned.stop()
            store.writer.close()  # the writes handed over land first
            engine.dispose()

    app = FastAPI(
        title="gradlab",
        summary="Learn PyTorch autograd and .grad by running real code.",
        version="0.1.0",
        lifespan=lifespan,
        # gradlab's own metrics and logs (app/web/metrics.py, app/web/logs.py) observe every
        # request; FastAPI's OpenTelemetry would otherwise look up its providers on each one.
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.settings = settings
    app.state.catalog = catalog
    app.state.sandbox = sandbox
    app.state.store = store
    app.state.learning = learning(catalog)
    app.state.live_catalog = live
    app.state.new_learners = NewLearnerLimit(
        settings.new_learners_per_minute, metrics.refusals.labels("client_limit").inc
    )
    _install_middleware(app, settings, secret_key, metrics)
    _install_routes(app, catalog, with_dev=live is not None)
    folders = ", ".join(str(folder) for folder in settings.lessons_dir)
    log.info("%d lessons from %s", len(catalog), folders)
    return app


def _metered(sandbox: Sandbox | None, metrics: Metrics) -> MeteredSandbox | None:
    """Every sandbox the app runs on, its own or one given started, is metered on the way."""
    return MeteredSandbox(sandbox, metrics) if sandbox is not None else None


def _own_sandbox(settings: Settings, started: Sandbox | None) -> Sandbox | None:
    """The sandbox the app starts and stops: none when it is given one already started, or
    when the sandbox is disabled (and then it may not be given one)."""
    if started is not None:
        if not settings.sandbox_enabled:
            raise ValueError("a started sandbox was given to an app whose sandbox is disabled")
        return None
    return Sandbox(settings) if settings.sandbox_enabled else None


def _watch_database(metrics: Metrics, store: ProgressStore) -> DatabaseProbe:
    """The database's errors counted, and its readiness check, shown as a gauge."""
    metrics.watch_database(store.engine)
    return DatabaseProbe(store.ping, metrics.database_ready.set)


def _share_policy(settings: Settings, secret_key: str) -> SharePolicy:
    return SharePolicy(
        code_bytes=settings.code_bytes,
        per_hour=settings.shares_per_hour,
        per_address_per_hour=settings.shares_per_address_per_hour,
        days=settings.share_days,
        secret=secret_key,
    )


def _install_middleware(
    app: FastAPI, settings: Settings, secret_key: str, metrics: Metrics
) -> None:
    """The middleware stack, innermost first."""
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret_key,
        session_cookie="gradlab_learner",
        max_age=365 * 24 * 3600,
        same_site=settings.cookie_samesite,
        https_only=settings.cookie_secure,
    )
    app.add_middleware(problems.ServerErrors)  # a route's exception is a 500 every layer above sees
    # JSON may escape every character of a snippet as \uXXXX: leave room for that, no more.
    app.add_middleware(
        BodyLimitMiddleware,
        max_bytes=6 * settings.code_bytes + 64 * 1024,
        timeout_s=settings.body_timeout_s,
    )
    # A write sent by another site's page is refused before its body is read or a route runs.
    app.add_middleware(
        CrossSiteMiddleware,
        exempt=[lti.router.url_path_for(name) for name in lti.PLATFORM_POSTS],
        public_url=settings.public_url if settings.public_url_given else None,
        forwarded_host=bool(settings.trusted_proxies),
    )
    app.add_middleware(
        SecurityHeadersMiddleware,
        frame_ancestors=settings.frame_ancestors,
        hsts=settings.cookie_secure,
    )
    app.add_middleware(
        MetricsMiddleware,
        metrics=metrics,
        token=settings.metrics_token.get_secret_value() if settings.metrics_token else None,
    )
    app.add_middleware(HeadMiddleware)  # everything inside sees a GET
    app.add_middleware(RequestIdMiddleware)  # the access line shows the real method
    # Outermost: everything inside, the access line included, sees the client's address.
    app.add_middleware(ClientAddressMiddleware, trusted=settings.trusted_proxies)


def _install_routes(app: FastAPI, catalog: Catalog, *, with_dev: bool) -> None:
    """Static files, routers (the dev router only under `--reload`), error pages, globals."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(api.router)
    app.include_router(learning.router)
    app.include_router(pages.router)
    app.include_router(modes.router)
    app.include_router(exercises.router)
    app.include_router(review.router)
    app.include_router(shares.router)
    app.include_router(classes.router)
    app.include_router(inventory.router)
    app.include_router(lti.router)
    if with_dev:
        app.include_router(dev.router)
        log_broken(catalog)
    problems.install(app)
    templates.templates.env.globals["describe_wait"] = describe_wait
    page_speed.install(templates.templates)


def from_environment() -> FastAPI:
    """The app as a server process builds it, from the `GRADLAB_*` environment: the factory of
    `uvicorn --factory app.main:from_environment` and of each of `gradlab serve --processes`'s
    processes. Unlike `create_app` (which tests call, keeping pytest's log capture), it sets up
    logging and the collector as `gradlab serve` does, and says bad settings as it does: one
    line each on stderr, exit status 2, no traceback."""
    try:
        settings = load_settings()
        # uvicorn's --log-level, which it has set on its own logger before calling the factory.
        level = logging.getLevelName(logging.getLogger("uvicorn.error").getEffectiveLevel())
        configure_logging(settings.log_format, level)
        warn_unknown_variables(log.warning)
        application = create_app(settings)
    except SettingsError as exc:  # a bad value, a database it cannot open or is behind
        sys.exit(refused(exc, "gradlab"))
    settle_for_serving()  # as `gradlab serve` does: see app/web/gc_tuning.py
    return application
