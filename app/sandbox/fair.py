"""Who runs next: the workers and the queue are shared first between client addresses, then
between the learners of an address; a free worker serves the address, and within it the
learner, that has had the least of the sandbox lately.

The sandbox's workers are shared by everyone on the server. First come, first served lets one
learner with fifteen runs waiting hold up a learner with one, and one address with twenty
learners' cookies hold up everyone else. Here each run is asked for by a `Who`: a client
address (plain data; the routes derive it, app/web/client_address.py) and the learner behind
it (None for a client without one; their runs share the address's own line). Each learner has
a line; a free worker goes to the address whose lines have used the least worker time lately,
and there to the first run of its line that has used the least: the seconds its finished runs
held a worker, halved every `USAGE_HALF_LIFE_S`, plus the time its runs in progress have held
one so far. A learner or address that has not run for a while starts level with a newcomer;
one that keeps every worker it may busy falls behind everyone else until the others are served.

Three rules keep one address from taking the server from the others:
- the last `reserved` free workers go only to an address with no run in progress, so that a
  learner at another address starts at once, even while one address keeps the rest busy with
  runs that take their whole wall time;
- when the queue (`queue_size`) is full, a run from an address with at least two runs waiting
  fewer than another takes the place of that address's newest waiting run (which is refused,
  `SandboxBusy`); within one address, the same between its learners. Alone, an address may
  fill the queue;
- limits per learner (GRADLAB_RUNS_PER_LEARNER, GRADLAB_QUEUED_PER_LEARNER): runs at once, and
  runs waiting. Beyond them `LearnerLimit`.
Unkeyed runs (the lesson checker, tests) share one line of their own, without the per-learner
limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from collections import deque
from dataclasses import dataclass, field

from app.errors import LearnerLimit, SandboxBusy

# "Lately": a minute-old run still counts a quarter, a five-minute-old one almost nothing.
USAGE_HALF_LIFE_S = 30.0
# The CPUs are shared too: two runs of a busy loop take both cores of a small box, and a quiet
# learner's run, though it gets a worker at once, then waits for a core. A learner who has had
# more than HEAVY_S of worker time lately runs at niceness HEAVY_NICE: their runs still use
# every idle cycle, but yield the CPU to everyone else's (and to the server). A lesson's
# snippets take milliseconds each; HEAVY_S is a minute of them at a brisk pace.
HEAVY_S = 2.0
HEAVY_NICE = 10
UNKEYED = "(server)"  # the address of the server's own runs (never a client's)
NO_COOKIE = ""  # the line, within its address, of a client without a learner


@dataclass(frozen=True)
class Who:
    """Who asks for a run: the client's address and the learner (None: a client without a
    learner cookie, whose runs wait in the address's own line)."""

    address: str
    learner: str | None = None


Entry = tuple[int, asyncio.Future[float]]


@dataclass
class _Line:
    """One learner's runs: waiting (in arrival order), in progress (their start times), and its
    worker time so far, decayed."""

    waiting: deque[Entry] = field(default_factory=deque)
    running: list[float] = field(default_factory=list)
    used_s: float = 0.0
    used_at: float = 0.0

    def usage(self, at: float) -> float:
        decayed = self.used_s * math.pow(0.5, (at - self.used_at) / USAGE_HALF_LIFE_S)
        return decayed + sum(at - started for started in self.running)

    def charge(self, seconds: float, at: float) -> None:
        self.used_s = self.usage(at) - sum(at - started for started in self.running) + seconds
        self.used_at = at

    def idle(self, at: float) -> bool:
        """Nothing waiting or running, and too little use left to matter."""
        return not self.waiting and not self.running and self.usage(at) < 0.01


def _most_waiting(line: _Line) -> tuple[int, int]:
    """Runs waiting, then how recently the newest of them came: the line to give up a place."""
    return (len(line.waiting), line.waiting[-1][0]) if line.waiting else (0, -1)


@dataclass
class _Address:
    """One client address's learners' lines."""

    lines: dict[str, _Line] = field(default_factory=dict)

    def usage(self, at: float) -> float:
        return sum(line.usage(at) for line in self.lines.values())

    def running(self) -> int:
        return sum(len(line.running) for line in self.lines.values())

    def waiting(self) -> int:
        return sum(len(line.waiting) for line in self.lines.values())


@dataclass(frozen=True)
class Slot:
    """A worker granted to a learner's line: give it back with `FairQueue.release`. `nice`:
    the CPU niceness its run gets (HEAVY_NICE for a line used more than HEAVY_S lately)."""

    address: str
    line: str
    started: float
    nice: int = 0


