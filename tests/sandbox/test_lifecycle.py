"""The sandbox's own lifecycle on the event loop: discarding a zygote never waits on the loop,
and stopping is never silent about a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from app.sandbox.service import Sandbox
from tests.conftest import SandboxHarness, in_own_thread, make_settings


def test_a_discarded_zygote_is_reaped_off_the_event_loop() -> None:
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        zygote = harness.sandbox._zygote
        assert zygote is not None

        async def discard() -> int | None:
            harness.sandbox._discard_zygote("a test discards it")
            # Still on the loop, right after the call: killed, but not waited for here.
            return zygote.process.returncode

        assert harness.call(discard()) is None
    finally:
        harness.close()
    # Stopping waits for the reap that went on in a thread: the zygote leaves no zombie.
    assert zygote.process.returncode is not None


def test_a_cancelled_stop_is_not_swallowed() -> None:
    async def scenario() -> None:
        sandbox = Sandbox(make_settings(sandbox_enabled=True))
        never = asyncio.get_running_loop().create_future()
        sandbox._starting = asyncio.ensure_future(never)  # a start that does not finish
        stopping = asyncio.ensure_future(sandbox.stop())
        await asyncio.sleep(0)
        stopping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stopping
        assert not sandbox._starting.cancelled()  # the start it waited for is left alone
        sandbox._starting.cancel()

    in_own_thread(asyncio.run, scenario())


def test_stopping_after_a_failed_start_still_stops() -> None:
    async def scenario() -> None:
        sandbox = Sandbox(make_settings(sandbox_enabled=True))

        async def fails() -> None:
            raise RuntimeError("the zygote could not start")

        sandbox._starting = asyncio.ensure_future(fails())
        await sandbox.stop()  # the start's failure is the start's to report
        assert sandbox._zygote is None

    in_own_thread(asyncio.run, scenario())
