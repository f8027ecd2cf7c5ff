"""The progress store is synchronous: no request may call it on the event loop.

A store call on the loop holds up every other request and every run in flight while it waits
for the database (SQLite's write lock under load, a PostgreSQL round trip). The async paths of
the learning core (a run that completes a step, a typed value, a pitfall fix) must hand their
writes to a thread, as FastAPI does for the synchronous routes."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.progress.store import ProgressStore
from tests.learner_clients import FIXTURES, LESSON

RUN = "import torch\nw = torch.tensor(1.0, requires_grad=True)\n(3 * w).backward()\n"


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture
def calls_on_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every ProgressStore method called from the event loop's thread, by name."""
    seen: list[str] = []

    def watch(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def watched(*args: Any, **kwargs: Any) -> Any:
            if _on_event_loop():
                seen.append(name)
            return method(*args, **kwargs)

        return watched

    for name in dir(ProgressStore):
        method = getattr(ProgressStore, name)
        if not name.startswith("_") and callable(method):
            monkeypatch.setattr(ProgressStore, name, watch(name, method))
    yield seen


def test_the_watch_sees_a_call_on_the_loop(calls_on_loop: list[str]) -> None:
    async def on_the_loop() -> None:
        with pytest.raises(AttributeError):  # no real store behind it: the watch ran first
            ProgressStore.steps_done(None, "nobody")  # type: ignore[arg-type]

    # A loop of its own, in a thread of its own (browser tests may leave one in this thread).
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, on_the_loop()).result()
    assert calls_on_loop == ["steps_done"]


def test_a_run_that_completes_a_step_writes_off_the_loop(
    sandbox_client: TestClient, calls_on_loop: list[str]
) -> None:
    answer = sandbox_client.post(
        "/api/run", json={"code": RUN, "lesson": "second-steps", "step": 1}
    )
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    progress = sandbox_client.get("/api/lessons/second-steps/progress").json()
    assert progress["steps_done"] == 1
    assert calls_on_loop == []


def test_a_typed_value_and_a_fix_write_off_the_loop(
    sandbox_client: TestClient, calls_on_loop: list[str]
) -> None:
    value = sandbox_client.post(f"{LESSON}/steps/1/value", json={"value": "[4, 6]"})
    assert value.status_code == 200 and value.json()["correct"] is True
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    fix = sandbox_client.post(
        f"{LESSON}/pitfalls/1/check", json={"code": lesson.pitfalls[0].correct.code}
    )
    assert fix.status_code == 200 and fix.json()["passed"] is True
    assert calls_on_loop == []
