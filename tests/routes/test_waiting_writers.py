"""Answers waiting for their turn to write wait in the store's one writer thread, not in the
thread pool: reads and other answers' plumbing still get a thread (app/progress/writer.py)."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading

import anyio.to_thread
import httpx

from app.main import create_app
from app.progress.database import sqlite_lock_file
from tests.conftest import in_own_thread, make_settings

LESSON = "/api/lessons/first-steps"
WRITERS = 12


def test_writers_waiting_for_the_database_wait_in_one_thread_and_leave_the_pool() -> None:
    app = create_app(make_settings())
    lock_file = sqlite_lock_file(app.state.store.engine, "write")
    assert lock_file is not None

    async def scenario() -> None:
        # A pool of two threads: writers waiting in it for the database would take it all.
        anyio.to_thread.current_default_thread_limiter().total_tokens = 2
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gradlab") as client:
            assert (await client.get(f"{LESSON}/progress")).status_code == 200
            # Another process holds the database's write turn.
            holder = os.open(lock_file, os.O_RDONLY | os.O_CREAT)
            before = set(threading.enumerate())
            fcntl.flock(holder, fcntl.LOCK_EX)
            try:
                writers = [
                    asyncio.create_task(
                        client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
                    )
                    for _ in range(WRITERS)
                ]
                await asyncio.sleep(0.5)
                read = await asyncio.wait_for(client.get(f"{LESSON}/progress"), timeout=10)
                assert read.status_code == 200
                assert not any(writer.done() for writer in writers)  # still waiting
                new = set(threading.enumerate()) - before
                assert [thread.name for thread in new] == ["gradlab-writer"], "one thread waits"
            finally:
                fcntl.flock(holder, fcntl.LOCK_UN)
                os.close(holder)
            answers = await asyncio.wait_for(asyncio.gather(*writers), timeout=30)
            assert [answer.status_code for answer in answers] == [200] * len(writers)

    in_own_thread(asyncio.run, scenario())
