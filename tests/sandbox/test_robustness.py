"""The sandbox under failure: dead zygotes, busy workers, concurrent runs, shutdown."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.processes import child_pids, sandbox_children
from tests.conftest import SandboxHarness, make_settings, wait_until
from tests.sandbox.started import MARK, submit, wait_until_started

SLEEP = "import time\ntime.sleep({seconds})\nprint('woke')\n"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_a_dead_zygote_is_replaced_and_the_next_run_works() -> None:
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        first = harness.sandbox._zygote
        assert first is not None
        os.kill(first.process.pid, signal.SIGKILL)
        assert wait_until(
            lambda: harness.sandbox._zygote is not first and harness.sandbox.health()["ready"],
            timeout=60,
        )
        result = harness.run("print('alive again')")
        assert (result.status, result.stdout) == ("ok", "alive again\n")
    finally:
        harness.close()


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_a_zygote_killed_mid_run_fails_that_run_clearly() -> None:
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        zygote = harness.sandbox._zygote
        assert zygote is not None
        running = submit(harness, MARK + SLEEP.format(seconds=30))
        wait_until_started(harness.sandbox)
        os.kill(zygote.process.pid, signal.SIGKILL)
        result = running.result(60)
        assert result.status == "killed"
        assert result.error.type == "SandboxError"
        assert harness.run("print(2)").stdout == "2\n"
    finally:
        harness.close()


def test_concurrent_runs_cannot_see_each_other(sandbox: SandboxHarness) -> None:
    code = """
import os, time
open('mine.txt', 'w').write(str(os.getpid()))
time.sleep(0.5)
print(os.getcwd(), sorted(os.listdir('.')))
try:
    os.listdir(os.path.dirname(os.getcwd()))
    print('listed the parent')
except PermissionError:
    print('parent hidden')
"""
    first, second = sandbox.run_many([code, code])
    assert first.status == second.status == "ok"
    first_cwd, second_cwd = first.stdout.split()[0], second.stdout.split()[0]
    assert first_cwd != second_cwd
    for result in (first, second):
        assert "['mine.txt']" in result.stdout
        assert result.stdout.endswith("parent hidden\n")


def test_nothing_outlives_its_run(sandbox: SandboxHarness) -> None:
    zygote = sandbox.sandbox._zygote
    assert zygote is not None
    spares = sandbox.sandbox.settings.spares
    assert wait_until(lambda: len(sandbox_children(zygote.process.pid)) == spares)
    before = set(sandbox_children(zygote.process.pid))  # the spares: the run takes one of them
    result = sandbox.run(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=False).start()\nprint('bye')\n"
    )
    assert result.stdout == "bye\n"
    # The spare that ran is gone, its sleeping thread with it (left alone, it would live 60 s);
    # new spares, forked to replace it, are all that remain.
    assert wait_until(lambda: not before <= set(sandbox_children(zygote.process.pid)))
    assert wait_until(lambda: len(sandbox_children(zygote.process.pid)) <= spares)


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_stopping_the_sandbox_stops_the_zygote_and_its_children() -> None:
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    zygote = harness.sandbox._zygote
    assert zygote is not None
    assert wait_until(lambda: len(child_pids(zygote.process.pid)) >= 1)  # the spare
    pids = [zygote.process.pid, *child_pids(zygote.process.pid)]
    scratch_root = harness.sandbox._scratch_root
    harness.close()
    assert wait_until(lambda: not any(_alive(pid) for pid in pids))
    assert scratch_root is not None and not scratch_root.exists()


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_healthz_answers_while_every_worker_is_busy() -> None:
    settings = make_settings(sandbox_enabled=True, workers=2, queue_size=4)
    with TestClient(create_app(settings)) as client:
        runs = [
            threading.Thread(
                target=client.post,
                args=("/api/run",),
                kwargs={"json": {"code": SLEEP.format(seconds=2)}},
            )
            for _ in range(3)
        ]
        for thread in runs:
            thread.start()

        # The third request reaches the queue when its thread gets to run: wait for that too.
        def two_busy_one_queued() -> bool:
            sandbox = client.get("/healthz").json()["sandbox"]
            return bool(sandbox["busy"] == 2 and sandbox["queued"] == 1)

        assert wait_until(two_busy_one_queued)
        health = client.get("/healthz").json()
        assert health["status"] == "ok"
        assert health["sandbox"]["busy"] == 2 and health["sandbox"]["queued"] == 1
        for thread in runs:
            thread.join()
        assert client.get("/healthz").json()["sandbox"]["busy"] == 0


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_a_full_queue_answers_503_with_retry_after() -> None:
    settings = make_settings(sandbox_enabled=True, workers=1, queue_size=0)
    with TestClient(create_app(settings)) as client:
        busy = threading.Thread(
            target=client.post,
            args=("/api/run",),
            kwargs={"json": {"code": SLEEP.format(seconds=2)}},
        )
        busy.start()
        assert wait_until(lambda: client.get("/healthz").json()["sandbox"]["busy"] == 1)
        answer = client.post("/api/run", json={"code": "print(1)"})
        assert answer.status_code == 503
        assert answer.headers["retry-after"] == "1"
        busy.join()
        assert client.post("/api/run", json={"code": "print(1)"}).json()["stdout"] == "1\n"


def test_secrets_in_the_server_environment_never_reach_a_snippet(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("GRADLAB_DATABASE_URL", "postgresql://user:hunter2@db/gradlab")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        result = harness.run("import os\nprint(dict(os.environ))\n")
        assert "hunter2" not in result.stdout
        zygote = harness.sandbox._zygote
        assert zygote is not None
        environ = Path(f"/proc/{zygote.process.pid}/environ").read_bytes()
        assert b"hunter2" not in environ
    finally:
        harness.close()


@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare"),
    reason="needs root and unshare(1) for a new pid namespace",
)
@pytest.mark.slow  # a sandbox of its own: several seconds
def test_the_sandbox_starts_when_the_server_is_pid_1() -> None:
    """As in a container: the server is pid 1, so the zygote's parent is pid 1 too."""
    script = (
        "import asyncio\n"
        "from tests.conftest import make_settings\n"
        "from app.sandbox.service import Sandbox\n"
        "async def main():\n"
        "    sandbox = Sandbox(make_settings(sandbox_enabled=True))\n"
        "    await sandbox.start()\n"
        "    result = await sandbox.run('import numpy, torch\\nprint(torch.ones(2).numpy())')\n"
        "    print(sandbox.health()['ready'], result.stdout.strip())\n"
        "    await sandbox.stop()\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip().splitlines()[-1] == "True [1. 1.]", done.stderr[-2000:]
