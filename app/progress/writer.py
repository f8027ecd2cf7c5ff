"""Where a store's writes run, for callers on an event loop: never on the loop itself.

SQLite takes one writer at a time (app/progress/write_turn.py). Writes handed to a pool of
threads waited there for the turn, a few at a time, and each crossed to a thread and back
under a contended interpreter lock: at 450 learners a prediction's p95 was 1.85 s, though its
transaction held the turn for 2 ms (docs/performance.md). So on SQLite one
thread takes the writes in the order they come: none waits for a thread, and a busy writer
goes on to the next without being woken.

PostgreSQL takes writers side by side: there a write goes to the event loop's thread pool.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any, ParamSpec, Protocol, TypeVar

from sqlalchemy import Engine

P = ParamSpec("P")
T = TypeVar("T")
log = logging.getLogger("gradlab")


class Writer(Protocol):
    async def __call__(self, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `call` off the event loop and give back what it returned or raised."""

    def close(self) -> None:
        """Let the writes already handed over land, and stop what runs them."""


class ThreadPoolWriter:
    """Writes side by side, in the event loop's thread pool (PostgreSQL)."""

    async def __call__(self, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.to_thread(call, *args, **kwargs)

    def close(self) -> None:
        pass


# A write handed to the writer thread: the call, and where its outcome goes.
_Job = tuple[Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class OneWriterThread:
    """Writes one after another, in one thread that starts with the first (SQLite)."""

    def __init__(self, name: str = "gradlab-writer") -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()
        # A store dropped without being closed (tests, scripts) stops its thread with it.
        weakref.finalize(self, self._jobs.put, None)

    async def __call__(self, call: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        loop = asyncio.get_running_loop()
        outcome: asyncio.Future[T] = loop.create_future()
        self._start()
        # In the caller's context, as asyncio.to_thread does: a log line written by the write
        # keeps the request's id (app/web/logs.py).
        context = contextvars.copy_context()
        self._jobs.put((functools.partial(context.run, call, *args, **kwargs), loop, outcome))
        return await outcome

    def _start(self) -> None:
        with self._starting:
            if self._thread is None:
                # Not a method of self: the thread holds the queue, not the writer, so that
                # the writer can be collected (and its finalizer stop the thread).
                self._thread = threading.Thread(
                    target=_write_in_turn, args=(self._jobs,), name=self._name, daemon=True
                )
                self._thread.start()

    def close(self) -> None:
        """Stop the thread once the writes handed over have landed. A later write starts a
        new one, as a disposed engine opens new connections (an app's lifespan can run again
        in tests)."""
        with self._starting:
            thread, self._thread = self._thread, None
            if thread is not None:
                self._jobs.put(None)
                thread.join()


def _write_in_turn(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while (job := jobs.get()) is not None:
        call, loop, outcome = job
        try:
            result = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
            _hand_back(loop, outcome, None, exc)
        else:
            _hand_back(loop, outcome, result, None)


def _hand_back(
    loop: asyncio.AbstractEventLoop,
    outcome: asyncio.Future[Any],
    result: object,
    error: BaseException | None,
) -> None:
    def settle() -> None:
        if outcome.cancelled():  # the caller went away; the write itself has landed
            return
        if error is not None:
            outcome.set_exception(error)
        else:
            outcome.set_result(result)

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:  # the loop closed while the write ran: no one is waiting
        log.debug("a write finished after its event loop closed")


def writer_for(engine: Engine) -> Writer:
    """One thread for a SQLite file or memory database; the thread pool for the others."""
    if engine.dialect.name == "sqlite":
        return OneWriterThread()
    return ThreadPoolWriter()
