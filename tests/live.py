"""A real gradlab server (`gradlab serve`) in a subprocess, on a free loopback port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.config.paths import PROJECT_ROOT


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LiveServer:
    """`gradlab serve` with the given lessons, database and extra GRADLAB_* settings."""

    def __init__(
        self,
        lessons: Path,
        database_url: str | None = None,
        serve_args: tuple[str, ...] = (),
        **settings: str,
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gradlab-live-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = database_url or f"sqlite:///{self.folder / 'live.db'}"
        env = {
            **os.environ,
            "GRADLAB_LESSONS_DIR": str(lessons),
            "GRADLAB_DATABASE_URL": self.database_url,
        }
        env.update({f"GRADLAB_{name.upper()}": value for name, value in settings.items()})
        command = [sys.executable, "-m", "app.cli", "serve", "--port", str(self.port)]
        self.process = subprocess.Popen(
            [*command, "--log-level", "warning", *serve_args], cwd=PROJECT_ROOT, env=env
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).json()["sandbox"]["ready"]:
                    return
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            if self.process.poll() is not None:
                raise RuntimeError("the server exited during start-up")
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("the server did not become ready")

    def kill(self) -> None:
        """Die at once, as a crashed instance would."""
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def create_class(server: LiveServer, name: str) -> tuple[str, str]:
    """A class made the way a teacher makes one (`gradlab class create`) on the server's
    database: (its join link, its instructor link), under the server's address."""
    env = {**os.environ, "GRADLAB_DATABASE_URL": server.database_url}
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "class", "create", name],
        env={**env, "GRADLAB_PUBLIC_URL": server.url},
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    join = next(line.split(": ", 1)[1] for line in out if line.startswith("join: "))
    teach = next(line.split(": ", 1)[1] for line in out if line.startswith("instructor: "))
    return join, teach
