"""SIGTERM: stop accepting, let the run in flight finish, stop the zygote, leave nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from app.config.paths import PROJECT_ROOT
from app.processes import descendants
from tests.conftest import FIXTURE_LESSONS, wait_until
from tests.live import free_port

pytestmark = pytest.mark.slow
SLOW_RUN = "import time\ntime.sleep(2.0)\nprint('finished after SIGTERM')\n"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _mentions(server_pid: int) -> list[int]:
    """Processes started by gradlab for this server (the zygote gets the server's pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"app.sandbox.zygote" in b" ".join(command) and str(server_pid).encode() in command:
                found.append(int(entry.name))
    return found


def test_sigterm_finishes_the_run_in_flight_and_leaves_no_process() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS),
        "GRADLAB_DATABASE_URL": f"sqlite:///{tempfile.mkdtemp(prefix='gradlab-stop-')}/p.db",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=PROJECT_ROOT,
        env=env,
        start_new_session=True,  # its own process group, as a service manager would run it
    )
    try:
        assert (
            wait_until(lambda: _ready(url) or server.poll() is not None, timeout=120)
            and server.poll() is None
        ), "the server did not start"
        started = descendants(server.pid)
        assert _mentions(server.pid), "no zygote found for this server"

        answers: list[httpx.Response] = []
        run = threading.Thread(
            target=lambda: answers.append(
                httpx.post(f"{url}/api/run", json={"code": SLOW_RUN}, timeout=30)
            )
        )
        run.start()
        assert wait_until(lambda: _busy(url) == 1, timeout=10), "the run did not start"
        started |= descendants(server.pid)  # the child running the snippet

        os.killpg(server.pid, signal.SIGTERM)
        time.sleep(0.5)
        with pytest.raises(httpx.ConnectError):  # no longer accepting while the run finishes
            httpx.get(f"{url}/healthz", timeout=2)

        run.join(30)
        assert answers and answers[0].status_code == 200
        assert answers[0].json()["status"] == "ok"
        assert answers[0].json()["stdout"] == "finished after SIGTERM\n"
        # uvicorn shuts down cleanly, then re-raises the signal it caught, so its exit status
        # says "ended by SIGTERM", as service managers expect.
        assert server.wait(30) in (0, -signal.SIGTERM)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    assert wait_until(lambda: not [pid for pid in started if _alive(pid)], timeout=10), [
        pid for pid in started if _alive(pid)
    ]
    assert not _mentions(server.pid)


def _ready(url: str) -> bool:
    try:
        return bool(httpx.get(f"{url}/healthz", timeout=1).json()["sandbox"]["ready"])
    except (httpx.HTTPError, KeyError, ValueError):
        return False


def _busy(url: str) -> int:
    try:
        return int(httpx.get(f"{url}/healthz", timeout=1).json()["sandbox"]["busy"])
    except (httpx.HTTPError, KeyError, ValueError):
        return -1
