"""A simulated learner: what one learner of the load test sends, round after round, and what
it saw (each request's latency, errors, 503s with Retry-After, new connections).

A round is what a learner's browser sends on a lesson, six requests: the catalog, the page of a
lesson (any lesson, drawn anew each round), the prediction committed on one of its steps, the
run the page then makes of that step's code (as the page sends it: without its final newline),
the progress read that follows, and a myth's answer (of that lesson, or of another where it has
none); then the learner pauses. In a share of rounds (`edited`) the run is the learner's edit of
the step's code instead: the code with a comment of its own, code the server has never seen.
benchmarks/load_test.py runs many at once and reports. bench_endpoints.py and
tests/routes/test_query_budgets.py send the requests of one lesson, LESSON, with SNIPPET (code
that is in no lesson) as its run, one by one.

Usage (mostly a library; run alone it sends one learner's rounds to a running gradlab):
    python benchmarks/simulated_learner.py --url http://127.0.0.1:8000 [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import secrets
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
class Step:
    number: int
    choices: list[str]  # the prediction's choices
    code: str  # as the page sends it for a run


@dataclass(frozen=True)
class Lesson:
    slug: str
    steps: list[Step]  # those whose prediction the page commits, then runs the code of
    myths: int


def curriculum(base: str) -> list[Lesson]:
    """Every lesson the server has, with what the load test's rounds send on it."""
    found = []
    for listed in httpx.get(f"{base}/api/lessons").json():
        lesson = httpx.get(f"{base}/api/lessons/{listed['slug']}").json()
        steps = [
            Step(number, step["prediction"]["choices"], step["snippet"]["code"].removesuffix("\n"))
            for number, step in enumerate(lesson["steps"], 1)
            if step.get("prediction") and step.get("snippet")
        ]
        if steps:
            found.append(Lesson(lesson["slug"], steps, len(lesson["myths"])))
    if not found or not any(lesson.myths for lesson in found):
        raise SystemExit(f"{base} has no lesson with a prediction, code to run and a myth")
    return found


_EDITS = itertools.count()
_THIS_TEST = secrets.token_hex(4)


def edit_of(code: str) -> str:
    """A learner's edit of `code`: the same program with a comment no other run has had."""
    return f"{code}\n# my note {_THIS_TEST}-{next(_EDITS)}"


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
RUN_KNOWN = "POST /api/run (step's code)"
RUN_EDITED = "POST /api/run (edited)"


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
    lessons: list[Lesson],
    pause: tuple[float, float],
    arrive: float,
    edited: float,
) -> None:
    """One learner's rounds until `deadline`; in a share `edited` of them the run is an edit."""
    with_myths = [lesson for lesson in lessons if lesson.myths]
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
            lesson = random.choice(lessons)
            step = random.choice(lesson.steps)
            mine = random.random() < edited
            myth_lesson = lesson if lesson.myths else random.choice(with_myths)
            await call(catalog, "GET", "/")
            catalog = "GET /"
            await call("GET /lessons/{slug}", "GET", f"/lessons/{lesson.slug}")
            await call(
                "POST prediction",
                "POST",
                f"/api/lessons/{lesson.slug}/steps/{step.number}/prediction",
                json={"choice": random.choice(step.choices), "confidence": "fairly_sure"},
            )
            await call(
                RUN_EDITED if mine else RUN_KNOWN,
                "POST",
                "/api/run",
                json={
                    "code": edit_of(step.code) if mine else step.code,
                    "lesson": lesson.slug,
                    "step": step.number,
                },
            )
            await call("GET progress", "GET", f"/api/lessons/{lesson.slug}/progress")
            await call(
                "POST myth",
                "POST",
                f"/api/lessons/{myth_lesson.slug}/myths/"
                f"{random.randint(1, myth_lesson.myths)}/answer",
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
    parser.add_argument(
        "--edited", type=float, default=1 / 3, help="the share of runs that are edited code"
    )
    args = parser.parse_args()
    if not on_loopback(args.url):
        parser.error("--url: load tests only target loopback addresses")
    lessons = curriculum(args.url)
    tally = Tally()
    deadline = time.monotonic() + args.seconds
    asyncio.run(learner(args.url, deadline, tally, lessons, (0.2, 1.0), 0.0, args.edited))
    print("\n".join(tally.table()))


if __name__ == "__main__":
    main()
