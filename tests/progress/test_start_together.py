"""Instances and workers that start at the same moment on a fresh database all come up, share
one schema and one cookie-signing key."""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config.paths import PROJECT_ROOT
from app.progress.database import make_engine, migrate
from app.progress.store import ProgressStore
from tests.conftest import FIXTURE_LESSONS
from tests.live import free_port

pytestmark = pytest.mark.slow
LESSON = "/api/lessons/first-steps"


def _migrate_and_read_key(url: str, barrier: Any, out: Any) -> None:
    barrier.wait(30)  # every process leaves this line at the same instant
    engine = make_engine(url)
    migrate(engine)
    out.put(ProgressStore(engine).secret("cookie-signing-key"))


def test_processes_migrating_at_once_share_one_schema_and_one_key(database_url: str) -> None:
    """Eight processes released by a barrier: none fails, every one reads the same key."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(8)
    keys: Any = context.Queue()
    processes = [
        context.Process(target=_migrate_and_read_key, args=(database_url, barrier, keys))
        for _ in range(8)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * 8
    found = {keys.get(timeout=5) for _ in processes}
    assert len(found) == 1 and len(next(iter(found))) >= 32


def _env(database_url: str, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(PROJECT_ROOT),
        "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS),
        "GRADLAB_DATABASE_URL": database_url,
        "GRADLAB_SANDBOX_ENABLED": "false",
        **extra,
    }


def _wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the server at {url} exited during start-up"
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} did not become healthy")


def _stop(process: subprocess.Popen[bytes]) -> str:
    process.terminate()
    try:
        _, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
    return stderr.decode(errors="replace")


def test_three_instances_started_at_once_serve_one_learner(database_url: str) -> None:
    ports = [free_port() for _ in range(3)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
            cwd=PROJECT_ROOT,
            env=_env(database_url),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for port in ports
    ]
    try:
        for url, process in zip(urls, processes, strict=True):
            _wait_healthy(url, process)
        code = f"print('written through instance 0 at {time.time()}')"
        with httpx.Client(base_url=urls[0]) as first:
            assert first.put(f"{LESSON}/steps/1/code", json={"code": code}).status_code == 204
            cookie = first.cookies["gradlab_learner"]
        for url in urls:
            progress = httpx.get(
                f"{url}{LESSON}/progress", cookies={"gradlab_learner": cookie}
            ).json()
            assert progress["steps"]["1"]["code"] == code, url
    finally:
        logs = [_stop(process) for process in processes]
    for log in logs:
        assert "Traceback" not in log, log


def test_uvicorn_with_two_workers_starts_cleanly_on_a_fresh_sqlite_file() -> None:
    """docs/deploying.md's `uvicorn --factory app.main:from_environment --workers 2`: both
    workers build the app at once."""
    database = Path(tempfile.mkdtemp(prefix="gradlab-workers-")) / "fresh.db"
    port = free_port()
    factory = ["--factory", "app.main:from_environment"]
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", *factory, "--workers", "2", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=_env(f"sqlite:///{database}"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", process)
        # Both workers must have finished start-up (uvicorn restarts one that died, so being
        # healthy alone would not show that none crashed).
        time.sleep(3)
    finally:
        log = _stop(process)
    assert len(re.findall("lessons from", log)) == 2, log  # each worker built its app once
    assert "Traceback" not in log and "died" not in log, log