class FairQueue:
    def __init__(
        self,
        workers: int,
        queue_size: int,
        per_key_running: int,
        per_key_waiting: int,
        reserved: int = 0,
    ) -> None:
        self.workers = workers
        self.queue_size = queue_size
        self.per_key_running = per_key_running
        self.per_key_waiting = per_key_waiting
        self.reserved = reserved
        self._addresses: dict[str, _Address] = {}
        self._busy = 0
        self._waiting = 0
        self._arrivals = itertools.count()

    # --- what /healthz and the metrics read ------------------------------------------------
    @property
    def busy(self) -> int:
        return self._busy

    @property
    def waiting(self) -> int:
        return self._waiting

    def longest_line(self) -> int:
        """The most runs one learner has waiting."""
        return max((len(line.waiting) for line in self._lines()), default=0)

    def _lines(self) -> list[_Line]:
        return [line for place in self._addresses.values() for line in place.lines.values()]

    # --- taking and giving back a worker ---------------------------------------------------
    async def acquire(self, who: Who | None) -> Slot:
        """Wait for a worker, in `who`'s line (None: the unkeyed line, without the per-learner
        limits). Raises LearnerLimit or SandboxBusy at once rather than wait past a limit, and
        SandboxBusy later if the run's place in the queue is taken by another address's run."""
        address = UNKEYED if who is None else who.address
        name = UNKEYED if who is None else (who.learner or NO_COOKIE)
        place = self._addresses.get(address) or _Address()
        line = place.lines.get(name) or _Line(used_at=time.monotonic())
        limited = who is not None
        if limited:
            self._check_limits(place, line)
        if not self._may_start(place.running(), line, limited) and self._waiting >= self.queue_size:
            self._make_room(place, line)
        self._addresses[address] = place
        place.lines[name] = line
        granted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        entry = (next(self._arrivals), granted)
        line.waiting.append(entry)
        self._waiting += 1
        self._dispatch()
        try:
            started = await granted
        except SandboxBusy:  # its place went to another address's run (`_make_room`)
            self._forget_idle()
            raise
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled() and granted.exception() is None:
                # Granted as the caller gave up: the worker goes to the next in line.
                self.release(Slot(address, name, granted.result()))
            else:
                with contextlib.suppress(ValueError):
                    line.waiting.remove(entry)
                    self._waiting -= 1
                self._forget_idle()
            raise
        heavy = limited and line.usage(started) > HEAVY_S
        return Slot(address, name, started, HEAVY_NICE if heavy else 0)

    def release(self, slot: Slot) -> None:
        at = time.monotonic()
        line = self._addresses[slot.address].lines[slot.line]
        line.running.remove(slot.started)
        line.charge(at - slot.started, at)
        self._busy -= 1
        self._dispatch()
        self._forget_idle()

    def _check_limits(self, place: _Address, line: _Line) -> None:
        if len(line.waiting) >= self.per_key_waiting and not self._may_start(
            place.running(), line, True
        ):
            raise LearnerLimit(
                f"You already have {len(line.running)} runs in progress and "
                f"{len(line.waiting)} waiting; wait for one to finish.",
                retry_after=2,
            )

    def _may_start(self, place_running: int, line: _Line, limited: bool) -> bool:
        """Whether a run of `line`, whose address has `place_running` runs in progress, may
        take a free worker now: one is free, the line has fewer runs in progress than a learner
        may (when `limited`), and the worker is not one of the last `reserved`, which wait for
        an address with no run in progress."""
        free = self.workers - self._busy
        if free <= 0 or (limited and len(line.running) >= self.per_key_running):
            return False
        return free > self.reserved or place_running == 0

    def _dispatch(self) -> None:
        """Give every free worker to the address that has used the least, and there to the
        first run of the line that has used the least."""
        while True:
            at = time.monotonic()
            ready = [
                (place.usage(at), *first)
                for address, place in self._addresses.items()
                if (first := self._first_ready(address, place, at)) is not None
            ]
            if not ready:
                return
            line = min(ready, key=lambda entry: entry[:3])[3]
            _, granted = line.waiting.popleft()
            self._waiting -= 1
            if granted.cancelled():
                continue
            line.running.append(at)
            self._busy += 1
            granted.set_result(at)

    def _first_ready(
        self, address: str, place: _Address, at: float
    ) -> tuple[float, int, _Line] | None:
        """The line of `place` whose first run goes next: of those that may start a run, the
        one that has used the least (then the earliest to arrive)."""
        running, limited = place.running(), address != UNKEYED
        ready = [
            (line.usage(at), line.waiting[0][0], line)
            for line in place.lines.values()
            if line.waiting and self._may_start(running, line, limited)
        ]
        return min(ready, key=lambda entry: entry[:2], default=None)

    def _make_room(self, place: _Address, line: _Line) -> None:
        """The queue is full: take a place from the address with the most runs waiting, if it
        has at least two more than `place` (a swap between equals would only churn); within
        `place`, from its learner with the most, if two more than `line`. SandboxBusy when
        no one has."""
        most = max(self._addresses.values(), key=_Address.waiting, default=None)
        if most is not None and most is not place and most.waiting() > place.waiting() + 1:
            longest = max(most.lines.values(), key=_most_waiting)
        else:
            longest = max(place.lines.values(), key=_most_waiting, default=line)
            if len(longest.waiting) <= len(line.waiting) + 1:
                raise SandboxBusy("every worker is busy and the queue is full")
        _, pushed = longest.waiting.pop()  # its newest: it has waited the least
        self._waiting -= 1
        if not pushed.done():
            pushed.set_exception(
                SandboxBusy("every worker is busy and your place in the queue went to another")
            )

    def _forget_idle(self) -> None:
        # A line per learner ever seen would grow without bound; one with nothing waiting or
        # running and its use all but decayed away is the same as no line.
        at = time.monotonic()
        for address, place in list(self._addresses.items()):
            for name in [name for name, line in place.lines.items() if line.idle(at)]:
                del place.lines[name]
            if not place.lines:
                del self._addresses[address]
