"""Two gradlab instances behind nginx, sharing one PostgreSQL server, on loopback."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import FIXTURE_LESSONS
from tests.live import LiveServer, free_port

pytestmark = pytest.mark.slow
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


class Nginx:
    """nginx as a load balancer in front of `upstreams`, on a free loopback port."""

    def __init__(self, upstreams: list[LiveServer], http: str = "", upstream: str = "") -> None:
        """`http` and `upstream`: more of nginx's configuration in those blocks (the balancing
        that deploy/nginx.conf ships, for tests/test_replica_affinity.py)."""
        self.folder = Path(tempfile.mkdtemp(prefix="gradlab-nginx-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        servers = "\n".join(
            f"server 127.0.0.1:{u.port} max_fails=1 fail_timeout=5s;" for u in upstreams
        )
        (self.folder / "nginx.conf").write_text(
            textwrap.dedent(f"""
            worker_processes 1;
            pid {self.folder}/nginx.pid;
            error_log {self.folder}/error.log;
            events {{ worker_connections 256; }}
            http {{
              access_log off;
              client_body_temp_path {self.folder}/body;
              proxy_temp_path {self.folder}/proxy;
              {http}
              upstream gradlab {{ {upstream} {servers} }}
              server {{
                listen 127.0.0.1:{self.port};
                location / {{
                  proxy_pass http://gradlab;
                  proxy_next_upstream error timeout http_502 http_503 non_idempotent;
                  proxy_connect_timeout 2s;
                }}
              }}
            }}
        """)
        )
        self.process = subprocess.Popen(
            [
                NGINX,
                "-p",
                str(self.folder),
                "-c",
                str(self.folder / "nginx.conf"),
                "-g",
                "daemon off;",
            ]
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{self.url}/healthz", timeout=1)
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("nginx did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(postgres: Any) -> Iterator[tuple[Nginx, LiveServer, LiveServer]]:
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    database = postgres.new_database()
    first = LiveServer(FIXTURE_LESSONS, database_url=database, workers="1")
    second = LiveServer(FIXTURE_LESSONS, database_url=database, workers="1")
    balancer = Nginx([first, second])
    yield balancer, first, second
    balancer.stop()
    first.stop()
    second.stop()


LESSON = "/api/lessons/first-steps"


def test_progress_written_through_one_instance_is_read_through_the_other(cluster) -> None:  # type: ignore[no-untyped-def]
    _, first, second = cluster
    with httpx.Client(base_url=first.url) as one:
        one.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
        one.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
        cookie = one.cookies["gradlab_learner"]
    with httpx.Client(base_url=second.url, cookies={"gradlab_learner": cookie}) as other:
        progress = other.get(f"{LESSON}/progress").json()
    assert progress["steps"]["1"]["answer"]["sent"] == {"choice": "None"}
    assert progress["myths"]["1"]["correct"] is True


def test_killing_an_instance_mid_session_loses_nothing(cluster) -> None:  # type: ignore[no-untyped-def]
    # Runs last in this module: it kills the first instance for good.
    balancer, first, _ = cluster
    acknowledged: list[str] = []
    with httpx.Client(base_url=balancer.url, timeout=10) as learner:
        for number in range(40):
            if number == 15:
                first.kill()  # a crash in the middle of the session
            code = f"print({number})"
            answer = learner.put(f"{LESSON}/steps/1/code", json={"code": code})
            if answer.status_code == 204:
                acknowledged.append(code)
            answer = learner.post(
                f"{LESSON}/myths/1/answer", json={"answer": "no" if number % 2 else "yes"}
            )
            assert answer.status_code in (200, 502, 503), answer.text
        progress = learner.get(f"{LESSON}/progress").json()
        runs = [learner.post("/api/run", json={"code": "print(6 * 7)"}).json() for _ in range(3)]
    assert len(acknowledged) >= 38  # at most the request in flight at the crash is lost
    assert progress["steps"]["1"]["code"] == acknowledged[-1]  # the last acknowledged write
    assert progress["myths"]["1"]["answer"] == "no"
    assert all(run["stdout"] == "42\n" for run in runs)
