"""One writer at a time on a SQLite file, without SQLite's sleeps.

SQLite lets one transaction write at a time. A writer that finds the file locked sleeps in steps
of up to 100 ms before it tries again (its busy handler), so under load answers waited seconds
behind one another. Writers queue here instead, and each finds the database free:
  - the threads of one process on a lock;
  - the processes sharing the file (`uvicorn --workers`, or several servers on one box) on an
    exclusive `flock` of a file beside it, which the kernel hands to the next waiter as soon as
    it is released, and drops if its holder dies.
PostgreSQL locks rows, not the database: it needs no turn (see `write_turn`).
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine

from app.progress.database import sqlite_lock_file

log = logging.getLogger("gradlab")


class WriteTurn:
    """A reentrant turn to write: nested turns of one thread take the file lock once."""

    def __init__(self, lock_file: Path | None) -> None:
        self.lock_file = lock_file
        self._threads = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def __enter__(self) -> WriteTurn:
        self._threads.acquire()
        try:
            if self._depth == 0 and self.lock_file is not None:
                if self._fd is None:
                    self._fd = self._open(self.lock_file)
                if self._fd is not None:
                    fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self._threads.release()
            raise
        self._depth += 1
        return self

    def _open(self, lock_file: Path) -> int | None:
        """The lock file, opened read-only (enough for flock, and possible when another user
        made it); None, with a warning, where it cannot be opened at all: writes then still
        land, and wait in SQLite's busy handler for other processes' writes."""
        try:
            return os.open(lock_file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            log.warning("writes will not take turns with other processes: %s", exc)
            self.lock_file = None
            return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            self._threads.release()


def write_turn(engine: Engine) -> AbstractContextManager[object]:
    """The turn writers of `engine` take: none on PostgreSQL; threads only for in-memory
    SQLite (no other process can see it); threads and processes for a SQLite file."""
    if engine.dialect.name != "sqlite":
        return nullcontext()
    return WriteTurn(sqlite_lock_file(engine, "write"))
