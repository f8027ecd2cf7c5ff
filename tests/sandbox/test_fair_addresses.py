"""The queue shared between client addresses first, then between the learners of each (the
queue alone, with real asyncio tasks): an address with many learners' cookies gets no more
turns than an address with one, the last free worker waits for an address with nothing
running, and a full queue gives a place of the address with the most runs waiting to another.
The same attack over a real server and sandbox: tests/test_many_cookies.py."""

from __future__ import annotations

import asyncio

import pytest

from app.sandbox.fair import FairQueue, SandboxBusy, Who
from app.web.client_address import counted_as
from tests.conftest import in_own_thread

CROWD, ALONE, OTHER = "192.0.2.10", "192.0.2.20", "192.0.2.30"


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def _run(queue: FairQueue, who: Who, order: list[Who], hold: float = 0.0) -> None:
    """Wait for a worker, note who got it, hold it `hold` seconds and give it back."""
    slot = await queue.acquire(who)
    order.append(who)
    await asyncio.sleep(hold)
    queue.release(slot)


def test_an_address_with_many_learners_gets_no_more_turns_than_an_address_with_one() -> None:
    async def scenario() -> list[Who]:
        queue = FairQueue(workers=1, queue_size=100, per_key_running=1, per_key_waiting=10)
        blocker = await queue.acquire(Who(OTHER, "blocker"))
        order: list[Who] = []
        # Five learners at one address ask first, two runs each; one learner elsewhere, three.
        crowd = [Who(CROWD, f"learner-{n}") for n in range(5)]
        tasks = [asyncio.create_task(_run(queue, who, order, 0.01)) for who in crowd * 2]
        await _settle()
        alone = Who(ALONE, "alone")
        tasks += [asyncio.create_task(_run(queue, alone, order, 0.01)) for _ in range(3)]
        await _settle()
        assert (queue.busy, queue.waiting) == (1, 13)
        queue.release(blocker)
        await asyncio.gather(*tasks)
        return order

    order = in_own_thread(asyncio.run, scenario())
    assert len(order) == 13
    turns = [n for n, who in enumerate(order, start=1) if who.address == ALONE]
    # The addresses take turns, give or take one run's length of noise: the lone learner's
    # three runs are done by the seventh (one line among six, as each learner's line was on
    # its own, would have put its third run at the thirteenth).
    assert turns[-1] <= 7, order
    assert order[0].address == CROWD  # the first to ask, both addresses level


def test_the_learners_of_one_address_share_its_turns() -> None:
    async def scenario() -> list[Who]:
        queue = FairQueue(workers=1, queue_size=100, per_key_running=1, per_key_waiting=10)
        blocker = await queue.acquire(Who(OTHER, "blocker"))
        order: list[Who] = []
        busy, quiet = Who(CROWD, "busy"), Who(CROWD, "quiet")
        tasks = [asyncio.create_task(_run(queue, busy, order)) for _ in range(6)]
        await _settle()
        tasks.append(asyncio.create_task(_run(queue, quiet, order)))
        await _settle()
        queue.release(blocker)
        await asyncio.gather(*tasks)
        return order

    order = in_own_thread(asyncio.run, scenario())
    assert [who.learner for who in order[:2]] == ["busy", "quiet"], order


def test_the_last_free_worker_waits_for_an_address_with_nothing_running() -> None:
    async def scenario() -> None:
        queue = FairQueue(
            workers=3, queue_size=100, per_key_running=5, per_key_waiting=10, reserved=1
        )
        order: list[Who] = []
        hold = asyncio.Event()
        crowd = [Who(CROWD, f"learner-{n}") for n in range(3)]
        tasks = [asyncio.create_task(_wait(queue, who, order, hold)) for who in crowd]
        await _settle()
        # Two of the crowd's run; the third waits although a worker is free.
        assert (queue.busy, queue.waiting) == (2, 1)
        tasks.append(asyncio.create_task(_wait(queue, Who(ALONE, "quiet"), order, hold)))
        await _settle()
        assert (queue.busy, queue.waiting) == (3, 1)
        assert order[-1] == Who(ALONE, "quiet")
        hold.set()
        await asyncio.gather(*tasks)
        assert (queue.busy, queue.waiting) == (0, 0)
        # Alone with nothing running, an address may take the kept worker too.
        lone = FairQueue(workers=1, queue_size=4, per_key_running=1, per_key_waiting=4, reserved=1)
        lone.release(await lone.acquire(Who(CROWD, "learner-0")))

    in_own_thread(asyncio.run, scenario())


