"""Where the progress store is called: writes never on the event loop, reads on it only on SQLite.

A write on the loop would hold up every other request and every run in flight while it waits
for the database's one writer (SQLite's write lock under load, an fsync). A read on SQLite in
WAL mode never waits for a writer and takes a fraction of a millisecond, less than the hop to a
thread and back: the routes read in place there (app/routes/deps.py, `read`). On PostgreSQL a
read is a round trip to a server that may be restarting, so it goes to a thread too."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.progress.store import ProgressStore
from tests.catalogs import FIXTURES, LESSON
from tests.clock import time_passes

RUN = "import torch\nw = torch.tensor(1.0, requires_grad=True)\n(3 * w).backward()\n"


def _on_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _watch(seen: list[str], name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def watched(*args: Any, **kwargs: Any) -> Any:
        if _on_event_loop():
            seen.append(name)
        return method(*args, **kwargs)

    return watched


@pytest.fixture
def calls_on_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every ProgressStore method called from the event loop's thread, by name."""
    seen: list[str] = []
    for name in dir(ProgressStore):
        method = getattr(ProgressStore, name)
        if not name.startswith("_") and callable(method):
            monkeypatch.setattr(ProgressStore, name, _watch(seen, name, method))
    yield seen


@pytest.fixture
def writes_on_loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every write transaction opened on the event loop's thread: each write of the store goes
    through `together`, alone or in `writing`."""
    seen: list[str] = []
    together = ProgressStore.together  # whatever the other watch left there
    monkeypatch.setattr(ProgressStore, "together", _watch(seen, "together", together))
    yield seen


def test_the_watch_sees_a_call_on_the_loop(
    calls_on_loop: list[str], writes_on_loop: list[str]
) -> None:
    async def on_the_loop() -> None:
        with pytest.raises(AttributeError):  # no real store behind it: the watch ran first
            ProgressStore.steps_done(None, "nobody")  # type: ignore[arg-type]
        with pytest.raises(AttributeError), ProgressStore.together(None):  # type: ignore[arg-type]
            pass

    # A loop of its own, in a thread of its own (browser tests may leave one in this thread).
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, on_the_loop()).result()
    assert calls_on_loop[0] == "steps_done"
    assert writes_on_loop == ["together"]


def _a_learner_reads_and_writes(client: TestClient) -> None:
    """Every page and read of the API, and every kind of answer that needs no sandbox."""
    reads = [
        "/",
        "/lessons/first-steps",
        "/lessons/first-steps/predict-the-gradient",
        "/lessons/first-steps/flashcards",
        "/review",
        "/progress",
        "/api/review",
        "/api/progress",
        "/api/progress/calibration",
        f"{LESSON}/progress",
    ]
    writes = [
        ("post", f"{LESSON}/steps/1/prediction", {"choice": "None", "confidence": "certain"}),
        ("post", f"{LESSON}/myths/1/answer", {"answer": "yes"}),
        ("post", f"{LESSON}/drills/step-1.x/answer", {"value": "0"}),
        ("put", f"{LESSON}/steps/1/code", {"code": "print(1)"}),
        ("post", f"{LESSON}/mode", {"mode": "flashcards"}),
    ]
    for path in reads:  # a new learner first: nothing of theirs in the store yet
        assert client.get(path).status_code == 200, path
    for method, path, body in writes:
        assert client.request(method, path, json=body).status_code in (200, 204), path
    time_passes(client)
    (item,) = [i for i in client.get("/api/review").json()["due"] if i["kind"] == "myth"]
    answer = {"answer": "no", "confidence": "certain"}
    assert client.post(f"/api/review/{item['id']}/answer", json=answer).status_code == 200
    assert client.delete(f"{LESSON}/steps/1/code").status_code == 204
    share = client.post("/api/shares", json={"code": "print(1)", "lesson": "first-steps"})
    share_id = share.json()["id"]
    for path in (f"/s/{share_id}", f"/playground?share={share_id}"):
        assert client.get(path).status_code == 200, path
    assert client.post(f"/api/shares/{share_id}/views").status_code == 204
    assert client.delete(f"/api/shares/{share_id}").status_code == 204
    for path in reads:  # and again with answers to read
        assert client.get(path).status_code == 200, path
    assert client.post("/api/progress/reset").status_code == 204


def test_no_request_writes_on_the_loop_and_reads_there_only_on_sqlite(
    client: TestClient,
    calls_on_loop: list[str],
    writes_on_loop: list[str],
) -> None:
    _a_learner_reads_and_writes(client)
    assert writes_on_loop == []
    if client.app.state.store.reads_in_place:  # type: ignore[attr-defined]
        assert "lesson_state" in calls_on_loop  # the lesson page read its progress in place
    else:  # PostgreSQL: not a single call on the loop
        assert calls_on_loop == []


def test_a_run_that_completes_a_step_writes_off_the_loop(
    sandbox_client: TestClient, writes_on_loop: list[str]
) -> None:
    answer = sandbox_client.post(
        "/api/run", json={"code": RUN, "lesson": "second-steps", "step": 1}
    )
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    progress = sandbox_client.get("/api/lessons/second-steps/progress").json()
    assert progress["steps_done"] == 1
    assert writes_on_loop == []


def test_a_typed_value_and_a_fix_write_off_the_loop(
    sandbox_client: TestClient, writes_on_loop: list[str]
) -> None:
    right = {
        "choice": "tensor([4., 6.])",
        "confidence": "fairly_sure",
    }  # the value is checked once the choice is committed
    assert sandbox_client.post(f"{LESSON}/steps/1/prediction", json=right).status_code == 200
    value = sandbox_client.post(f"{LESSON}/steps/1/value", json={"value": "[4, 6]"})
    assert value.status_code == 200 and value.json()["correct"] is True
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    fix = sandbox_client.post(
        f"{LESSON}/pitfalls/1/check", json={"code": lesson.pitfalls[0].correct.code}
    )
    assert fix.status_code == 200 and fix.json()["passed"] is True
    assert writes_on_loop == []
