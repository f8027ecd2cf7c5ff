"""Prometheus metrics: HTTP latency and 5xx answers by route, runs and their latency, the
sandbox's gauges, the database's errors and readiness.

Served at /metrics only when GRADLAB_METRICS_TOKEN is set, and only to a request that carries
it (`Authorization: Bearer <token>`): queue depths and isolation layers are for the operator.
Everything is observed from outside the sandbox: its `run()` is timed by `MeteredSandbox` (a
wrapper every sandbox an app runs on passes through), and
its gauges are read from `Sandbox.health()` (and /proc) when Prometheus scrapes.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from sqlalchemy import Engine
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.event import listen
from sqlalchemy.exc import IntegrityError, OperationalError
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import LearnerLimit, SandboxBusy, SandboxUnavailable, SnippetTooLarge
from app.processes import child_pids, is_zygote, sandbox_children
from app.sandbox.fair import Who
from app.sandbox.result import KILLED, RunResult
from app.sandbox.runner import SandboxHealth, SnippetRunner
from app.web.observed import Observed, call_observed

# A run costs ~10 ms idle and up to the wall limit (5 s); refusals are instant.
RUN_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3.0, 5.0, 10.0)
REFUSALS = ("learner_limit", "queue_full", "client_limit")
DATABASE_ERRORS = ("connection", "operational", "integrity", "other")
HTTP_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """One registry per app (tests build many apps in one process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        # What a scrape reads: this registry, or with several server processes, every
        # process's files (app/web/process_metrics.py).
        self.scraped: Callable[[], CollectorRegistry] = lambda: self.registry
        self.http = Histogram(
            "gradlab_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template, method and status.",
            ["route", "method", "status"],
            buckets=HTTP_BUCKETS,
            registry=self.registry,
        )
        self.runs = Counter(
            "gradlab_runs",
            "Snippet runs by outcome: ok, error, timeout, memory, killed (the snippet ran); "
            "busy, limited (the learner's limit), unavailable, too_large (it was refused).",
            ["status"],
            registry=self.registry,
        )
        self.run_seconds = Histogram(
            "gradlab_run_duration_seconds",
            "Time from asking the sandbox for a run to its result, queueing included.",
            buckets=RUN_BUCKETS,
            registry=self.registry,
        )
        self.kills = Counter(
            "gradlab_sandbox_kills",
            "Runs the sandbox killed, by reason (timeout, memory, killed: output flood or "
            "a lost child).",
            ["reason"],
            registry=self.registry,
        )
        self.shares = Counter(
            "gradlab_shares",
            "Shared snippets: made (POST /api/shares) and viewed (share pages shown).",
            ["event"],
            registry=self.registry,
        )
        for event in ("made", "viewed"):
            self.shares.labels(event)
        self.refusals = Counter(
            "gradlab_refusals",
            "Requests refused to share the server fairly, by reason: learner_limit (a learner's "
            "runs in progress and waiting, 429), queue_full (the server's run queue, 503), "
            "client_limit (new learners from one client address, 429).",
            ["reason"],
            registry=self.registry,
        )
        self.known = Counter(
            "gradlab_known_runs",
            "Runs of a lesson's own code (app/learning/running/known_runs.py): hit (answered from "
            "its first run, no fork), miss (run in the sandbox, its answer kept).",
            ["outcome"],
            registry=self.registry,
        )
        self.known_size = Gauge(
            "gradlab_known_runs_kept",
            "Answers of a lesson's own code kept, in entries and in bytes (as JSON).",
            ["unit"],
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        for outcome in ("hit", "miss"):
            self.known.labels(outcome)
        self.server_errors = Counter(
            "gradlab_http_server_errors",
            "HTTP answers with a 5xx status (the server failed, or refused for want of the "
            "database or the sandbox), by route template and status.",
            ["route", "status"],
            registry=self.registry,
        )
        self.database_errors = Counter(
            "gradlab_database_errors",
            "Errors from the progress database, by kind: connection (cannot connect, or the "
            "connection was lost), operational (a lock or timeout, the database refused), "
            "integrity (a constraint refused a write: two requests of a race, handled), other.",
            ["kind"],
            registry=self.registry,
        )
        self.database_ready = Gauge(
            "gradlab_database_ready",
            "1 while the progress database answers the readiness check (with several server "
            "processes: in every one).",
            multiprocess_mode="livemin",
            registry=self.registry,
        )
        self.database_ready.set(1)  # start-up just opened it
        for kind in DATABASE_ERRORS:
            self.database_errors.labels(kind)
        for status in ("ok", "error", *KILLED, "busy", "limited", "unavailable", "too_large"):
            self.runs.labels(status)  # every series exists from the start, at 0
        for reason in KILLED:
            self.kills.labels(reason)
        for refusal in REFUSALS:
            self.refusals.labels(refusal)

    def watch_database(self, engine: Engine) -> None:
        """Count the engine's errors, wherever they happen (a request, the writer's thread,
        the readiness check), by `database_error_kind`."""
        listen(engine, "handle_error", self._database_error)

    def _database_error(self, context: ExceptionContext) -> None:
        if not context.is_pre_ping:  # the pool found a dead connection and makes another
            self.database_errors.labels(database_error_kind(context)).inc()

    def count_share(self, event: str) -> None:
        self.shares.labels(event).inc()

    def count_known(self, outcome: str) -> None:
        self.known.labels(outcome).inc()

    def known_kept(self, entries: int, size: int) -> None:
        self.known_size.labels("entries").set(entries)
        self.known_size.labels("bytes").set(size)

    def count_run(self, status: str, seconds: float) -> None:
        self.runs.labels(status).inc()
        self.run_seconds.observe(seconds)
        if status in KILLED:
            self.kills.labels(status).inc()


def database_error_kind(context: ExceptionContext) -> str:
    error = context.sqlalchemy_exception
    if context.is_disconnect or context.connection is None:
        return "connection"
    if isinstance(error, IntegrityError):
        return "integrity"
    if isinstance(error, OperationalError):
        return "operational"
    return "other"


class MeteredSandbox:
    """A sandbox's runs counted and timed on their way through (nothing inside the sandbox
    changes). Every sandbox an app runs on passes through one: its own, and one it was given
    started (`create_app(started=)`); health and the longest line are the sandbox's own."""

    def __init__(self, inner: SnippetRunner, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self.settings = inner.settings

    async def run(self, code: str, who: Who | None = None, doctor: bool = False) -> RunResult:
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await self.inner.run(code, who, doctor)
            outcome = result.status
            return result
        except SandboxBusy:
            outcome = "busy"
            self.metrics.refusals.labels("queue_full").inc()
            raise
        except LearnerLimit:
            outcome = "limited"
            self.metrics.refusals.labels("learner_limit").inc()
            raise
        except SandboxUnavailable:
            outcome = "unavailable"
            raise
        except SnippetTooLarge:
            outcome = "too_large"
            raise
        finally:
            self.metrics.count_run(outcome, time.perf_counter() - started)

    def health(self) -> SandboxHealth:
        return self.inner.health()

    def longest_line(self) -> int:
        return self.inner.longest_line()


def zygote_children() -> int | None:
    """How many processes the zygote has forked and not reaped (spares and running children)."""
    for pid in child_pids(os.getpid()):
        if is_zygote(pid):
            return len(sandbox_children(pid))
    return None


@dataclass(frozen=True)
class GaugeSpec:
    """A gauge read from the sandbox, and how the readings of several server processes add up
    (`gradlab serve --processes N`: prometheus_client's multi-process modes)."""

    name: str
    help: str
    across: Literal["livesum", "livemin", "livemax"]
    label: str | None = None


GAUGES = (
    GaugeSpec("gradlab_server_processes", "Server processes answering requests.", "livesum"),
    GaugeSpec("gradlab_lessons", "Lessons loaded.", "livemax"),
    GaugeSpec(
        "gradlab_sandbox_ready",
        "1 when snippets can run (with several server processes: in every one).",
        "livemin",
    ),
    GaugeSpec("gradlab_sandbox_workers", "Runs allowed at the same time.", "livesum"),
    GaugeSpec("gradlab_sandbox_busy_workers", "Runs in progress.", "livesum"),
    GaugeSpec("gradlab_sandbox_queue_depth", "Runs waiting for a worker.", "livesum"),
    GaugeSpec(
        "gradlab_sandbox_queue_size",
        "Runs that may wait for a worker before more are refused with 503 (GRADLAB_QUEUE_SIZE).",
        "livesum",
    ),
    GaugeSpec(
        "gradlab_sandbox_longest_line",
        "The most runs one learner has waiting (with several server processes: the longest "
        "of any).",
        "livemax",
    ),
    GaugeSpec(
        "gradlab_sandbox_spare_children",
        "Children forked and confined ahead of demand (the zygote's children minus the runs "
        "in progress).",
        "livesum",
    ),
    GaugeSpec(
        "gradlab_sandbox_isolation_layer",
        "1 for each isolation layer that is on, 0 for one that is off (with several server "
        "processes: on in every one).",
        "livemin",
        label="layer",
    ),
)


def read_gauges(sandbox: SnippetRunner | None, lessons: int) -> dict[str, dict[str, float]]:
    """Each gauge's values now, by label value ("" for a gauge without a label); a gauge that
    cannot be read is absent."""
    readings: dict[str, dict[str, float]] = {
        "gradlab_server_processes": {"": 1},
        "gradlab_lessons": {"": lessons},
    }
    if sandbox is None:
        return readings
    health = sandbox.health()
    readings["gradlab_sandbox_ready"] = {"": int(bool(health["ready"]))}
    readings["gradlab_sandbox_workers"] = {"": health["workers"]}
    readings["gradlab_sandbox_busy_workers"] = {"": health["busy"]}
    readings["gradlab_sandbox_queue_depth"] = {"": health["queued"]}
    readings["gradlab_sandbox_queue_size"] = {"": sandbox.settings.queue_size}
    readings["gradlab_sandbox_longest_line"] = {"": sandbox.longest_line()}
    children = zygote_children()
    if children is not None:
        readings["gradlab_sandbox_spare_children"] = {"": max(0, children - health["busy"])}
    readings["gradlab_sandbox_isolation_layer"] = {
        layer: int(str(state).startswith("on")) for layer, state in health["isolation"].items()
    }
    return readings


class SandboxCollector(Collector):
    """Gauges read from the sandbox when Prometheus scrapes (one server process)."""

    def __init__(self, sandbox: SnippetRunner | None, lessons: int) -> None:
        self.sandbox = sandbox
        self.lessons = lessons

    def collect(self) -> Iterable[Metric]:
        readings = read_gauges(self.sandbox, self.lessons)
        for spec in GAUGES:
            values = readings.get(spec.name)
            if values is None:
                continue
            if spec.label is None:
                yield GaugeMetricFamily(spec.name, spec.help, value=values[""])
                continue
            family = GaugeMetricFamily(spec.name, spec.help, labels=[spec.label])
            for label, value in sorted(values.items()):
                family.add_metric([label], value)
            yield family


def _route_template(scope: Scope) -> str:
    """The route a request matched, as a template (`/lessons/{slug}`), never the raw URL:
    one series per URL would grow without bound."""
    path = getattr(scope.get("route"), "path", None)
    if path is not None:
        return str(path)
    endpoint = scope.get("endpoint")
    if endpoint is None:
        return "<unmatched>"  # 404s, scanners
    if isinstance(endpoint, StaticFiles):
        return "/static/{path}"
    return str(scope["path"])  # FastAPI's own fixed routes: /docs, /openapi.json


class MetricsMiddleware:
    """Times every request by route template, and serves /metrics behind the token."""

    def __init__(self, app: ASGIApp, metrics: Metrics, token: str | None) -> None:
        self.app = app
        self.metrics = metrics
        self.token = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/metrics" and self.token is not None:
            await self._serve(scope, send, self.token)
            return
        observed = Observed()
        try:
            await call_observed(self.app, scope, receive, send, observed)
        finally:
            route, status = _route_template(scope), str(observed.status)
            self.metrics.http.labels(route, scope["method"], status).observe(observed.seconds())
            if observed.status >= 500:
                self.metrics.server_errors.labels(route, status).inc()

    async def _serve(self, scope: Scope, send: Send, token: bytes) -> None:
        given = dict(scope["headers"]).get(b"authorization", b"")
        if not hmac.compare_digest(given, token):
            body, status = b"A valid bearer token is required.\n", 401
            content_type = b"text/plain; charset=utf-8"
        else:
            body, status = generate_latest(self.metrics.scraped()), 200
            content_type = CONTENT_TYPE_LATEST.encode()
        headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="gradlab metrics"'))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
