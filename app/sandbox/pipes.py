"""Reading a run's pipes without blocking the event loop: output under a byte budget, the
result channel under a size cap."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

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


async def wait_readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, ready.set_result, None)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def chunks(fd: int) -> AsyncIterator[bytes]:
    """What arrives on a pipe, chunk by chunk, until end of file; the pipe is closed after."""
    os.set_blocking(fd, False)
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                await wait_readable(fd)
                continue
            if not chunk:
                return
            yield chunk
    finally:
        os.close(fd)


async def read_pipe(fd: int, budget: OutputBudget, stream: str, kill: Any) -> None:
    flooding = False
    async for chunk in chunks(fd):
        if not budget.take(stream, chunk) and not flooding:
            flooding = True
            kill("output")


async def read_limited(fd: int, limit: int) -> bytes | None:
    """Read the result channel; None when it is larger than `limit` (a forged or broken result)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks(fd):
        size += len(chunk)
        if size <= limit:
            parts.append(chunk)
    return b"".join(parts) if size <= limit else None
