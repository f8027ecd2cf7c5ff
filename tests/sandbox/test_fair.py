"""The order in which learners' runs get a worker and the limits per learner (the queue alone,
with real asyncio tasks), and the CPU priority of a heavy user's runs (the real sandbox).
Sharing between client addresses (the reserve, places in a full queue): test_fair_addresses.py."""

from __future__ import annotations

import asyncio

import pytest

from app.sandbox.fair import HEAVY_NICE, HEAVY_S, FairQueue, LearnerLimit, SandboxBusy, Slot, Who
from tests.conftest import SandboxHarness, in_own_thread

NICENESS = "import os\nprint(os.getpriority(os.PRIO_PROCESS, 0))\n"
BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"
ROOM = "192.0.2.1"  # the learners here are behind one address


def _at_room(learner: str | None) -> Who | None:
    return None if learner is None else Who(ROOM, learner)


async def _take(queue: FairQueue, key: str | None, order: list[str], hold: asyncio.Event) -> None:
    slot = await queue.acquire(_at_room(key))
    order.append(str(key))
    await hold.wait()
    queue.release(slot)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_learner_with_one_run_waiting_goes_ahead_of_one_with_fifteen() -> None:
    async def scenario() -> list[str]:
        queue = FairQueue(workers=1, queue_size=100, per_key_running=1, per_key_waiting=100)
        order: list[str] = []
        hold = asyncio.Event()
        busy = [asyncio.create_task(_take(queue, "busy", order, hold)) for _ in range(16)]
        await _settle()  # one busy run holds the worker, fifteen wait
        quiet = asyncio.create_task(_take(queue, "quiet", order, hold))
        await _settle()
        assert (queue.busy, queue.waiting, queue.longest_line()) == (1, 16, 15)
        hold.set()
        await asyncio.gather(*busy, quiet)
        return order

    order = in_own_thread(asyncio.run, scenario())
    assert order[:2] == ["busy", "quiet"], order
    assert order.count("busy") == 16


def test_the_learner_who_used_the_least_lately_is_served_first() -> None:
    async def scenario() -> list[str]:
        queue = FairQueue(workers=1, queue_size=100, per_key_running=1, per_key_waiting=100)
        # "heavy" has just used the worker for a while; "light" has not used it at all.
        queue.release(await _held(queue, "heavy", 0.05))
        order: list[str] = []
        hold = asyncio.Event()
        blocker = await queue.acquire(_at_room("blocker"))
        tasks = [asyncio.create_task(_take(queue, key, order, hold)) for key in ("heavy", "light")]
        await _settle()
        queue.release(blocker)
        hold.set()
        await asyncio.gather(*tasks)
        return order

    assert in_own_thread(asyncio.run, scenario()) == ["light", "heavy"]


async def _held(queue: FairQueue, key: str, seconds: float) -> Slot:
    slot = await queue.acquire(_at_room(key))
    await asyncio.sleep(seconds)
    return slot


def test_a_learner_beyond_its_runs_and_its_waiting_line_is_refused_and_others_are_not() -> None:
    async def scenario() -> None:
        queue = FairQueue(workers=4, queue_size=100, per_key_running=2, per_key_waiting=3)
        hold = asyncio.Event()
        order: list[str] = []
        mine = [asyncio.create_task(_take(queue, "me", order, hold)) for _ in range(5)]
        await _settle()
        # Two run although four workers are free; three wait in my line.
        assert (queue.busy, queue.waiting) == (2, 3)
        with pytest.raises(LearnerLimit) as refused:
            await queue.acquire(_at_room("me"))
        assert refused.value.wait > 0
        other = await queue.acquire(_at_room("other"))  # a free worker, at once
        assert queue.busy == 3
        queue.release(other)
        hold.set()
        await asyncio.gather(*mine)
        assert (queue.busy, queue.waiting) == (0, 0)

    in_own_thread(asyncio.run, scenario())


def test_a_full_server_queue_refuses_as_busy_and_unkeyed_runs_skip_the_learner_limits() -> None:
    async def scenario() -> None:
        queue = FairQueue(workers=1, queue_size=2, per_key_running=1, per_key_waiting=5)
        hold = asyncio.Event()
        order: list[str] = []
        # The server's own runs (key None) are not held to one at a time.
        tasks = [asyncio.create_task(_take(queue, None, order, hold)) for _ in range(2)]
        tasks.append(asyncio.create_task(_take(queue, "someone", order, hold)))
        await _settle()
        assert (queue.busy, queue.waiting) == (1, 2)
        # One run waits in each line: nobody has more to give up than the newcomer.
        with pytest.raises(SandboxBusy):
            await queue.acquire(_at_room("someone else"))
        hold.set()
        await asyncio.gather(*tasks)

    in_own_thread(asyncio.run, scenario())


def test_a_cancelled_wait_leaves_no_trace_and_a_granted_one_gives_its_worker_back() -> None:
    async def scenario() -> None:
        queue = FairQueue(workers=1, queue_size=10, per_key_running=1, per_key_waiting=10)
        first = await queue.acquire(_at_room("a"))
        waiting = asyncio.create_task(queue.acquire(_at_room("b")))
        await _settle()
        assert queue.waiting == 1
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert queue.waiting == 0
        # Granted in the same turn as it is cancelled: the worker is not lost.
        granted = asyncio.create_task(queue.acquire(_at_room("c")))
        await _settle()
        queue.release(first)
        granted.cancel()
        await asyncio.gather(granted, return_exceptions=True)
        assert (queue.busy, queue.waiting) == (0, 0)
        queue.release(await queue.acquire(_at_room("d")))

    in_own_thread(asyncio.run, scenario())


def test_a_learner_who_used_the_sandbox_heavily_lately_runs_at_a_lower_cpu_priority(
    sandbox: SandboxHarness,
) -> None:
    def niceness(key: str) -> int:
        result = sandbox.call(sandbox.sandbox.run(NICENESS, Who(ROOM, key)))
        assert result.status == "ok", result
        return int(result.stdout)

    base = niceness("heavy-user")  # the server's own (a test run under `nice` has more)
    for _ in range(int(HEAVY_S / 0.9) + 1):  # each run well within the fixture's wall limit
        busy = sandbox.call(sandbox.sandbox.run(BUSY.format(seconds=0.9), Who(ROOM, "heavy-user")))
        assert busy.status == "ok", busy
    lowered = min(base + HEAVY_NICE, 19)
    assert lowered > base
    assert niceness("heavy-user") == lowered
    assert niceness("light-user") == base
    assert niceness("heavy-user") == lowered
