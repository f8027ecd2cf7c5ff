"""`gradlab serve --processes 2`: one port, two server processes, each with its own sandbox;
metrics that add up over both, a killed process replaced without a trace, and a clean stop."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from app.config.paths import PROJECT_ROOT
from app.lessons.loader import load_catalog
from app.processes import descendants
from app.web.process_metrics import PUBLISH_EVERY_S
from tests.conftest import FIXTURE_LESSONS, wait_until
from tests.live import free_port
from tests.web.test_clean_stop import _alive, _ready
from tests.web.test_metrics_and_logs import _samples

pytestmark = pytest.mark.slow
TOKEN = secrets.token_urlsafe(24)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPARES = 2
WORKERS = 3


def _workers(parent: int) -> list[int]:
    """The server processes (uvicorn's spawned workers), not multiprocessing's tracker."""
    found = []
    for pid in descendants(parent):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command and _alive(pid):
            found.append(pid)
    return found


def _scrape(url: str) -> dict[str, float]:
    return _samples(httpx.get(f"{url}/metrics", headers=AUTH, timeout=5).text)


def test_two_processes_share_a_port_add_up_their_metrics_and_stop_clean(
    tmp_path: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    shared = tmp_path / "metrics"
    env = {
        **os.environ,
        "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS),
        "GRADLAB_DATABASE_URL": f"sqlite:///{tempfile.mkdtemp(prefix='gradlab-procs-')}/p.db",
        "GRADLAB_METRICS_TOKEN": TOKEN,
        "GRADLAB_SPARES": str(SPARES),
        "GRADLAB_WORKERS": str(WORKERS),
        "PROMETHEUS_MULTIPROC_DIR": str(shared),
    }
    shared.mkdir()
    (shared / "counter_1.db").write_bytes(b"left by an earlier run")
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--processes", "2"],
        cwd=PROJECT_ROOT,
        env=env,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    started: set[int] = set()
    try:
        assert wait_until(lambda: _ready(url) and len(_workers(server.pid)) == 2, 120), (
            "the server did not start"
        )
        both_ready = wait_until(
            lambda: (
                _scrape(url).get("gradlab_sandbox_workers") == 2 * WORKERS
                and _scrape(url).get("gradlab_sandbox_ready") == 1
            ),
            60,
        )
        assert both_ready, _scrape(url)
        started = descendants(server.pid)

        # Runs spread over both processes; whichever answers a scrape counts them all.
        runs = 12
        with httpx.Client(base_url=url, timeout=30) as client:
            for index in range(runs):
                answer = client.post("/api/run", json={"code": f"print({index})"})
                assert answer.json()["stdout"] == f"{index}\n"
        for _ in range(6):
            seen = _scrape(url)
            assert seen['gradlab_runs_total{status="ok"}'] == runs
            assert seen["gradlab_run_duration_seconds_count"] == runs
            assert seen["gradlab_server_processes"] == 2
            assert seen["gradlab_sandbox_workers"] == 2 * WORKERS
            assert seen["gradlab_sandbox_ready"] == 1
            assert seen["gradlab_database_ready"] == 1  # the lowest of the processes'
            assert seen['gradlab_sandbox_isolation_layer{layer="seccomp"}'] == 1
        assert wait_until(
            lambda: _scrape(url).get("gradlab_sandbox_spare_children") == 2 * SPARES, 10
        ), _scrape(url)

        _kill_one_and_see_it_replaced(server.pid, url, shared, runs)
        started |= descendants(server.pid)
        _known_code_is_counted_over_both(url)

        os.kill(server.pid, signal.SIGTERM)  # the parent only, as `kill <pid>` would
        assert server.wait(60) in (0, -signal.SIGTERM)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        assert server.stderr is not None
        log = server.stderr.read().decode()
    assert wait_until(lambda: not [pid for pid in started if _alive(pid)], 15), [
        pid for pid in started if _alive(pid)
    ]
    # A quiet start: the one "ready" line comes from the parent, no uvicorn chatter at INFO.
    assert log.count(f"ready: open {url} (2 server processes)") == 1, log
    assert "Started parent process" not in log, log


def _known_code_is_counted_over_both(url: str) -> None:
    """A lesson's own code, run six times: each process runs it once at most (a miss), then
    answers it from that run (a hit); the hits, misses and answers kept add up over both."""
    lesson = load_catalog(FIXTURE_LESSONS).get("first-steps")
    assert lesson is not None
    code = next(step.snippet.code for step in lesson.steps if step.snippet is not None)
    with httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(6):
            assert client.post("/api/run", json={"code": code}).json()["status"] == "ok"
    seen = _scrape(url)
    misses = seen['gradlab_known_runs_total{outcome="miss"}']
    assert 1 <= misses <= 2
    assert seen['gradlab_known_runs_total{outcome="hit"}'] == 6 - misses
    assert seen['gradlab_known_runs_kept{unit="entries"}'] == misses


def _kill_one_and_see_it_replaced(parent: int, url: str, shared: Path, runs: int) -> None:
    """A process killed outright: uvicorn starts another; the dead one's zygote and spares go
    with it, its gauges are forgotten, its counts stay."""
    workers = _workers(parent)
    victim = workers[0]
    victims = descendants(victim) | {victim}
    os.kill(victim, signal.SIGKILL)
    assert wait_until(lambda: not [pid for pid in victims if _alive(pid)], 30), [
        pid for pid in victims if _alive(pid)
    ]
    assert wait_until(lambda: victim not in _workers(parent) and len(_workers(parent)) == 2, 60)
    (replacement,) = set(_workers(parent)) - set(workers)
    assert wait_until(lambda: (shared / f"gauge_livesum_{replacement}.db").exists(), 120)
    time.sleep(2 * PUBLISH_EVERY_S)  # it has published (its file exists before it does)
    assert wait_until(lambda: _scrape(url).get("gradlab_server_processes") == 2, 10), sorted(
        path.name for path in shared.iterdir()
    )
    assert not list(shared.glob(f"gauge_live*_{victim}.db"))
    assert wait_until(lambda: _scrape(url).get("gradlab_sandbox_ready") == 1, 120)
    assert _scrape(url)["gradlab_server_processes"] == 2
    assert _scrape(url)["gradlab_sandbox_workers"] == 2 * WORKERS
    assert _scrape(url)['gradlab_runs_total{status="ok"}'] == runs


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--processes", "2", "--reload"], "--reload serves one process"),
        (["--processes", "0"], "processes"),
    ],
)
def test_what_several_processes_cannot_do_is_refused_at_once(
    arguments: list[str], said: str
) -> None:
    finished = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(free_port()), *arguments],
        cwd=PROJECT_ROOT,
        env={**os.environ, "GRADLAB_LESSONS_DIR": str(FIXTURE_LESSONS)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2
    assert said in finished.stderr
