"""One learner must not stall the class: a quiet learner alone, then beside a busy one.

Starts `gradlab serve` on a free loopback port with the default limits. A quiet learner runs a
small backward snippet every 0.2 s: first alone for --seconds, then for --seconds more while a
busy learner (another cookie) keeps 16 runs of a 0.8 s busy loop asked for at once, as a script
or a held-down button would: each of its 16 senders asks again as soon as it has an answer (after
a 429, after --busy-retry seconds, not the Retry-After a page would wait). Prints the quiet
learner's p50/p95 alone and beside the busy one, their ratio (target: at most 3), the refusals
of each learner, and the busy learner's share of the sandbox's worker time.

Usage: python benchmarks/fairness.py [--seconds 20] [--busy 16] [--busy-retry 0.25]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import SNIPPET, free_port, machine_line, percentile, start_server

LESSON = "what-is-grad"
BUSY_LOOP = (
    "import time\nend = time.perf_counter() + 0.8\nwhile time.perf_counter() < end:\n    pass\n"
)
QUIET_EVERY_S = 0.2


@dataclass
class Learner:
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    run_ms: float = 0.0  # the sandbox's own duration of each run that ran, summed

    def refused(self) -> int:
        return self.statuses[429] + self.statuses[503]


async def session(base: str) -> aiohttp.ClientSession:
    """A learner of its own: a cookie from its first page."""
    client = aiohttp.ClientSession(
        base_url=base,
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        timeout=aiohttp.ClientTimeout(total=60),
    )
    async with client.get(f"/api/lessons/{LESSON}") as answer:
        answer.raise_for_status()
    return client


async def run(client: aiohttp.ClientSession, code: str, learner: Learner) -> int:
    started = time.perf_counter()
    async with client.post("/api/run", json={"code": code}) as answer:
        body = await answer.json() if answer.status == 200 else None
        learner.statuses[answer.status] += 1
        if body is not None:
            learner.latencies_ms.append((time.perf_counter() - started) * 1000)
            learner.run_ms += float(body["duration_ms"])
        return answer.status


async def quiet(client: aiohttp.ClientSession, seconds: float) -> Learner:
    learner = Learner()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        began = time.monotonic()
        await run(client, SNIPPET, learner)
        await asyncio.sleep(max(0.0, QUIET_EVERY_S - (time.monotonic() - began)))
    return learner


async def busy(
    client: aiohttp.ClientSession, senders: int, retry_s: float, stop: asyncio.Event
) -> Learner:
    learner = Learner()

    async def sender() -> None:
        while not stop.is_set():
            if await run(client, BUSY_LOOP, learner) != 200:
                await asyncio.sleep(retry_s)

    await asyncio.gather(*(sender() for _ in range(senders)))
    return learner


def summary(name: str, learner: Learner) -> str:
    lat = learner.latencies_ms
    if not lat:
        return f"{name:30} no run answered"
    return (
        f"{name:30} runs {len(lat):4}  p50 {statistics.median(lat):7.1f} ms  "
        f"p95 {percentile(lat, 0.95):7.1f} ms  refused {learner.refused()}"
    )


async def measure(base: str, seconds: float, senders: int, retry_s: float) -> None:
    alone_client, busy_client, beside_client = [await session(base) for _ in range(3)]
    async with alone_client, busy_client, beside_client:
        for _ in range(10):  # warm the spares and the server's first requests
            await run(alone_client, SNIPPET, Learner())
        alone = await quiet(alone_client, seconds)
        stop = asyncio.Event()
        started = time.monotonic()
        hog = asyncio.create_task(busy(busy_client, senders, retry_s, stop))
        await asyncio.sleep(1.0)  # the busy learner's runs in progress and waiting
        beside = await quiet(beside_client, seconds)
        stop.set()
        hogged = await hog
        elapsed = time.monotonic() - started
        async with beside_client.get("/healthz") as answer:
            workers = int((await answer.json())["sandbox"]["workers"])
    print(summary("quiet learner alone", alone))
    print(summary("quiet learner beside busy", beside))
    print(summary("busy learner", hogged))
    ratio = percentile(beside.latencies_ms, 0.95) / percentile(alone.latencies_ms, 0.95)
    print(f"{'quiet p95 beside / alone':30} {ratio:.2f}  (target <= 3)")
    print(f"{'quiet runs refused':30} {alone.refused() + beside.refused()}  (target 0)")
    print(f"{'busy answers by status':30} {dict(sorted(hogged.statuses.items()))}")
    # Its runs' time over the time the workers had from its first ask to its last answer.
    share = hogged.run_ms / 1000 / (elapsed * workers)
    print(f"{'busy learner share':30} {share:.0%} of {workers} workers' time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase, seconds")
    parser.add_argument("--busy", type=int, default=16, help="the busy learner's runs at once")
    parser.add_argument("--busy-retry", type=float, default=0.25, help="seconds after a 429")
    args = parser.parse_args()
    port = free_port()
    print(machine_line())
    # The defaults, not the benchmarks' one-address settings: the limits are what is measured.
    server = start_server(port, settings={})
    try:
        asyncio.run(measure(f"http://127.0.0.1:{port}", args.seconds, args.busy, args.busy_retry))
    finally:
        server.terminate()
        server.wait(30)
    print(machine_line())


if __name__ == "__main__":
    main()
