"""The server's CPU per request, endpoint by endpoint, one request at a time.

Starts `gradlab serve` (as bench_sandbox.py does) and sends, for each request of a load-test
round (benchmarks/load_test.py: catalog, lesson page, progress, run, prediction, myth) and for
`/healthz`, a warm-up and then `--requests` requests in a row, reading the server process's CPU
time (utime + stime, /proc) before and after. The sandbox's own processes are not counted: a
run's zygote and child CPU are in bench_sandbox.py's "CPU per run" and bench_child_cpu.py.

Usage: python benchmarks/bench_endpoints.py [--requests 300]
Numbers, not assertions: compare them with docs/performance.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

# Run as a script (`python benchmarks/bench_endpoints.py`): the project root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import TICK_MS, cpu_ticks, free_port, machine_line, start_server
from benchmarks.load_test import LESSON, SNIPPET

WARM_UP = 20


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) of one process so far, in ms."""
    return sum(cpu_ticks(pid)[:2]) * TICK_MS


def requests(client: httpx.Client) -> dict[str, Callable[[], httpx.Response]]:
    lesson = client.get(f"/api/lessons/{LESSON}").json()
    asking = [n for n, step in enumerate(lesson["steps"], 1) if step.get("prediction")]

    def prediction() -> httpx.Response:
        step = random.choice(asking)
        choice = random.choice(lesson["steps"][step - 1]["prediction"]["choices"])
        return client.post(
            f"/api/lessons/{LESSON}/steps/{step}/prediction",
            json={"choice": choice, "confidence": "fairly_sure"},
        )

    return {
        "GET / (catalog)": lambda: client.get("/"),
        "GET /lessons/{slug}": lambda: client.get(f"/lessons/{LESSON}"),
        "GET progress": lambda: client.get(f"/api/lessons/{LESSON}/progress"),
        "POST /api/run": lambda: client.post(
            "/api/run", json={"code": SNIPPET, "lesson": LESSON, "step": asking[0]}
        ),
        "POST prediction": prediction,
        "POST myth": lambda: client.post(
            f"/api/lessons/{LESSON}/myths/1/answer", json={"answer": random.choice(["yes", "no"])}
        ),
        "GET /healthz": lambda: client.get("/healthz"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="of each kind")
    args = parser.parse_args()

    port = free_port()
    server = start_server(port)
    rows = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for name, send in requests(client).items():
                for _ in range(WARM_UP):
                    send().raise_for_status()
                before, started = cpu_ms(server.pid), time.perf_counter()
                for _ in range(args.requests):
                    send().raise_for_status()
                wall = (time.perf_counter() - started) * 1000 / args.requests
                rows.append((name, (cpu_ms(server.pid) - before) / args.requests, wall))
    finally:
        server.terminate()
        server.wait(10)

    print(machine_line())
    print(
        f"{'request (' + str(args.requests) + ' in a row)':40} {'server CPU ms':>14} {'wall ms':>8}"
    )
    for name, cpu, wall in rows:
        print(f"  {name:38} {cpu:14.2f} {wall:8.2f}")
    round_trip = sum(cpu for name, cpu, _ in rows if name != "GET /healthz")
    print(f"  {'a load-test round (all but /healthz)':38} {round_trip:14.2f}")


if __name__ == "__main__":
    main()
