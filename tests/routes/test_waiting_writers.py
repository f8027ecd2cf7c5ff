"""Answers waiting for their turn to write wait on the event loop, not in the thread pool, so
that reads still get a thread (app/routes/deps.py, WRITE_SLOTS)."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading

import anyio.to_thread
import httpx

from app.main import create_app
from app.progress.database import sqlite_lock_file
from app.routes.deps import WRITE_SLOTS
from tests.conftest import make_settings

LESSON = "/api/lessons/first-steps"


def test_writers_waiting_for_the_database_leave_threads_for_reads() -> None:
    app = create_app(make_settings())
    lock_file = sqlite_lock_file(app.state.store.engine, "write")
    assert lock_file is not None

    async def scenario() -> None:
        # A pool just larger than the write slots: without them, the writers took it all.
        anyio.to_thread.current_default_thread_limiter().total_tokens = WRITE_SLOTS + 2
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gradlab") as client:
            assert (await client.get(f"{LESSON}/progress")).status_code == 200
            # Another process holds the database's write turn.
            holder = os.open(lock_file, os.O_RDONLY | os.O_CREAT)
            fcntl.flock(holder, fcntl.LOCK_EX)
            try:
                writers = [
                    asyncio.create_task(
                        client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
                    )
                    for _ in range(3 * WRITE_SLOTS)
                ]
                await asyncio.sleep(0.5)
                read = await asyncio.wait_for(client.get(f"{LESSON}/progress"), timeout=10)
                assert read.status_code == 200
                assert not any(writer.done() for writer in writers)  # still waiting
            finally:
                fcntl.flock(holder, fcntl.LOCK_UN)
                os.close(holder)
            answers = await asyncio.wait_for(asyncio.gather(*writers), timeout=30)
            assert [answer.status_code for answer in answers] == [200] * len(writers)

    # In a thread of its own: the browser tests leave an event loop running in this one.
    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(scenario())
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the test
            failures.append(exc)

    runner = threading.Thread(target=run)
    runner.start()
    runner.join(120)
    assert not runner.is_alive(), "the scenario did not finish"
    if failures:
        raise failures[0]
