"""Timestamps along a run's critical path, for the benchmark's phase table.

Every run records a handful of CLOCK_MONOTONIC readings, a clock every process on the machine
shares: the server's own, the zygote's (in its "started" message) and the child's (in its
report). They never reach the HTTP payload. With the environment variable
GRADLAB_SANDBOX_PHASES set to a file path, the server appends one JSON line of them per run to
that file: a debugging switch for `benchmarks/bench_sandbox.py`, not a setting.
"""

from __future__ import annotations

import json
import os
import time
from typing import TextIO

PHASES_ENV = "GRADLAB_SANDBOX_PHASES"

# Critical-path marks in the order a run passes them; the benchmark names the gaps between them.
ORDER = (
    "enter",  # server: Sandbox.run() called
    "sent",  # server: a worker slot taken, the code sent to the zygote
    "received",  # zygote: the run's message read
    "handed",  # zygote: a spare child taken, about to be given the code
    "code",  # child: the code read, about to compile it
    "ran",  # child: the snippet finished, output flushed
    "inspected",  # child: tensors and graph described
    "output",  # server: result and output pipes all at end of file
    "parsed",  # server: the child's report validated
    "answered",  # server: the RunResult built
)


def now() -> float:
    return time.monotonic()


class PhaseLog:
    """Where a run's marks go when GRADLAB_SANDBOX_PHASES names a file; nowhere otherwise."""

    def __init__(self, path: str | None = None) -> None:
        path = path if path is not None else os.environ.get(PHASES_ENV)
        self._file: TextIO | None = open(path, "a", buffering=1) if path else None  # noqa: SIM115

    @property
    def enabled(self) -> bool:
        return self._file is not None

    def write(self, marks: dict[str, float]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(marks) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
