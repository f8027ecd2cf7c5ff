"""Reading a run's pipes without blocking the event loop: output under a byte budget, the
result channel under a size cap."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

# Output beyond the kept limit is read and dropped, up to this multiple; then the run is killed.
OUTPUT_FLOOD_FACTOR = 16


class OutputBudget:
    """stdout and stderr share one byte budget; past it the rest is dropped, then the run killed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = 0
        self.seen = 0
        self.parts: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        self.truncated = False
        self.flood_reason: str | None = None

    def take(self, stream: str, chunk: bytes) -> bool:
        """Keep what fits; return False once the run should be killed for flooding."""
        self.seen += len(chunk)
        room = self.limit - self.kept
        if room > 0:
            self.parts[stream].append(chunk[:room])
            self.kept += min(room, len(chunk))
        if len(chunk) > room:
            self.truncated = True
        if self.seen > self.limit * OUTPUT_FLOOD_FACTOR:
            self.flood_reason = "output"
            return False
        return True

    def text(self, stream: str) -> str:
        return b"".join(self.parts[stream]).decode("utf-8", errors="replace")


class RunPipes:
    """A run's stdout, stderr and result pipes, read by plain event-loop callbacks: no task, no
    future per chunk. `done` resolves once all three are at end of file (or `close` is called).
    Output goes into an `OutputBudget`; the result is kept up to `result_limit` bytes, beyond
    which it is read and dropped (`result` is then None: a forged or broken report)."""

    # Reads per wake-up and pipe: a child writing without pause cannot starve the event loop.
    READS_PER_WAKE = 4

    def __init__(
        self,
        fds: tuple[int, int, int],
        budget: OutputBudget,
        result_limit: int,
        kill: Callable[[str], None],
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.budget = budget
        self.result_limit = result_limit
        self.kill = kill
        self.done: asyncio.Future[None] = self.loop.create_future()
        self._result: list[bytes] = []
        self._result_size = 0
        self._flooding = False
        self._open: dict[int, str] = {}
        for fd, stream in zip(fds, ("stdout", "stderr", "result"), strict=True):
            os.set_blocking(fd, False)
            self._open[fd] = stream
            self.loop.add_reader(fd, self._readable, fd)

    @property
    def result(self) -> bytes | None:
        if self._result_size > self.result_limit:
            return None
        return b"".join(self._result)

    def _readable(self, fd: int) -> None:
        stream = self._open[fd]
        for _ in range(self.READS_PER_WAKE):
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._close(fd)
                return
            self._take(stream, chunk)

    def _take(self, stream: str, chunk: bytes) -> None:
        if stream == "result":
            self._result_size += len(chunk)
            if self._result_size <= self.result_limit:
                self._result.append(chunk)
        elif not self.budget.take(stream, chunk) and not self._flooding:
            self._flooding = True
            self.kill("output")

    def _close(self, fd: int) -> None:
        self.loop.remove_reader(fd)
        os.close(fd)
        del self._open[fd]
        if not self._open and not self.done.done():
            self.done.set_result(None)

    def close(self) -> None:
        """Stop reading (a run given up on); what was read so far stays."""
        for fd in list(self._open):
            self._close(fd)
