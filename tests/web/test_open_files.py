"""`gradlab serve` started under a low soft limit of open files raises it to the hard limit,
says so, and holds more connections than it was started with; under a hard limit too low for
a class it warns, naming what to raise."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.config.paths import PROJECT_ROOT
from tests.conftest import FIXTURE_LESSONS, wait_until
from tests.live import free_port

pytestmark = pytest.mark.slow
STARTED_WITH = 256
SERVE = (sys.executable, "-m", "app.cli", "serve", "--port")


def _open_files(pid: int) -> tuple[int, int]:
    """(soft, hard) limit of open files of a running process, as the kernel reports it."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no 'Max open files' line")


@contextmanager
def _server(soft: int, hard: int) -> Iterator[tuple[subprocess.Popen[bytes], str, Path]]:
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="gradlab-nofile-"))
    log = folder / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            # util-linux's prlimit sets the limits, then runs the server under them.
            ["prlimit", f"--nofile={soft}:{hard}", "--", *SERVE, str(port)],
            cwd=PROJECT_ROOT,
            env={
                **os.environ,
                "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS),
                "GRADLAB_DATABASE_URL": f"sqlite:///{folder / 'p.db'}",
                "GRADLAB_SANDBOX_ENABLED": "false",
            },
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_until(lambda: _answers(url) or server.poll() is not None, timeout=120)
        assert server.poll() is None, log.read_text()
        yield server, url, log
    finally:
        server.terminate()
        server.wait(30)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _hard_limit() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 1 << 20 if hard == resource.RLIM_INFINITY else hard


def test_serve_raises_its_soft_limit_to_the_hard_one_and_holds_more_connections() -> None:
    hard = _hard_limit()
    if hard < 2 * STARTED_WITH:
        pytest.skip(f"this machine's hard limit of open files is {hard}")
    with _server(STARTED_WITH, hard) as (server, url, log):
        assert _open_files(server.pid) == (hard, hard)  # prlimit execs: the pid is the server's
        said = log.read_text()
        assert f"open files: limit raised from {STARTED_WITH} to {hard}" in said
        # More idle connections at once than the limit it was started with, each served.
        port = int(url.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(400)]
        try:
            for connection in held:
                connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: gradlab\r\n\r\n")
            for connection in held:
                assert connection.recv(64).startswith(b"HTTP/1.1 200"), "a connection refused"
        finally:
            for connection in held:
                connection.close()
        assert _answers(url)


def test_serve_under_a_hard_limit_too_low_for_a_class_warns_naming_what_to_raise() -> None:
    with _server(STARTED_WITH, 512) as (server, url, log):
        assert _open_files(server.pid) == (512, 512)
        said = log.read_text()
        assert "open files: limit raised from 256 to 512 (the hard limit)" in said
        assert "open files: the hard limit is 512" in said
        assert "LimitNOFILE" in said
        assert "--ulimit nofile" in said
        assert _answers(url)
