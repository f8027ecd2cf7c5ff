"""Who runs next: one line per learner, and a free worker serves the learner who has had the
least of the sandbox lately.

The sandbox's workers are shared by everyone on the server. First come, first served lets one
learner with fifteen runs waiting hold up a learner with one; here each key (an opaque string:
the routes pass the learner's id, or the client's address when there is no learner) has its own
line, and a free worker takes the first run of the line whose key has used the least worker
time lately: the seconds its finished runs held a worker, halved every `USAGE_HALF_LIFE_S`, plus
the time its runs in progress have held one so far. A learner who has not run for a while starts
level with a newcomer; a learner who keeps every worker they may have busy falls behind everyone
else until the others are served.

Limits per key (GRADLAB_RUNS_PER_LEARNER, GRADLAB_QUEUED_PER_LEARNER): runs at once, and runs
waiting. Beyond them `LearnerLimit`; beyond the server's queue (GRADLAB_QUEUE_SIZE), `SandboxBusy`.
Unkeyed runs (the lesson checker, tests) share one line, without the per-key limits.
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
UNKEYED = ""


@dataclass
class _Line:
    """One key's runs: waiting (in arrival order), in progress (their start times), and its
    worker time so far, decayed."""

    waiting: deque[tuple[int, asyncio.Future[float]]] = field(default_factory=deque)
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


@dataclass(frozen=True)
class Slot:
    """A worker granted to a key: give it back with `FairQueue.release`. `nice`: the CPU
    niceness its run gets (HEAVY_NICE for a key that has used more than HEAVY_S lately)."""

    key: str
    started: float
    nice: int = 0


class FairQueue:
    def __init__(
        self, workers: int, queue_size: int, per_key_running: int, per_key_waiting: int
    ) -> None:
        self.workers = workers
        self.queue_size = queue_size
        self.per_key_running = per_key_running
        self.per_key_waiting = per_key_waiting
        self._lines: dict[str, _Line] = {}
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
        """The most runs one key has waiting."""
        return max((len(line.waiting) for line in self._lines.values()), default=0)

    # --- taking and giving back a worker ---------------------------------------------------
    async def acquire(self, key: str | None) -> Slot:
        """Wait for a worker, in `key`'s line (None: the unkeyed line, without per-key limits).
        Raises LearnerLimit or QueueFull at once rather than wait past a limit."""
        name = UNKEYED if key is None else key
        line = self._lines.get(name) or _Line(used_at=time.monotonic())
        if key is not None:
            self._check_limits(line)
        if self._busy >= self.workers and self._waiting >= self.queue_size:
            raise SandboxBusy("every worker is busy and the queue is full")
        self._lines[name] = line
        granted: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        entry = (next(self._arrivals), granted)
        line.waiting.append(entry)
        self._waiting += 1
        self._dispatch()
        try:
            started = await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                # Granted as the caller gave up: the worker goes to the next in line.
                self.release(Slot(name, granted.result()))
            else:
                with contextlib.suppress(ValueError):
                    line.waiting.remove(entry)
                    self._waiting -= 1
                self._forget_idle()
            raise
        heavy = name != UNKEYED and line.usage(started) > HEAVY_S
        return Slot(name, started, HEAVY_NICE if heavy else 0)

    def release(self, slot: Slot) -> None:
        at = time.monotonic()
        line = self._lines[slot.key]
        line.running.remove(slot.started)
        line.charge(at - slot.started, at)
        self._busy -= 1
        self._dispatch()
        self._forget_idle()

    def _check_limits(self, line: _Line) -> None:
        runs_now = self._busy < self.workers and len(line.running) < self.per_key_running
        if len(line.waiting) >= self.per_key_waiting and not runs_now:
            raise LearnerLimit(
                f"You already have {len(line.running)} runs in progress and "
                f"{len(line.waiting)} waiting; wait for one to finish.",
                retry_after=2,
            )

    def _dispatch(self) -> None:
        """Give every free worker to the first run of the line that has used the least."""
        while self._busy < self.workers:
            at = time.monotonic()
            ready = [
                (line.usage(at), line.waiting[0][0], line)
                for name, line in self._lines.items()
                if line.waiting and (name == UNKEYED or len(line.running) < self.per_key_running)
            ]
            if not ready:
                return
            _, _, line = min(ready, key=lambda entry: entry[:2])
            _, granted = line.waiting.popleft()
            self._waiting -= 1
            if granted.cancelled():
                continue
            line.running.append(at)
            self._busy += 1
            granted.set_result(at)

    def _forget_idle(self) -> None:
        # A line per key ever seen would grow without bound; one with nothing waiting or
        # running and its use all but decayed away is the same as no line.
        at = time.monotonic()
        for name in [name for name, line in self._lines.items() if line.idle(at)]:
            del self._lines[name]
