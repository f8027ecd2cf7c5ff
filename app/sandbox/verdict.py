"""Decide how a run ended: ok, error, timeout, memory or killed, with an explanation."""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any

from pydantic import ValidationError

from app.config import Settings
from app.sandbox.child import SANDBOX_FAILED_EXIT
from app.sandbox.hints import hint_for
from app.sandbox.pipes import OutputBudget
from app.sandbox.result import ChildReport, ErrorInfo, RunResult

log = logging.getLogger("gradlab.sandbox")
MEMORY_MESSAGES = ("can't allocate memory", "Cannot allocate memory", "out of memory")


def elapsed_ms(started_at: float) -> float:
    return round((time.perf_counter() - started_at) * 1000, 3)


def parse_report(raw: bytes | None) -> ChildReport | None:
    """The child's result, if it is well-formed (the child is untrusted)."""
    if not raw:
        return None
    try:
        return ChildReport.model_validate_json(raw)
    except ValidationError:
        return None


def verdict(
    exited: dict[str, Any],
    report: ChildReport | None,
    output: OutputBudget,
    settings: Settings,
    started_at: float,
) -> RunResult:
    """How a run ended, from the zygote's account of its exit (or the early "finished"), the
    child's validated report, and what it printed."""
    stdout, stderr = output.text("stdout"), output.text("stderr")
    common: dict[str, Any] = {
        "stdout": stdout,
        "stderr": stderr,
        "truncated": output.truncated,
        "duration_ms": elapsed_ms(started_at),
    }
    if exited.get("event") == "lost":
        return RunResult(
            status="killed",
            error=ErrorInfo(type="SandboxError", message=exited["message"]),
            **common,
        )
    status_code = int(exited["status"])
    reason = exited.get("reason") or output.flood_reason
    signalled = os.WIFSIGNALED(status_code)
    signal_number = os.WTERMSIG(status_code) if signalled else None
    if report is not None:
        common["tensors"] = report.tensors
        common["graph"] = report.graph
        common["backward"] = report.backward
    s = settings
    if (
        reason == "timeout"
        or signal_number == signal.SIGXCPU
        or (signal_number == signal.SIGKILL and float(exited.get("cpu_s", 0)) >= s.cpu_time_s)
    ):
        limit = f"{s.wall_time_s:g} s of wall-clock time or {s.cpu_time_s} s of CPU time"
        return RunResult(
            status="timeout",
            error=ErrorInfo(
                type="Timeout",
                message=f"The snippet ran longer than {limit} and was stopped.",
                hint="Look for a loop that never ends, or make the work smaller.",
            ),
            **common,
        )
    if reason == "scratch":
        return RunResult(
            status="killed",
            error=ErrorInfo(
                type="ScratchSpaceExceeded",
                message=f"The snippet wrote more than {s.scratch_bytes // 1024} KiB of files.",
            ),
            **common,
        )
    if reason == "output":
        return RunResult(
            status="killed",
            error=ErrorInfo(
                type="OutputLimitExceeded",
                message=f"The snippet printed far more than {s.output_bytes // 1024} KiB; "
                "it was stopped and its output cut.",
            ),
            **common,
        )
    if signalled:
        name = signal.Signals(signal_number).name if signal_number else "?"
        return RunResult(
            status="killed",
            error=ErrorInfo(
                type="Killed",
                message=f"The Python process died from signal {name}.",
                hint="The interpreter crashed or was stopped; the next run starts afresh.",
            ),
            **common,
        )
    if os.WEXITSTATUS(status_code) == SANDBOX_FAILED_EXIT:
        log.error("sandbox: a child refused to run: %s", stderr.strip())
        return RunResult(
            status="killed",
            error=ErrorInfo(type="SandboxError", message="The sandbox could not confine this run."),
            **{**common, "stderr": ""},
        )
    if report is None:
        return RunResult(
            status="killed",
            error=ErrorInfo(
                type="Killed",
                message="The process ended without reporting a result "
                f"(exit code {os.WEXITSTATUS(status_code)}).",
            ),
            **common,
        )
    error = report.error
    if error is None:
        return RunResult(status="ok", **common)
    hint = hint_for(error.type, error.message, stderr)
    error = error.model_copy(
        update={"hint": hint.text if hint else None, "lesson": hint.lesson if hint else None}
    )
    out_of_memory = error.type == "MemoryError" or any(
        fragment in error.message for fragment in MEMORY_MESSAGES
    )
    if out_of_memory:
        error = error.model_copy(
            update={
                "hint": (
                    f"A run may use {s.memory_mib} MiB of memory; this one asked for more. "
                    "Work with smaller tensors."
                )
            }
        )
    return RunResult(status="memory" if out_of_memory else "error", error=error, **common)
