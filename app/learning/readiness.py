"""Is this instance ready for learners: does its progress database answer?

A readiness probe and the `gradlab_database_ready` gauge ask the same `DatabaseProbe`. It asks
the database a `SELECT 1` on a thread of its own, never on the event loop, at most once per
`FRESH_S`: probes in between read the last answer. A database that says nothing (a firewall
that drops the packets) makes the probe answer "not ready" after `TIMEOUT_S`, while the one
question in flight waits for the driver's own connect timeout; no second one starts meanwhile.
The server also asks every `EVERY_S` by itself (`keep_probing`), so that the gauge is true
where nothing probes.

Connections are the store's own, from the same pool: the pool tests each connection as it
leaves it (`pool_pre_ping`), so when the database is back, the next probe and the next request
get a new connection, and the instance is ready again without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

log = logging.getLogger("gradlab")

TIMEOUT_S = 2.0
FRESH_S = 1.0
EVERY_S = 2.0
# What a learner or a probe may read; the operator's log says where it was tried and why.
UNREACHABLE = "the progress database does not answer"


@dataclass(frozen=True)
class DatabaseState:
    ready: bool
    problem: str | None
    at: float  # time.monotonic() of the answer


class DatabaseProbe:
    """The database's readiness, asked through `ask` (raises when it does not answer); each
    change of the answer is logged and handed to `on_change` (the gauge)."""

    def __init__(
        self,
        ask: Callable[[], None],
        on_change: Callable[[bool], None] = lambda ready: None,
        *,
        timeout_s: float = TIMEOUT_S,
        fresh_s: float = FRESH_S,
    ) -> None:
        self._ask = ask
        self._on_change = on_change
        self.timeout_s = timeout_s
        self.fresh_s = fresh_s
        # The schema was just checked at start-up: ready, and due to be asked again.
        self.last = DatabaseState(ready=True, problem=None, at=float("-inf"))
        self._asking: Future[DatabaseState] | None = None
        self._lock = threading.Lock()
        self.thread_name = f"gradlab-db-probe-{id(self):x}"

    async def probe(self) -> DatabaseState:
        """The database's state, asked now unless the last answer is fresh."""
        if time.monotonic() - self.last.at < self.fresh_s:
            return self.last
        try:
            # Shielded: a question that outlives the wait stays the one in flight.
            asking = asyncio.shield(asyncio.wrap_future(self._question()))
            state = await asyncio.wait_for(asking, self.timeout_s)
        except TimeoutError:
            state = DatabaseState(False, UNREACHABLE, time.monotonic())
            self._note(state, f"no answer in {self.timeout_s:g} s")
        return state

    async def keep_probing(self, stop: asyncio.Event, every_s: float = EVERY_S) -> None:
        """Ask every `every_s` until `stop`."""
        while not stop.is_set():
            await self.probe()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every_s)

    def _question(self) -> Future[DatabaseState]:
        """The question in flight, or a new one on a thread of its own."""
        with self._lock:
            if self._asking is None or self._asking.done():
                asking: Future[DatabaseState] = Future()
                threading.Thread(
                    target=self._answer, args=(asking,), name=self.thread_name, daemon=True
                ).start()
                self._asking = asking
            return self._asking

    def _answer(self, asking: Future[DatabaseState]) -> None:
        try:
            self._ask()
        except Exception as exc:  # noqa: BLE001 - whatever stops the query, it is not ready
            state = DatabaseState(False, UNREACHABLE, time.monotonic())
            self._note(state, str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc))
        else:
            state = DatabaseState(True, None, time.monotonic())
            self._note(state, "")
        asking.set_result(state)

    def _note(self, state: DatabaseState, why: str) -> None:
        with self._lock:
            changed = state.ready != self.last.ready
            if state.at >= self.last.at:
                self.last = state
        if not changed:
            return
        if state.ready:
            log.info("database: ready again")
        else:
            log.error("database: not ready: %s", why)
        self._on_change(state.ready)
