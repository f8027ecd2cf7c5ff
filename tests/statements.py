"""The SQL statements one request sends, counted the one way the budget tests count them.

Every statement sent to the app's engine while the request runs is counted (SQLAlchemy's
`before_cursor_execute`), except two questions that run beside the requests on their own
clocks and are no request's cost: the LTI outbox's poll (app/learning/lti/grades.py) and the
readiness probe's `SELECT 1` every two seconds, on a thread of its own
(app/learning/readiness.py), which a run in the real sandbox can outlast."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import Engine, event


def _beside_the_requests(statement: str) -> bool:
    probing = threading.current_thread().name.startswith("gradlab-db-probe-")
    return probing or "FROM lti_scores" in statement


def statements_sent(engine: Engine, send: Callable[[], httpx.Response]) -> list[str]:
    """The statements `send` made the app send; its answer must be a 200."""
    sent: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if not _beside_the_requests(statement):
            sent.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        answer = send()
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert answer.status_code == 200, answer.text
    return sent
