"""What the server asks of a sandbox once it runs, as a type: a run, its health, its longest
line. A `Sandbox` (service.py) is one; so is a wrapper around one, such as the meter every
sandbox an app runs on passes through (app/web/metrics.py's `MeteredSandbox`)."""

from __future__ import annotations

from typing import NotRequired, Protocol, TypedDict

from app.config.settings import Settings
from app.sandbox.fair import Who
from app.sandbox.result import RunResult


class SandboxHealth(TypedDict):
    ready: bool
    workers: int
    busy: int
    queued: int
    isolation: dict[str, str]
    problem: NotRequired[str]


class SnippetRunner(Protocol):
    """A sandbox as the server uses it once it runs."""

    settings: Settings  # the limits it runs with

    async def run(self, code: str, who: Who | None = None, doctor: bool = False) -> RunResult: ...

    def health(self) -> SandboxHealth: ...

    def longest_line(self) -> int: ...
