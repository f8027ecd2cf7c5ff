"""A run the server is following: its pipes, its exit to come, and what the zygote may say."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.sandbox.pipes import RunPipes
from app.sandbox.protocol import FromZygote
from app.sandbox.result import ChildReport
from app.sandbox.shared import CODE_RECEIVED
from app.sandbox.timeline import now
from app.sandbox.verdict import Ending, parse_report


@dataclass(frozen=True)
class Lost:
    """Put in every run's queue when the zygote goes away under it."""

    message: str


# What a run's queue receives: a message from the zygote with its file descriptors, or Lost.
Event = tuple[FromZygote | Lost, list[int]]


def without_marker(raw: bytes | None) -> bytes | None:
    return raw[len(CODE_RECEIVED) :] if raw and raw.startswith(CODE_RECEIVED) else raw


def never_started(raw: bytes | None, ending: Ending) -> bool:
    """Did the child die from outside before it acknowledged its code? (Then nothing of the
    snippet ran, and running it again on a fresh child is safe.)"""
    acknowledged = raw is None or raw.startswith(CODE_RECEIVED)
    return not acknowledged and ending.reason is None and ending.signal is not None


def remaining(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


@dataclass
class FollowedRun:
    """One run being followed: its pipes, its exit to come, and how to kill it."""

    kill: Callable[[str], None]
    scratch: Path
    pipes: RunPipes
    exit_event: asyncio.Future[Event]
    marks: dict[str, float]

    def report(self) -> ChildReport | None:
        self.marks["output"] = now()
        report = parse_report(without_marker(self.pipes.result))
        self.marks["parsed"] = now()
        if report is not None:
            self.marks.update(report.marks)
        return report
