"""/metrics after real runs, request ids, JSON logs and a quiet start."""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config.paths import PROJECT_ROOT
from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, make_settings
from tests.live import free_port

TOKEN = secrets.token_urlsafe(24)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def metered() -> Iterator[TestClient]:
    """The app with a real sandbox and /metrics unlocked by a token."""
    settings = make_settings(sandbox_enabled=True, metrics_token=TOKEN, wall_time_s=1.0)
    with TestClient(create_app(settings)) as client:
        yield client


def _samples(text: str) -> dict[str, float]:
    """`name{labels}` -> value, for every sample line of a Prometheus text exposition."""
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


def test_metrics_show_the_runs_just_made(metered: TestClient) -> None:
    before = _samples(metered.get("/metrics", headers=AUTH).text)
    snippets = {
        "ok": "import torch\nx = torch.ones(2, requires_grad=True)\nx.sum().backward()\n",
        "error": "raise ValueError('on purpose')\n",
        "timeout": "while True:\n    pass\n",
    }
    for status, code in snippets.items():
        answer = metered.post("/api/run", json={"code": code})
        assert answer.status_code == 200 and answer.json()["status"] == status
    metered.post("/api/run", json={"code": snippets["ok"]})
    assert metered.get("/lessons/first-steps").status_code == 200

    response = metered.get("/metrics", headers=AUTH)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    after = _samples(response.text)

    def grew(name: str) -> float:
        return after[name] - before.get(name, 0.0)

    assert grew('gradlab_runs_total{status="ok"}') == 2
    assert grew('gradlab_runs_total{status="error"}') == 1
    assert grew('gradlab_runs_total{status="timeout"}') == 1
    assert grew('gradlab_sandbox_kills_total{reason="timeout"}') == 1
    assert grew("gradlab_run_duration_seconds_count") == 4
    assert grew('gradlab_run_duration_seconds_bucket{le="10.0"}') == 4
    assert grew("gradlab_run_duration_seconds_sum") >= 1.0  # the timeout waited its wall limit
    route = (
        'gradlab_http_request_duration_seconds_count{method="POST",route="/api/run",status="200"}'
    )
    assert grew(route) == 4
    page = 'gradlab_http_request_duration_seconds_count{method="GET",route="/lessons/{slug}",status="200"}'
    assert grew(page) == 1
    assert after["gradlab_sandbox_ready"] == 1
    assert after["gradlab_sandbox_workers"] >= 1
    assert after["gradlab_sandbox_busy_workers"] == 0
    assert after["gradlab_sandbox_queue_depth"] == 0
    assert after["gradlab_sandbox_queue_size"] == metered.app.state.settings.queue_size > 0
    assert after["gradlab_sandbox_spare_children"] >= 1
    for layer in ("rlimits", "no_new_privs", "landlock", "seccomp"):
        assert after[f'gradlab_sandbox_isolation_layer{{layer="{layer}"}}'] == 1
    assert after["gradlab_lessons"] == 2


def test_a_killed_run_is_logged_with_its_reason(
    metered: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """So that a rise in `gradlab_sandbox_kills_total` can be followed to the requests: the line
    is written during the request, so the log handler adds its request id."""
    with caplog.at_level(logging.INFO, logger="gradlab.sandbox"):
        metered.post("/api/run", json={"code": "x = 1\n"})
        answer = metered.post("/api/run", json={"code": "while True:\n    pass\n"})
    assert answer.json()["status"] == "timeout"
    [line] = [r.getMessage() for r in caplog.records if "killed" in r.getMessage()]
    assert re.fullmatch(r"sandbox: run killed \(timeout\) after \d+ ms", line)


def test_unmatched_urls_share_one_series(metered: TestClient) -> None:
    for n in range(3):
        metered.get(f"/scanner/probe-{n}")
    text = metered.get("/metrics", headers=AUTH).text
    assert "probe-" not in text
    assert 'route="<unmatched>"' in text


def test_metrics_need_the_token(metered: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        response = metered.get("/metrics", headers=headers)
        assert response.status_code == 401
        assert "gradlab_runs_total" not in response.text
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_without_a_token_there_are_no_metrics(sqlite_client: TestClient) -> None:
    assert sqlite_client.get("/metrics", headers=AUTH).status_code == 404


def test_every_response_has_a_request_id(sqlite_client: TestClient) -> None:
    ids = {sqlite_client.get("/").headers["x-request-id"] for _ in range(3)}
    assert len(ids) == 3
    assert sqlite_client.get("/", headers={"X-Request-ID": "proxy-42"}).headers["x-request-id"] == (
        "proxy-42"
    )
    forged = sqlite_client.get("/", headers={"X-Request-ID": "a b<script>"}).headers["x-request-id"]
    assert re.fullmatch("[0-9a-f]{32}", forged)


def test_an_access_line_says_method_path_status_and_duration(
    sqlite_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """The plain-text line an operator reads carries what docs/monitoring.md promises, not only the
    JSON one: `GET / 200 3.1 ms` (the handler adds the request id, as the JSON test shows)."""
    with caplog.at_level(logging.INFO, logger="gradlab.access"):
        sqlite_client.get("/lessons/no-such-lesson")
    [record] = [r for r in caplog.records if r.name == "gradlab.access"]
    assert re.fullmatch(r"GET /lessons/no-such-lesson 404 \d+\.\d ms", record.getMessage())
    assert record.duration_ms == float(record.getMessage().split()[3])  # type: ignore[attr-defined]


def test_json_logs_and_a_quiet_start() -> None:
    """`gradlab serve` with GRADLAB_LOG_FORMAT=json: every line is JSON, the start says only
    the lesson count and the URL (the sandbox, here off, would add its layers), and a
    request's line carries the id the response returned."""
    port = free_port()
    database = f"sqlite:///{tempfile.mkdtemp(prefix='gradlab-logs-')}/progress.db"
    env = {
        **os.environ,
        "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS),
        "GRADLAB_DATABASE_URL": database,
        "GRADLAB_SANDBOX_ENABLED": "false",
        "GRADLAB_LOG_FORMAT": "json",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.1)
    finally:
        process.terminate()
        out, err = process.communicate(timeout=30)
    lines = [json.loads(line) for line in (out + err).decode().splitlines() if line.strip()]
    messages = [entry["message"] for entry in lines if entry["logger"] != "gradlab.access"]
    assert messages[1].startswith("open files: limit "), messages  # app/web/open_files.py
    assert messages[:1] + messages[2:3] == [
        f"2 lessons from {FIXTURE_LESSONS.resolve()}",
        f"ready: open http://127.0.0.1:{port}",
    ], messages
    assert all(
        entry["level"] != "INFO"
        for entry in lines
        if entry["logger"] != "gradlab" and entry["logger"] != "gradlab.access"
    ), lines
    access = [entry for entry in lines if entry["logger"] == "gradlab.access"]
    assert any(
        entry["request_id"] == response.headers["x-request-id"]
        and entry["path"] == "/"
        and entry["status"] == 200
        for entry in access
    ), access
