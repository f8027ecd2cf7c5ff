"""Thirty learners behind one address (a lab, a NAT) press Run at the same moment, over a real
server and the real sandbox: none is refused, whichever page each started from (the
playground, a share, a lesson or one of its modes, review, progress). Every client here is
the server's peer 127.0.0.1, so they are one address to it.

Beside them, two abusers at the same address are held to a line each: one learner firing
more runs than their line holds, and a client that throws its cookie away (every run of it
waits in the address's line). Past their line's limit they get 429; the class is served."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import httpx
import pytest

from app.learning.pages.registry import MODES
from tests.conftest import FIXTURE_LESSONS, in_own_thread
from tests.live import LiveServer

pytestmark = pytest.mark.slow

LEARNERS = 30
COOKIE = "gradlab_learner"
LESSON = "first-steps"
# Held long enough that the line is still full when the class presses Run; the waiting runs
# behind them are quick, since a run waits in a full line however short it is.
HOLD = "import time\ntime.sleep(6)\nprint('held')\n"
QUICK = "print(1)\n"
RUNNING, WAITING = 2, 4  # GRADLAB_RUNS_PER_LEARNER and GRADLAB_QUEUED_PER_LEARNER, defaults
EXTRA = 3  # what each abuser fires beyond its line


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(FIXTURE_LESSONS, wall_time_s="15")
    yield live
    live.stop()


def _pages(share: str) -> list[str]:
    pages = ["/playground", f"/playground?share={share}", f"/s/{share}", f"/lessons/{LESSON}"]
    pages += [f"/lessons/{LESSON}/{mode.slug}" for mode in MODES]
    return [*pages, "/review", "/progress"]


async def _health(url: str) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=url) as client:
        sandbox: dict[str, int] = (await client.get("/healthz")).json()["sandbox"]
        return sandbox


async def _until(url: str, busy: int, queued: int) -> None:
    """Until the sandbox has `busy` runs in progress and `queued` waiting (or fail)."""
    for _ in range(600):
        health = await _health(url)
        if (health["busy"], health["queued"]) == (busy, queued):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the sandbox never had {busy} busy and {queued} queued: {health}")


async def _fill_line(
    url: str, send: list[httpx.AsyncClient], busy: int, queued: int
) -> list[asyncio.Task[httpx.Response]]:
    """Two held runs, then four quick ones behind them: a full line."""
    held = [asyncio.create_task(c.post("/api/run", json={"code": HOLD})) for c in send[:RUNNING]]
    await _until(url, busy, queued - WAITING)
    quick = [asyncio.create_task(c.post("/api/run", json={"code": QUICK})) for c in send[RUNNING:]]
    await _until(url, busy, queued)
    return [*held, *quick]


async def _one_room(url: str) -> None:
    timeout = httpx.Timeout(60)
    learners = [httpx.AsyncClient(base_url=url, timeout=timeout) for _ in range(LEARNERS)]
    abuser = httpx.AsyncClient(base_url=url, timeout=timeout)
    # A client that keeps no cookie: a fresh client for every request.
    droppers = [httpx.AsyncClient(base_url=url, timeout=timeout) for _ in range(6 + EXTRA)]
    try:
        # One of the class shares a snippet; the others open a page each, all at once.
        made = await learners[0].post("/api/shares", json={"code": QUICK, "lesson": LESSON})
        assert made.status_code == 201
        pages = itertools.cycle(_pages(made.json()["id"]))
        opened = await asyncio.gather(*(learner.get(next(pages)) for learner in learners[1:]))
        assert [answer.status_code for answer in opened] == [200] * (LEARNERS - 1)
        assert all(COOKIE in learner.cookies for learner in learners)
        assert (await abuser.get("/playground")).status_code == 200

        # The abusers' lines are full: each has two runs in progress and four waiting.
        abused = await _fill_line(url, [abuser] * (RUNNING + WAITING), 2, 4)
        dropped = await _fill_line(url, droppers[: RUNNING + WAITING], 4, 8)

        # The class presses Run, and each abuser fires again, at the same moment.
        run = {"code": QUICK}
        class_runs = [learner.post("/api/run", json=run) for learner in learners]
        more = [abuser.post("/api/run", json=run) for _ in range(EXTRA)]
        more += [dropper.post("/api/run", json=run) for dropper in droppers[-EXTRA:]]
        answers = await asyncio.gather(*class_runs, *more)
        served, refused = answers[:LEARNERS], answers[LEARNERS:]

        assert [answer.status_code for answer in served] == [200] * LEARNERS
        assert all(answer.json()["stdout"] == "1\n" for answer in served)
        assert [answer.status_code for answer in refused] == [429] * (2 * EXTRA)
        assert all(answer.json()["type"].endswith("learner-limit") for answer in refused)
        assert all(int(answer.headers["retry-after"]) > 0 for answer in refused)

        # Each abuser's line is served in turn; the client without a cookie was offered one
        # with every answer (and threw it away).
        held = await asyncio.gather(*abused)
        thrown_away = await asyncio.gather(*dropped)
        assert [answer.status_code for answer in [*held, *thrown_away]] == [200] * 12
        assert all(COOKIE in answer.cookies for answer in thrown_away)
    finally:
        for client in [*learners, abuser, *droppers]:
            await client.aclose()


def test_a_class_behind_one_address_is_served_and_abusers_are_held(server: LiveServer) -> None:
    in_own_thread(asyncio.run, _one_room(server.url))
