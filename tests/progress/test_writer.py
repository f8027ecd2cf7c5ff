"""The store's writer: writes run off the event loop; on SQLite in one thread, in turn.

Each scenario runs in a thread of its own (`in_own_thread`), with its own event loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest
from sqlalchemy import create_engine

from app.progress.writer import OneWriterThread, ThreadPoolWriter, writer_for
from tests.conftest import in_own_thread


def test_sqlite_writes_in_one_thread_and_the_others_in_the_pool() -> None:
    assert isinstance(writer_for(create_engine("sqlite://")), OneWriterThread)
    postgres = create_engine("postgresql+psycopg://gradlab@127.0.0.1:1/gradlab")
    assert isinstance(writer_for(postgres), ThreadPoolWriter)


def test_writes_run_in_order_in_one_thread_that_is_not_the_loop() -> None:
    writer = OneWriterThread()
    ran: list[tuple[int, int]] = []

    def write(number: int) -> int:
        time.sleep(0.001 * (5 - number))  # the first ones are slowest: order is not timing
        ran.append((number, threading.get_ident()))
        return number * 10

    loops: set[int] = set()

    async def scenario() -> list[int]:
        loops.add(threading.get_ident())
        return await asyncio.gather(*(writer(write, number) for number in range(5)))

    try:
        assert in_own_thread(asyncio.run, scenario()) == [0, 10, 20, 30, 40]
    finally:
        writer.close()
    assert [number for number, _ in ran] == [0, 1, 2, 3, 4]
    threads = {thread for _, thread in ran}
    assert len(threads) == 1
    assert threads.isdisjoint(loops)


def test_an_error_reaches_its_caller_and_the_next_write_still_runs() -> None:
    writer = OneWriterThread()

    def fails() -> None:
        raise ValueError("no such lesson")

    async def scenario() -> str:
        with pytest.raises(ValueError, match="no such lesson"):
            await writer(fails)
        return await writer(str.upper, "next")

    try:
        assert in_own_thread(asyncio.run, scenario()) == "NEXT"
    finally:
        writer.close()


def test_a_write_whose_caller_went_away_still_lands() -> None:
    writer = OneWriterThread()
    started, release = threading.Event(), threading.Event()
    landed: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(5)
        landed.append("slow")

    async def scenario() -> str:
        waiting = asyncio.create_task(writer(slow))
        await asyncio.to_thread(started.wait, 5)
        waiting.cancel()  # a client that disconnected
        release.set()
        return await writer(lambda: "after")

    try:
        assert in_own_thread(asyncio.run, scenario()) == "after"
    finally:
        writer.close()
    assert landed == ["slow"]


def test_close_lets_the_writes_handed_over_land_and_a_later_write_starts_again() -> None:
    writer = OneWriterThread()
    landed: list[int] = []

    async def hand_over() -> list[asyncio.Task[None]]:
        # Handed over, not awaited: close() must still wait for them.
        handed = [
            asyncio.ensure_future(writer(lambda n=number: landed.append(n) or time.sleep(0.01)))
            for number in range(3)
        ]
        await asyncio.sleep(0)
        return handed

    async def one_more() -> None:
        await writer(landed.append, 99)
        writer.close()

    def scenario() -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(hand_over())
            writer.close()
            assert landed == [0, 1, 2]
            loop.run_until_complete(one_more())
            assert landed == [0, 1, 2, 99]
        finally:
            loop.close()

    in_own_thread(scenario)


def test_a_writer_dropped_without_close_stops_its_thread() -> None:
    writer = OneWriterThread(name="gradlab-writer-dropped")

    async def scenario(writer: OneWriterThread) -> None:
        await writer(lambda: None)

    in_own_thread(asyncio.run, scenario(writer))
    (thread,) = [t for t in threading.enumerate() if t.name == "gradlab-writer-dropped"]
    del writer
    thread.join(5)
    assert not thread.is_alive()


REQUEST = contextvars.ContextVar("request", default="none")


def test_a_write_runs_in_its_callers_context() -> None:
    writer = OneWriterThread()

    async def one_request(name: str) -> str:
        REQUEST.set(name)  # as the request-id middleware does
        return await writer(REQUEST.get)

    async def scenario() -> list[str]:
        return await asyncio.gather(one_request("first"), one_request("second"))

    try:
        assert in_own_thread(asyncio.run, scenario()) == ["first", "second"]
    finally:
        writer.close()


def test_the_pool_writer_runs_off_the_loop() -> None:
    loops: set[int] = set()

    async def scenario() -> int:
        loops.add(threading.get_ident())
        return await ThreadPoolWriter()(threading.get_ident)

    assert in_own_thread(asyncio.run, scenario()) not in loops
