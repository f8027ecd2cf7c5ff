"""Removing finished runs' scratch dirs without holding up the zygote.

Removing a dir takes as long as it has entries, and the zygote starts no run while it works. So
the zygote only renames a finished run's dir into the scratch root's `trash` folder (one system
call, whatever the dir holds) and hands its name to a cleaner: a small process of its own,
forked before torch is loaded, that removes it at a low CPU priority and answers one byte. The
zygote reports a run's exit once its dir is gone: a learner who fills dirs waits for their
removal before their next run, rather than everyone else. At most MAX_PENDING dirs wait for the
cleaner; past that (a cleaner that fell behind, or died) the zygote removes a dir itself, so
removal always keeps up. Either way a dir's cost is bounded: the zygote stops a run whose
scratch dir passes its cap on entries (scratch.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
from collections import deque
from collections.abc import Callable
from pathlib import Path

from app.sandbox.isolation import _prctl

MAX_PENDING = 16
TRASH = "trash"
CLEANER_NICE = 10
# Its process name, by which app/processes.py tells it from the zygote's runs.
NAME = b"gradlab-cleaner"
_PR_SET_NAME = 15
_libc = ctypes.CDLL(None, use_errno=True)


class Cleaner:
    def __init__(self, root: str) -> None:
        self.trash = Path(root) / TRASH
        self.trash.mkdir(mode=0o700, exist_ok=True)
        # The dirs handed over, in order, each with what to do once it is gone.
        self.waiting: deque[tuple[Path, Callable[[], None]]] = deque()
        self.alive = True
        work_r, self.work_w = os.pipe()
        self.done_r, done_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the cleaner: never returns
            status = 1
            try:
                status = _clean_forever(work_r, done_w)
            finally:
                os._exit(status)
        os.close(work_r)
        os.close(done_w)
        os.set_blocking(self.work_w, False)
        os.set_blocking(self.done_r, False)

    def discard(self, scratch: Path, then: Callable[[], None]) -> None:
        """Remove a finished run's scratch dir, then call `then`: soon, after the cleaner's
        answer; at once, if it is behind or gone."""
        trash = self.trash / scratch.name
        try:
            os.rename(scratch, trash)
        except OSError:
            trash = scratch
        if self.alive and len(self.waiting) < MAX_PENDING:
            try:
                os.write(self.work_w, os.fsencode(trash) + b"\n")
                self.waiting.append((trash, then))
                return
            except OSError:  # the cleaner is gone, or its pipe is full
                pass
        shutil.rmtree(trash, ignore_errors=True)
        then()

    def acknowledge(self) -> bool:
        """Take the cleaner's answers (its pipe is readable): one byte for each dir removed.
        False when the cleaner is gone: the zygote removes what it had, and all dirs after."""
        try:
            answers = os.read(self.done_r, 4096)
        except BlockingIOError:
            return True
        for _ in range(min(len(answers), len(self.waiting))):
            self.waiting.popleft()[1]()
        if answers:
            return True
        self.alive = False
        while self.waiting:
            trash, then = self.waiting.popleft()
            shutil.rmtree(trash, ignore_errors=True)
            then()
        return False

    def close(self) -> None:
        """No more work: the cleaner finishes what it has and exits."""
        for fd in (self.work_w, self.done_r):
            with contextlib.suppress(OSError):
                os.close(fd)


def _clean_forever(work_r: int, done_w: int) -> int:
    """In the cleaner: remove each dir named on `work_r`, answer a byte on `done_w`, until the
    zygote closes its end. It dies with the zygote and holds none of its other descriptors (the
    server notices the zygote's end when its socket closes)."""
    _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    _libc.prctl(_PR_SET_NAME, ctypes.c_char_p(NAME), 0, 0, 0)
    os.nice(CLEANER_NICE)
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2 and int(name) not in (work_r, done_w):
            with contextlib.suppress(OSError):
                os.close(int(name))
    with os.fdopen(work_r, "rb") as work:
        for line in work:
            shutil.rmtree(os.fsdecode(line.rstrip(b"\n")), ignore_errors=True)
            try:
                os.write(done_w, b".")
            except OSError:
                return 0  # the zygote is gone
    return 0
