"""A simulated learner: what one learner of the load test sends, round after round, and what
it saw (each request's latency, errors, 503s with Retry-After, new connections).

A round is six requests on the lesson LESSON: the catalog, the lesson page, its progress, a run
of SNIPPET, a prediction on a random step and a myth's answer; then the learner pauses.
benchmarks/load_test.py runs many at once and reports; bench_endpoints.py and
tests/routes/test_query_budgets.py send the same requests one by one.

Usage (mostly a library; run alone it sends one learner's rounds to a running gradlab):
    python benchmarks/simulated_learner.py --url http://127.0.0.1:8000 [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import percentile

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
        # Of each request that opened a new connection, the time the connection took (ms).
        self.connects: dict[str, list[float]] = defaultdict(list)

    def record(
        self,
        name: str,
        started: float,
        answer: Answer | None,
        failure: str = "",
        connect_ms: float | None = None,
    ) -> None:
        self.latencies[name].append((time.perf_counter() - started) * 1000)
        if connect_ms is not None:
            self.connects[name].append(connect_ms)
        if answer is None:
            self.errors[name] += 1
            self.kinds[f"{name}: {failure}"] += 1
        elif answer.status_code == 503 and answer.retry_after:
            self.busy[name] += 1
        elif answer.status_code >= 400:
            self.errors[name] += 1
            self.kinds[f"{name}: HTTP {answer.status_code}"] += 1

    def table(self) -> list[str]:
        """Per endpoint: requests, p50 and p95 latency, errors and 503s; then the errors."""
        lines = [f"error: {kind} x{count}" for kind, count in sorted(self.kinds.items())]
        lines.append(
            f"{'endpoint':26} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7} {'503':>5}"
        )
        for name, latencies in self.latencies.items():
            lines.append(
                f"{name:26} {len(latencies):9d} {statistics.median(latencies):8.1f} "
                f"{percentile(latencies, 0.95):8.1f} {self.errors[name]:7d} {self.busy[name]:5d}"
            )
        return lines


ROUND_REQUESTS = 6  # the requests of one learner's round, below
FIRST = "GET / (a learner's first)"


def connection_timing() -> aiohttp.TraceConfig:
    """aiohttp hooks that put, in a request's `trace_request_ctx` dict, how long opening a new
    connection took ("connect_ms"), when the request had to open one: uvicorn closes a
    connection idle for 5 s, so a learner back from a longer pause connects anew."""

    async def start(_: object, context: SimpleNamespace, __: object) -> None:
        context.trace_request_ctx["connecting"] = time.perf_counter()

    async def end(_: object, context: SimpleNamespace, __: object) -> None:
        began = context.trace_request_ctx.pop("connecting", None)
        if began is not None:
            context.trace_request_ctx["connect_ms"] = (time.perf_counter() - began) * 1000

    trace = aiohttp.TraceConfig()
    trace.on_connection_create_start.append(start)
    trace.on_connection_create_end.append(end)
    return trace


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
        trace_configs=[connection_timing()],
    )
    async with session as client:

        async def call(name: str, method: str, path: str, **options: object) -> None:
            started = time.perf_counter()
            answer, failure = None, ""
            timing: dict[str, float] = {}
            try:
                async with client.request(
                    method,
                    path,
                    trace_request_ctx=timing,
                    **options,  # type: ignore[arg-type]
                ) as response:
                    await response.read()
                    answer = Answer(response.status, response.headers.get("retry-after"))
            except (aiohttp.ClientError, TimeoutError) as exc:
                failure = type(exc).__name__
            tally.record(name, started, answer, failure, timing.get("connect_ms"))

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


def on_loopback(url: str) -> bool:
    """Load is sent only to this machine."""
    return urlparse(url).hostname in ("127.0.0.1", "localhost", "::1")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="a running gradlab on loopback")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    if not on_loopback(args.url):
        parser.error("--url: load tests only target loopback addresses")
    lesson = httpx.get(f"{args.url}/api/lessons/{LESSON}").json()
    tally = Tally()
    deadline = time.monotonic() + args.seconds
    asyncio.run(learner(args.url, deadline, tally, lesson, (0.2, 1.0), 0.0))
    print("\n".join(tally.table()))


if __name__ == "__main__":
    main()
