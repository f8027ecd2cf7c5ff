"""Waiting until a run has really started, for tests that then kill something under it.

A snippet that calls `MARK` writes a file into its own scratch directory (which it may write);
`wait_until_started` polls the sandbox's scratch root for it. A fixed delay instead would race
with a loaded machine, where a run can take more than a second to start.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

from app.sandbox.result import RunResult
from app.sandbox.service import Sandbox
from tests.conftest import SandboxHarness, wait_until

MARKER = "run-has-started"
MARK = f"open({MARKER!r}, 'w').close()\n"


def wait_until_started(sandbox: Sandbox, timeout: float = 60) -> None:
    root = sandbox._scratch_root
    assert root is not None, "the sandbox has not started"
    if not wait_until(lambda: any(root.glob(f"*/{MARKER}")), timeout=timeout):
        raise AssertionError(f"no run wrote {MARKER} within {timeout} s")


def submit(harness: SandboxHarness, code: str) -> Future[RunResult]:
    """Start a run without waiting for it."""
    return asyncio.run_coroutine_threadsafe(harness.sandbox.run(code), harness.loop)
