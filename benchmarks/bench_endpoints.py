"""The server's CPU per request, endpoint by endpoint, one request at a time.

Starts `gradlab serve` (as bench_sandbox.py does) and sends, for each request of a load-test
round (benchmarks/simulated_learner.py: catalog, lesson page, progress, run, prediction, myth)
and for `/healthz`, a warm-up and then `--requests` requests in a row, reading the server
process's CPU time (utime + stime, /proc) before and after. The sandbox's own processes are not
counted: a run's zygote and child CPU are in bench_sandbox.py's "CPU per run" and
bench_child_cpu.py.

With `--against REV` it also serves REV, checked out into a temporary git worktree
(benchmarks/revision.py), and measures the two in turn, A B A B ... (`--repeat` passes each),
so that both meet the same load from the rest of the host; it prints each side's range and the
ratio now / REV of their medians. Take this step before closing a change to a request's path.

Usage: python benchmarks/bench_endpoints.py [--requests 300] [--against REV [--repeat 3]]
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

from benchmarks.bench_sandbox import (
    ROOT,
    TICK_MS,
    cpu_ticks,
    free_port,
    machine_line,
    start_server,
)
from benchmarks.revision import add_against_arguments, checked_against, checked_out, compared
from benchmarks.simulated_learner import LESSON, SNIPPET

WARM_UP = 20
ROUND_ROW = "a load-test round (all but /healthz)"


def process_cpu_ms(pid: int) -> float:
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


def measure(count: int, root: Path = ROOT) -> dict[str, tuple[float, float]]:
    """Server CPU and wall time per request (ms), endpoint by endpoint, of the gradlab of the
    tree at `root`, served afresh."""
    port = free_port()
    server = start_server(port, root=root)
    rows = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for name, send in requests(client).items():
                for _ in range(WARM_UP):
                    send().raise_for_status()
                before, started = process_cpu_ms(server.pid), time.perf_counter()
                for _ in range(count):
                    send().raise_for_status()
                wall = (time.perf_counter() - started) * 1000 / count
                rows[name] = ((process_cpu_ms(server.pid) - before) / count, wall)
    finally:
        server.terminate()
        server.wait(10)
    rows[ROUND_ROW] = (sum(cpu for name, (cpu, _) in rows.items() if name != "GET /healthz"), 0.0)
    return rows


def print_one(rows: dict[str, tuple[float, float]], count: int) -> None:
    print(f"{'request (' + str(count) + ' in a row)':40} {'server CPU ms':>14} {'wall ms':>8}")
    for name, (cpu, wall) in rows.items():
        print(f"  {name:38} {cpu:14.2f}" + (f" {wall:8.2f}" if name != ROUND_ROW else ""))


def against(rev: str, count: int, repeat: int) -> None:
    """This tree and REV's, served in turn (A B A B ...), each side's server CPU per request
    and the ratio now / REV of their medians."""
    with checked_out(rev) as folder:
        passes = []
        for number in range(repeat):
            for side, root in (("now", ROOT), (rev, folder)):
                figures = {name: cpu for name, (cpu, _) in measure(count, root).items()}
                passes.append((side, figures))
                line = f"pass {number + 1}/{repeat} {side}: round {figures[ROUND_ROW]:.2f} ms"
                print(line, flush=True)
    print(machine_line())
    print(f"server CPU ms per request, {count} in a row, {repeat} passes a side, interleaved")
    print(f"  {'request':38} {'now':>15} {rev[:15]:>15} {'ratio':>7}")
    for name, figures in compared(passes, "now").items():
        print(figures.line(name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300, help="of each kind")
    add_against_arguments(parser, repeat=3)
    args = parser.parse_args()
    if args.against is None:
        rows = measure(args.requests)
        print(machine_line())
        print_one(rows, args.requests)
        return
    against(checked_against(parser, args), args.requests, args.repeat)


if __name__ == "__main__":
    main()
