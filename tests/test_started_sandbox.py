"""An app given a sandbox already started (`create_app(..., started=)`) runs snippets on it and
reports its health, and leaves it running when it stops; the tests' shared sandbox takes only
apps whose sandbox settings are its own."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import SandboxHarness, SandboxOnItsLoop, app_on_shared_sandbox, make_settings


def test_an_app_runs_on_a_started_sandbox_and_leaves_it_running(
    default_sandbox: SandboxHarness,
) -> None:
    settings = make_settings(sandbox_enabled=True)
    for _ in range(2):  # one app after another, each on its own event loop
        with TestClient(create_app(settings, started=SandboxOnItsLoop(default_sandbox))) as app:
            answer = app.post("/api/run", json={"code": "print(6 * 7)"}).json()
            assert (answer["status"], answer["stdout"]) == ("ok", "42\n")
            health = app.get("/healthz").json()["sandbox"]
            assert health["ready"] is True and health["busy"] == 0
    assert default_sandbox.run("print('still here')").stdout == "still here\n"


def test_an_app_on_a_started_sandbox_meters_its_runs(default_sandbox: SandboxHarness) -> None:
    # Metering is a wrapper every sandbox passes through, not a kind of sandbox: runs on one
    # the app was given count in its metrics as runs on its own do.
    auth = {"Authorization": "Bearer started-sandbox-test"}
    settings = make_settings(sandbox_enabled=True, metrics_token=auth["Authorization"][7:])
    with TestClient(create_app(settings, started=SandboxOnItsLoop(default_sandbox))) as app:
        for code in ("print(1)", "print(2)", "1 / 0"):
            app.post("/api/run", json={"code": code})
        text = app.get("/metrics", headers=auth).text
    assert 'gradlab_runs_total{status="ok"} 2.0' in text
    assert 'gradlab_runs_total{status="error"} 1.0' in text
    assert "gradlab_run_duration_seconds_count 3.0" in text
    assert "gradlab_sandbox_ready 1.0" in text  # its health, read through the wrapper


def test_a_disabled_sandbox_takes_no_started_one(default_sandbox: SandboxHarness) -> None:
    with pytest.raises(ValueError, match="disabled"):
        create_app(make_settings(), started=SandboxOnItsLoop(default_sandbox))


def test_an_app_with_other_limits_cannot_share_the_sandbox(
    request: pytest.FixtureRequest, default_sandbox: SandboxHarness
) -> None:
    workers = 2 if default_sandbox.sandbox.workers == 1 else 1
    for limit in ({"workers": workers}, {"wall_time_s": 1.0}, {"code_bytes": 1000}):
        settings = make_settings(sandbox_enabled=True, **limit)
        with pytest.raises(AssertionError, match=next(iter(limit))):
            app_on_shared_sandbox(request, settings)
