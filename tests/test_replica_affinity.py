"""Fair share across replicas: behind nginx with the shipped balancing (deploy/nginx.conf), a
learner's requests go to one replica, so one learner's 20 runs at once get one learner's share
in all (runs in progress and waiting, GRADLAB_RUNS_PER_LEARNER + GRADLAB_QUEUED_PER_LEARNER),
not one share per replica. Two real instances on one PostgreSQL server, on loopback."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import FIXTURE_LESSONS
from tests.live import LiveServer
from tests.test_scale_out import Nginx

pytestmark = pytest.mark.slow
SHIPPED = Path(__file__).resolve().parents[1] / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SLEEPS = {"code": "import time\ntime.sleep(1.0)\nprint('done')"}
SHARE = 2 + 4  # GRADLAB_RUNS_PER_LEARNER and GRADLAB_QUEUED_PER_LEARNER, their defaults
TOKEN = "replica-affinity-test"  # noqa: S105 - GRADLAB_METRICS_TOKEN: what each replica ran, from /metrics


def shipped_balancing() -> tuple[str, str]:
    """What deploy/nginx.conf says about balancing: its `map` of the affinity key (in `http`)
    and its `hash` line (in the upstream), as they stand in the file."""
    text = SHIPPED.read_text()
    found = re.search(r"^\s*map \$cookie_gradlab_learner .*?^\s*\}", text, re.M | re.S)
    hashed = re.search(r"^\s*hash \S+ consistent;", text, re.M)
    assert found and hashed, "deploy/nginx.conf balances by the learner cookie"
    return found.group(0), hashed.group(0).strip()


@pytest.fixture(scope="module")
def replicas(postgres: Any) -> Iterator[tuple[Nginx, list[LiveServer]]]:
    if not Path(NGINX).exists():
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    database = postgres.new_database()
    servers = [
        LiveServer(FIXTURE_LESSONS, database_url=database, metrics_token=TOKEN) for _ in range(2)
    ]
    mapping, hashed = shipped_balancing()
    balancer = Nginx(servers, http=mapping, upstream=hashed)
    yield balancer, servers
    balancer.stop()
    for server in servers:
        server.stop()


def _metrics(server: LiveServer) -> str:
    answer = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200, answer.text
    return answer.text


def _runs_started(server: LiveServer) -> int:
    """Runs this instance let into its sandbox (every outcome but a refusal)."""
    text = _metrics(server)
    ran = ("ok", "error", "timeout", "memory", "killed")
    return sum(
        int(float(value))
        for status, value in re.findall(r'^gradlab_runs_total\{status="(\w+)"\} (\S+)$', text, re.M)
        if status in ran
    )


def test_one_learner_s_runs_get_one_share_across_two_replicas(replicas) -> None:  # type: ignore[no-untyped-def]
    balancer, servers = replicas
    with httpx.Client(base_url=balancer.url, timeout=30) as browser:
        assert browser.get("/playground").status_code == 200  # the learner's cookie
        cookie = browser.cookies["gradlab_learner"]
    before = [_runs_started(server) for server in servers]

    def run(_: int) -> int:
        with httpx.Client(
            base_url=balancer.url, timeout=30, cookies={"gradlab_learner": cookie}
        ) as learner:
            return learner.post("/api/run", json=SLEEPS).status_code

    with ThreadPoolExecutor(20) as pool:
        statuses = Counter(pool.map(run, range(20)))
    started = [_runs_started(server) - old for server, old in zip(servers, before, strict=True)]
    assert statuses[200] == SHARE, statuses  # one learner's share, not one per replica
    assert statuses[429] == 20 - SHARE, statuses
    assert sorted(started) == [0, SHARE], started  # all of them on one replica

    # Requests without a cookie are spread: fifty new visitors do not all land on one replica.
    before = [_pages_served(server) for server in servers]
    for _ in range(50):
        assert httpx.get(f"{balancer.url}/playground", timeout=30).status_code == 200
    served = [_pages_served(server) - old for server, old in zip(servers, before, strict=True)]
    assert sum(served) == 50 and min(served) > 0, served


def _pages_served(server: LiveServer) -> int:
    text = _metrics(server)
    found = re.search(
        r'^gradlab_http_request_duration_seconds_count\{[^}]*route="/playground"[^}]*\} (\S+)$',
        text,
        re.M,
    )
    return int(float(found.group(1))) if found else 0
