"""A bounded load test on loopback: simulated learners browse, run snippets and answer.

Starts `gradlab serve` on a free loopback port (or uses --url, which must be a loopback
address), runs --learners concurrent learners for --seconds, then prints per endpoint the
request count, p50/p95 latency and errors, the overall throughput and error rate, and the peak
memory (PSS) of the server, its zygote and their children. Under overload the only acceptable
failure is 503 with Retry-After; anything else counts as an error.

After the CPU per request it prints what a round (the six requests of one learner) costs and
how many rounds a second the machine's cores could serve at that cost, beside how many the
learners would ask for if every answer were instant: when they ask for more than the cores
serve, the test is a closed loop at saturation, and waiting is conserved, only moved between
requests (docs/performance.md).

Usage: python benchmarks/load_test.py [--learners 50] [--seconds 60] [--pause 0.2 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.processes import descendants
from benchmarks.bench_sandbox import (
    cold_runs,
    cpu_ms,
    free_port,
    own_usage,
    percentile,
    pss_kib,
    start_server,
)

LESSON = "what-is-grad"
SNIPPET = (
    "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
    "(x * x).sum().backward()\nprint(x.grad)\n"
)


@dataclass(frozen=True)
class Answer:
    status_code: int
    retry_after: str | None


class Tally:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.busy: dict[str, int] = defaultdict(int)
        # What each error was: an HTTP status, or the client's exception (a timeout, a reset).
        self.kinds: dict[str, int] = defaultdict(int)

    def record(self, name: str, started: float, answer: Answer | None, failure: str = "") -> None:
        self.latencies[name].append((time.perf_counter() - started) * 1000)
        if answer is None:
            self.errors[name] += 1
            self.kinds[f"{name}: {failure}"] += 1
        elif answer.status_code == 503 and answer.retry_after:
            self.busy[name] += 1
        elif answer.status_code >= 400:
            self.errors[name] += 1
            self.kinds[f"{name}: HTTP {answer.status_code}"] += 1


ROUND = 6  # the requests of one learner's round, below
FIRST = "GET / (a learner's first)"


@dataclass(frozen=True)
class Capacity:
    """What one round cost in CPU, and the rounds a second the cores serve at that cost."""

    round_ms: float  # CPU of a round in the processes measured, the load generator's included
    served: float  # rounds/s that all the cores could serve at that cost
    asked: float  # rounds/s the learners would send if every answer took no time


def capacity(
    cpu_ms: float, requests: int, cores: int, learners: int, pause: tuple[float, float]
) -> Capacity:
    """From the CPU all processes spent (ms) over `requests` requests, on `cores` cores, with
    `learners` pausing uniformly within `pause` seconds after each round."""
    round_ms = cpu_ms / max(requests, 1) * ROUND
    return Capacity(
        round_ms=round_ms,
        served=cores * 1000 / round_ms if round_ms else float("inf"),
        asked=learners / (sum(pause) / 2),
    )


async def learner(
    base: str,
    deadline: float,
    tally: Tally,
    lesson: dict,  # type: ignore[type-arg]
    pause: tuple[float, float],
    arrive: float,
) -> None:
    steps = [n for n, step in enumerate(lesson["steps"], 1) if step.get("prediction")]
    # aiohttp, not httpx: httpx cost 2 - 2.8 ms of CPU a request on the cores the server uses,
    # and held the first request after each pause for up to a second and more (its p95 was
    # 1.2 - 2.4 s where the server's own histogram said <= 0.25 s; docs/performance.md).
    session = aiohttp.ClientSession(
        base_url=base,
        cookie_jar=aiohttp.CookieJar(unsafe=True),  # keep the learner's cookie on 127.0.0.1
        timeout=aiohttp.ClientTimeout(total=30),
    )
    async with session as client:

        async def call(name: str, method: str, path: str, **options: object) -> None:
            started = time.perf_counter()
            answer, failure = None, ""
            try:
                async with client.request(method, path, **options) as response:  # type: ignore[arg-type]
                    await response.read()
                    answer = Answer(response.status, response.headers.get("retry-after"))
            except (aiohttp.ClientError, TimeoutError) as exc:
                failure = type(exc).__name__
            tally.record(name, started, answer, failure)

        async def think(seconds: float) -> None:  # reading and thinking, until the end at most
            await asyncio.sleep(max(0.0, min(seconds, deadline - time.monotonic())))

        # Learners arrive over the first `arrive` seconds, not all in the same millisecond.
        await think(random.uniform(0, arrive))
        # A learner's very first request (a new connection, no cookie yet) is counted on a line
        # of its own. When 100 learners arrive within a second, each starting a round at once,
        # those first requests meet the arrival burst: in a 30 s run they were 5 % of the
        # catalog's requests and set its p95. Spread over 10 s (--arrive 10) they are as quick
        # as the others (docs/performance.md).
        catalog = FIRST
        while time.monotonic() < deadline:
            step = random.choice(steps)
            choice = random.choice(lesson["steps"][step - 1]["prediction"]["choices"])
            await call(catalog, "GET", "/")
            catalog = "GET /"
            await call("GET /lessons/{slug}", "GET", f"/lessons/{LESSON}")
            await call("GET progress", "GET", f"/api/lessons/{LESSON}/progress")
            await call(
                "POST /api/run",
                "POST",
                "/api/run",
                json={"code": SNIPPET, "lesson": LESSON, "step": step},
            )
            await call(
                "POST prediction",
                "POST",
                f"/api/lessons/{LESSON}/steps/{step}/prediction",
                json={"choice": choice, "confidence": "fairly_sure"},
            )
            await call(
                "POST myth",
                "POST",
                f"/api/lessons/{LESSON}/myths/1/answer",
                json={"answer": random.choice(["yes", "no"])},
            )
            await think(random.uniform(*pause))


def watch_memory(pid: int, stop: threading.Event, peak: list[int]) -> None:
    while not stop.is_set():
        total = 0
        for member in {pid} | descendants(pid):
            with contextlib.suppress(OSError):
                total += pss_kib(member)
        peak[0] = max(peak[0], total)
        stop.wait(1.0)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--pause",
        type=float,
        nargs=2,
        default=(0.2, 1.0),
        metavar=("MIN", "MAX"),
        help="seconds a learner pauses after each round, uniformly between MIN and MAX",
    )
    parser.add_argument(
        "--arrive",
        type=float,
        metavar="SECONDS",
        help="learners arrive uniformly over the first SECONDS (default: the longest pause)",
    )
    parser.add_argument("--url", help="an already running gradlab on loopback")
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes (gradlab serve --processes)"
    )
    args = parser.parse_args()
    pause = (min(args.pause), max(args.pause))
    if pause[0] < 0 or pause[1] <= 0:
        parser.error("--pause takes two seconds, MIN >= 0 and MAX > 0")
    if args.arrive is not None and not 0 <= args.arrive < args.seconds:
        parser.error("--arrive takes seconds >= 0 and shorter than --seconds")
    arrive = pause[1] if args.arrive is None else args.arrive
    # How loaded the machine is: a cold `python snippet.py` took 1.39 - 1.49 s on the idle 2-core
    # box of docs/performance.md's figures.
    cold = statistics.median(cold_runs(3))
    print(
        f"cold python snippet.py p50: {cold / 1000:.2f} s (1.39 - 1.49 s on an idle 2-core machine)"
    )
    server = None
    base = args.url
    if base is None:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(port, processes=args.processes)
    elif urlparse(base).hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("load tests only target loopback addresses")
    peak = [0]
    stop = threading.Event()
    if server is not None:
        threading.Thread(target=watch_memory, args=(server.pid, stop, peak), daemon=True).start()
    try:
        lesson = httpx.get(f"{base}/api/lessons/{LESSON}").json()
        tally = Tally()
        server_before = cpu_ms(server.pid) if server is not None else None
        own_before = own_usage()[0]
        started = time.monotonic()
        deadline = started + args.seconds
        await asyncio.gather(
            *(learner(base, deadline, tally, lesson, pause, arrive) for _ in range(args.learners))
        )
        elapsed = time.monotonic() - started
        own = own_usage()[0] - own_before
        server_cpu = (
            [b - a for a, b in zip(server_before, cpu_ms(server.pid), strict=True)]
            if server is not None and server_before is not None
            else None
        )
    finally:
        stop.set()
        if server is not None:
            server.terminate()
            server.wait(10)
    total = sum(len(v) for v in tally.latencies.values())
    errors = sum(tally.errors.values())
    busy = sum(tally.busy.values())
    print(
        f"{args.learners} learners arriving over {arrive:g} s, "
        f"pausing {pause[0]:g} - {pause[1]:g} s, "
        f"{args.processes} server process(es), for {elapsed:.0f} s: "
        f"{total} requests, "
        f"{total / elapsed:.1f} requests/s, error rate {errors / max(total, 1):.2%}, "
        f"503 with Retry-After {busy / max(total, 1):.2%}"
    )
    # Where the machine's CPU went: the learners here are simulated on the same cores as the
    # server, which real learners' browsers are not.
    cores = (os.cpu_count() or 1) * elapsed * 1000
    parts = [("load generator (this script)", own)]
    if server_cpu is not None:
        parts = [
            ("server", server_cpu[0]),
            ("zygote", server_cpu[1]),
            ("sandboxed runs", server_cpu[2]),
            *parts,
        ]
    print(
        "CPU per request: "
        + ", ".join(f"{name} {ms / max(total, 1):.2f} ms" for name, ms in parts)
        + f"; {sum(ms for _, ms in parts) / cores:.0%} of the machine's {os.cpu_count()} cores"
    )
    if server_cpu is not None:
        cores_n = os.cpu_count() or 1
        cost = capacity(sum(ms for _, ms in parts), total, cores_n, args.learners, pause)
        saturated = " (saturated: waiting only moves between requests)"
        print(
            f"a round of {ROUND} requests cost {cost.round_ms:.1f} ms of CPU: "
            f"the {cores_n} cores serve at most {cost.served:.0f} rounds/s at that cost; "
            f"{args.learners} learners pausing {pause[0]:g} - {pause[1]:g} s would ask for "
            f"{cost.asked:.0f} rounds/s if every answer were instant"
            + (saturated if cost.asked > cost.served else "")
        )
    for kind, count in sorted(tally.kinds.items()):
        print(f"error: {kind} x{count}")
    if peak[0]:
        print(f"peak memory (PSS) of server + zygote + children: {peak[0] / 1024:.0f} MiB")
    # The catalog's p95, and how loaded the machine is beside it (a cold python + torch run).
    cold = statistics.median(cold_runs(3))
    catalog = tally.latencies.get("GET /", [])
    if catalog:
        p95 = percentile(catalog, 0.95)
        print(f"catalog GET / p95: {p95:.1f} ms (cold python+torch run: {cold:.0f} ms)")
    print(f"\n{'endpoint':26} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7} {'503':>5}")
    for name, latencies in tally.latencies.items():
        print(
            f"{name:26} {len(latencies):9d} {statistics.median(latencies):8.1f} "
            f"{percentile(latencies, 0.95):8.1f} {tally.errors[name]:7d} {tally.busy[name]:5d}"
        )


if __name__ == "__main__":
    asyncio.run(main())
