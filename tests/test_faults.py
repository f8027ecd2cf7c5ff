"""Faults and bad input: the server keeps serving, answers clearly, loses nothing, never 500s."""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.processes import child_pids
from tests.conftest import SandboxHarness, make_settings, wait_until
from tests.sandbox.started import MARK, submit, wait_until_started

LESSON = "/api/lessons/first-steps"
# Each test kills sandbox processes, restarts a database or fuzzes the whole API.
pytestmark = pytest.mark.slow


def test_a_child_killed_from_outside_is_reported_and_the_next_run_is_clean() -> None:
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        zygote = harness.sandbox._zygote
        assert zygote is not None

        def kill_children() -> None:
            for pid in child_pids(zygote.process.pid):
                os.kill(pid, signal.SIGKILL)

        running = submit(
            harness, MARK + "import time\nprint('started', flush=True)\ntime.sleep(30)\n"
        )
        wait_until_started(harness.sandbox)
        kill_children()
        result = running.result(60)
        assert result.status == "killed"
        assert result.stdout == "started\n"
        assert "SIGKILL" in result.error.message
        assert harness.run("print('clean')").stdout == "clean\n"
    finally:
        harness.close()


BAD_REQUESTS: list[tuple[str, str, dict[str, Any], int]] = [
    ("POST", "/api/run", {"content": b"{", "headers": {"content-type": "application/json"}}, 400),
    ("POST", "/api/run", {"json": {"code": None}}, 422),
    ("POST", "/api/run", {"json": ["code"]}, 422),
    (
        "POST",
        "/api/run",
        {"content": b"code=1", "headers": {"content-type": "application/x-www-form-urlencoded"}},
        422,
    ),
    ("POST", "/api/run", {"json": {"code": "x" * 20_001}}, 413),
    (
        "POST",
        "/api/run",
        {"content": b"[" * 500_000, "headers": {"content-type": "application/json"}},
        413,
    ),
    ("POST", "/api/run", {"json": {"code": "print(1)", "step": "one"}}, 422),
    ("POST", f"{LESSON}/steps/1/prediction", {"json": {"choice": 1}}, 422),
    ("POST", f"{LESSON}/steps/abc/prediction", {"json": {"choice": "None"}}, 422),
    ("POST", f"{LESSON}/steps/99999999999999999999/prediction", {"json": {"choice": "x"}}, 404),
    ("POST", f"{LESSON}/steps/1/value", {"json": {"value": "[" * 3000}}, 422),
    ("POST", f"{LESSON}/myths/1/answer", {"json": {"answer": True}}, 422),
    (
        "PUT",
        f"{LESSON}/steps/1/code",
        {"content": b"\xff\xfe", "headers": {"content-type": "application/json"}},
        400,
    ),
    ("GET", "/lessons/%00", {}, 404),
    ("GET", "/lessons/" + "a" * 5000, {}, 404),
    ("DELETE", "/api/lessons", {}, 405),
]


@pytest.mark.parametrize(
    ("method", "path", "options", "status"),
    BAD_REQUESTS,
    ids=[f"{m} {p[:40]} {s}" for m, p, _, s in BAD_REQUESTS],
)
def test_bad_requests_get_a_clear_client_error(
    sandbox_client: TestClient, method: str, path: str, options: dict[str, Any], status: int
) -> None:
    answer = sandbox_client.request(method, path, **options)
    assert answer.status_code == status, answer.text
    if path.startswith("/api/"):
        assert answer.headers["content-type"] == "application/problem+json"
        problem = answer.json()
        assert problem["status"] == status
        assert problem["type"].startswith("/problems/") and problem["title"] and problem["detail"]


def test_a_database_restart_during_requests_loses_nothing_and_never_500s(postgres: Any) -> None:
    database = postgres.new_database()
    with TestClient(create_app(make_settings(database_url=database))) as client:
        client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})  # becomes a learner
        statuses: list[int] = []
        acknowledged: list[str] = []
        stop = threading.Event()

        def keep_writing() -> None:
            number = 0
            while not stop.is_set():
                code = f"print({number})"
                answer = client.put(f"{LESSON}/steps/1/code", json={"code": code})
                statuses.append(answer.status_code)
                if answer.status_code == 204:
                    acknowledged.append(code)
                else:
                    assert answer.headers.get("retry-after"), answer.text
                number += 1

        writer = threading.Thread(target=keep_writing)
        writer.start()
        assert wait_until(lambda: len(statuses) > 10)
        postgres.restart()
        assert wait_until(lambda: statuses[-1:] == [204] and len(statuses) > 30, timeout=30)
        stop.set()
        writer.join()
        assert set(statuses) <= {204, 503}, set(statuses)
        final = client.get(f"{LESSON}/progress").json()
    assert final["steps"]["1"]["code"] == acknowledged[-1]
    assert final["myths"]["1"]["answer"] == "no"
