"""Logging: a quiet start, plain or JSON lines, and a request id on every request's lines.

`configure_logging` is called by whatever starts the server (`gradlab serve`, or `uvicorn
--factory app.main:from_environment`), never by `create_app`, so that tests keep pytest's own
log capture.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.observed import Observed, call_observed

REQUEST_ID_HEADER = "X-Request-ID"
# A proxy's id is kept if it looks like one; anything else (a log-injection attempt) is replaced.
_VALID_ID = re.compile(rb"[A-Za-z0-9._:-]{1,64}")
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
access_log = logging.getLogger("gradlab.access")
# Loggers that talk at INFO about things an operator need not read at every start.
_CHATTY = ("alembic", "uvicorn.error", "uvicorn.access", "httpx")


def _warnings_and_worse(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.WARNING


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, extra fields."""

    _STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "request_id"}

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None)
        if rid:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                entry[key] = value if isinstance(value, int | float | bool | None) else str(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = getattr(record, "request_id", None)
        return f"{line} [{rid}]" if rid else line


def configure_logging(log_format: str = "text", level: str = "info") -> None:
    """Send every logger to stderr in one format; keep INFO for gradlab's own lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name("gradlab")
    handler.addFilter(_RequestIdFilter())
    text = _TextFormatter("%(levelname)s %(name)s: %(message)s")
    handler.setFormatter(JsonFormatter() if log_format == "json" else text)
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if h.get_name() != "gradlab"] + [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers = []  # theirs: plain text, no request id
        logging.getLogger(name).propagate = True
    for name in _CHATTY:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
        # uvicorn sets its loggers' levels again as it starts (from --log-level), and its
        # parent of several processes talks at INFO: a filter outlasts that.
        logging.getLogger(name).addFilter(_warnings_and_worse)


class RequestIdMiddleware:
    """Give every request an id (or keep the proxy's), log one access line with it, and
    return it in the X-Request-ID header so a learner's report can be matched to the logs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(REQUEST_ID_HEADER.lower().encode(), b"")
        rid = given.decode() if _VALID_ID.fullmatch(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        observed = Observed()

        def add_id(message: Message) -> None:
            MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid

        try:
            await call_observed(self.app, scope, receive, send, observed, add_id)
        finally:
            if access_log.isEnabledFor(logging.INFO):
                duration_ms = round(observed.seconds() * 1000, 1)
                access_log.info(
                    "%s %s %s %.1f ms",
                    scope["method"],
                    scope["path"],
                    observed.status,
                    duration_ms,
                    extra={
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": observed.status,
                        "duration_ms": duration_ms,
                    },
                )
            request_id.reset(token)