async def _wait(queue: FairQueue, who: Who, order: list[Who], hold: asyncio.Event) -> None:
    slot = await queue.acquire(who)
    order.append(who)
    await hold.wait()
    queue.release(slot)


async def _outcome(queue: FairQueue, who: Who, hold: asyncio.Event) -> str:
    try:
        slot = await queue.acquire(who)
    except SandboxBusy:
        return "busy"
    await hold.wait()
    queue.release(slot)
    return "served"


def test_a_full_queue_gives_a_place_of_the_address_with_the_most_waiting_to_another() -> None:
    async def scenario() -> tuple[list[str], list[str], list[str]]:
        queue = FairQueue(workers=1, queue_size=4, per_key_running=1, per_key_waiting=4)
        hold = asyncio.Event()
        crowd = [Who(CROWD, f"learner-{n}") for n in range(5)]
        theirs = [asyncio.create_task(_outcome(queue, who, hold)) for who in crowd]
        await _settle()
        assert (queue.busy, queue.waiting) == (1, 4)  # the crowd alone fills the queue
        # Another address's run takes the place of the crowd's newest waiting run...
        mine = [asyncio.create_task(_outcome(queue, Who(ALONE, "quiet"), hold))]
        await _settle()
        assert (queue.busy, queue.waiting) == (1, 4)
        assert theirs[-1].done() and theirs[-1].result() == "busy"
        # ...and a third address's too; a fourth run of the crowd's finds no room.
        others = [asyncio.create_task(_outcome(queue, Who(OTHER, "other"), hold))]
        await _settle()
        assert theirs[-2].done() and theirs[-2].result() == "busy"
        with pytest.raises(SandboxBusy):
            await queue.acquire(Who(CROWD, "learner-9"))
        # A fourth address: the crowd, with two waiting, gives up one more place; then each
        # of four addresses has one, and a fifth is refused rather than swapped for an equal.
        others.append(asyncio.create_task(_outcome(queue, Who("192.0.2.40", "late"), hold)))
        await _settle()
        assert theirs[-3].done() and theirs[-3].result() == "busy"
        others.append(asyncio.create_task(_outcome(queue, Who("192.0.2.50", "later"), hold)))
        await _settle()
        assert others[-1].done() and others[-1].result() == "busy"
        assert (queue.busy, queue.waiting) == (1, 4)
        hold.set()
        outcomes = await asyncio.gather(*theirs), await asyncio.gather(*mine)
        return outcomes[0], outcomes[1], await asyncio.gather(*others)

    theirs, mine, others = in_own_thread(asyncio.run, scenario())
    assert theirs == ["served"] * 2 + ["busy"] * 3
    assert mine == ["served"]
    assert others == ["served", "served", "busy"]


def test_within_one_address_a_full_queue_gives_the_busiest_learners_place_to_another() -> None:
    async def scenario() -> tuple[list[str], str]:
        queue = FairQueue(workers=1, queue_size=4, per_key_running=1, per_key_waiting=10)
        hold = asyncio.Event()
        busy = Who(CROWD, "busy")
        theirs = [asyncio.create_task(_outcome(queue, busy, hold)) for _ in range(5)]
        await _settle()
        assert (queue.busy, queue.waiting) == (1, 4)
        mine = asyncio.create_task(_outcome(queue, Who(CROWD, "quiet"), hold))
        await _settle()
        hold.set()
        return await asyncio.gather(*theirs), await mine

    theirs, mine = in_own_thread(asyncio.run, scenario())
    assert theirs == ["served"] * 4 + ["busy"]
    assert mine == "served"


@pytest.mark.parametrize(
    ("host", "counted"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("unknown", "unknown"),
    ],
)
def test_a_client_is_counted_as_its_ipv4_address_or_its_ipv6_64(host: str, counted: str) -> None:
    assert counted_as(host) == counted
