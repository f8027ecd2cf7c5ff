"""One address holding twenty learners' cookies, each keeping six runs of `time.sleep(2)` going
(all the workers it may have, and every place of the queue): a learner at another address is
still answered, every time, over a real server and the real sandbox. Without the share between
addresses the learner's ten runs were all refused (503 `sandbox-busy`).

The clients are bound to loopback addresses of their own (127.0.0.2 for the crowd, 127.0.0.3
for the learner), so the server sees two client addresses; the server trusts no proxy, so the
address is the TCP peer's. The queue itself, in order: tests/sandbox/test_fair_addresses.py."""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import FIXTURE_LESSONS, in_own_thread
from tests.live import LiveServer

pytestmark = pytest.mark.slow

CROWD, LEARNER = "127.0.0.2", "127.0.0.3"
COOKIES, RUNS_EACH = 20, 6  # GRADLAB_RUNS_PER_LEARNER + GRADLAB_QUEUED_PER_LEARNER, defaults
WORKERS, QUEUE, RESERVED = 8, 64, 1  # the defaults of a 2-core box, named here
SLEEP = "import time\ntime.sleep(2)\n"
QUICK = "print(1)\n"
ASKS = 10
P95_BUDGET_S = 1.0  # the issue's own bound; a quiet run takes tens of milliseconds


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(FIXTURE_LESSONS, workers=str(WORKERS))
    yield live
    live.stop()


def _client(url: str, address: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=httpx.Timeout(60))


async def _keep_running(client: httpx.AsyncClient, answers: Counter[int]) -> None:
    """One of a learner's six senders: a sleeping run, again as soon as it is answered, and
    again after the Retry-After of a refusal. (Refusals asked again at once would be a flood
    of requests, which a proxy limits; the sandbox's share is what is tried here.)"""
    while True:
        answer = await client.post("/api/run", json={"code": SLEEP})
        answers[answer.status_code] += 1
        if answer.status_code != 200:
            await asyncio.sleep(float(answer.headers.get("retry-after", 1)))


async def _sandbox(url: str) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=url) as client:
        sandbox: dict[str, int] = (await client.get("/healthz")).json()["sandbox"]
        return sandbox


async def _until_taken(url: str) -> dict[str, int]:
    """Until the crowd holds every worker it may and every place of the queue (or fail)."""
    for _ in range(600):
        health = await _sandbox(url)
        if (health["busy"], health["queued"]) == (WORKERS - RESERVED, QUEUE):
            return health
        await asyncio.sleep(0.05)
    raise AssertionError(f"the crowd never filled the sandbox: {health}")


async def _ask(learner: httpx.AsyncClient) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    answer = await learner.post("/api/run", json={"code": QUICK})
    return time.perf_counter() - started, answer


async def _many_cookies(url: str) -> tuple[list[float], list[httpx.Response], Counter[int]]:
    crowd = [_client(url, CROWD) for _ in range(COOKIES)]
    learner = _client(url, LEARNER)
    answers: Counter[int] = Counter()
    senders: list[asyncio.Task[None]] = []
    try:
        opened = await asyncio.gather(*(client.get("/playground") for client in crowd))
        assert [page.status_code for page in opened] == [200] * COOKIES
        assert len({client.cookies["gradlab_learner"] for client in crowd}) == COOKIES
        senders = [
            asyncio.create_task(_keep_running(client, answers))
            for client in crowd
            for _ in range(RUNS_EACH)
        ]
        await _until_taken(url)
        assert (await learner.get("/playground")).status_code == 200
        before = answers.copy()
        asked = []
        for _ in range(ASKS):
            asked.append(await _ask(learner))
            await asyncio.sleep(0.3)
        # The crowd was served, and refused past its share, while the learner asked.
        return [seconds for seconds, _ in asked], [answer for _, answer in asked], answers - before
    finally:
        for sender in senders:
            sender.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*senders, return_exceptions=True)
        for client in [*crowd, learner]:
            await client.aclose()


def test_an_address_with_many_cookies_cannot_keep_another_addresses_runs_out(
    server: LiveServer,
) -> None:
    latencies, answers, crowd = in_own_thread(asyncio.run, _many_cookies(server.url))
    assert [answer.status_code for answer in answers] == [200] * ASKS
    assert [answer.json()["stdout"] for answer in answers] == ["1\n"] * ASKS
    assert crowd[200] > 0 and crowd[503] > 0
    p95 = statistics.quantiles(latencies, n=20, method="inclusive")[-1]
    shown = f"p95 {p95 * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    print(f"another address's print(1): {shown}; the crowd meanwhile: {dict(crowd)}")
    assert p95 <= P95_BUDGET_S, sorted(latencies)
