"""Decide how a run ended: ok, error, timeout, memory or killed, with an explanation."""

from __future__ import annotations

import logging
import os
import signal
import time
from dataclasses import dataclass

from pydantic import ValidationError

from app.config.settings import Settings
from app.sandbox.backward_result import BackwardWalk
from app.sandbox.hints import hint_for
from app.sandbox.pipes import OutputBudget
from app.sandbox.protocol import SANDBOX_FAILED_EXIT
from app.sandbox.result import ChildReport, ErrorInfo, Graph, RunResult, Status, with_doctor
from app.sandbox.scratch import OVER_BYTES, OVER_ENTRIES

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


@dataclass(frozen=True)
class Ending:
    """How the child's process ended: the zygote's account of its exit, or, for an answer given
    as soon as the result was complete, status 0 and the server's own reason if any."""

    status: int  # a wait status, as from wait4()
    reason: str | None = None  # why it was killed: timeout, scratch, output, killed, ...
    cpu_s: float = 0.0

    @property
    def signal(self) -> int | None:
        return os.WTERMSIG(self.status) if os.WIFSIGNALED(self.status) else None


@dataclass(frozen=True)
class Judgement:
    status: Status
    error: ErrorInfo | None = None
    hide_stderr: bool = False  # the sandbox's own complaint, logged rather than shown


def verdict(
    ending: Ending,
    report: ChildReport | None,
    output: OutputBudget,
    settings: Settings,
    started_at: float,
) -> RunResult:
    """How a run ended, from how its process ended, the child's validated report (None when it
    sent none or a malformed one) and what it printed."""
    stderr = output.text("stderr")
    judgement = (
        _stopped(ending, output.flood_reason, settings)
        or _crashed(ending, report, stderr)
        or _outcome(report, stderr, settings)
    )
    result = RunResult(
        status=judgement.status,
        error=judgement.error,
        stdout=output.text("stdout"),
        stderr="" if judgement.hide_stderr else stderr,
        truncated=output.truncated,
        tensors=report.tensors if report is not None else [],
        graph=report.graph if report is not None else Graph(),
        backward=report.backward if report is not None else BackwardWalk(),
        duration_ms=elapsed_ms(started_at),
    )
    return with_doctor(result, report)


def _stopped(ending: Ending, flood_reason: str | None, s: Settings) -> Judgement | None:
    """Stopped at a limit: time, scratch space (bytes or entries) or output."""
    reason = ending.reason or flood_reason
    out_of_cpu = ending.signal == signal.SIGKILL and ending.cpu_s >= s.cpu_time_s
    if reason == "timeout" or ending.signal == signal.SIGXCPU or out_of_cpu:
        limit = f"{s.wall_time_s:g} s of wall-clock time or {s.cpu_time_s} s of CPU time"
        return Judgement(
            "timeout",
            ErrorInfo(
                type="Timeout",
                message=f"The snippet ran longer than {limit} and was stopped.",
                hint="Look for a loop that never ends, or make the work smaller.",
            ),
        )
    if reason == OVER_BYTES:
        return Judgement(
            "killed",
            ErrorInfo(
                type="ScratchSpaceExceeded",
                message=f"The snippet wrote more than {s.scratch_bytes // 1024} KiB of files.",
            ),
        )
    if reason == OVER_ENTRIES:
        return Judgement(
            "killed",
            ErrorInfo(
                type="TooManyFiles",
                message=f"The snippet made more than {s.scratch_entries} files in its scratch "
                "directory and was stopped.",
                hint=f"A run may keep up to {s.scratch_entries} files at once. Write fewer, "
                "larger files, or remove the ones you no longer need.",
            ),
        )
    if reason == "output":
        return Judgement(
            "killed",
            ErrorInfo(
                type="OutputLimitExceeded",
                message=f"The snippet printed far more than {s.output_bytes // 1024} KiB; "
                "it was stopped and its output cut.",
            ),
        )
    return None


def _crashed(ending: Ending, report: ChildReport | None, stderr: str) -> Judgement | None:
    """Died from a signal, refused by the sandbox, or ended without a report."""
    if ending.signal is not None:
        name = signal.Signals(ending.signal).name if ending.signal else "?"
        return Judgement(
            "killed",
            ErrorInfo(
                type="Killed",
                message=f"The Python process died from signal {name}.",
                hint="The interpreter crashed or was stopped; the next run starts afresh.",
            ),
        )
    exit_code = os.WEXITSTATUS(ending.status)
    if exit_code == SANDBOX_FAILED_EXIT:
        log.error("sandbox: a child refused to run: %s", stderr.strip())
        error = ErrorInfo(type="SandboxError", message="The sandbox could not confine this run.")
        return Judgement("killed", error, hide_stderr=True)
    if report is None:
        return Judgement(
            "killed",
            ErrorInfo(
                type="Killed",
                message=f"The process ended without reporting a result (exit code {exit_code}).",
            ),
        )
    return None


def _outcome(report: ChildReport | None, stderr: str, s: Settings) -> Judgement:
    """The snippet's own outcome: ok, or its exception explained (memory being a case of it)."""
    error = report.error if report is not None else None
    if error is None:
        return Judgement("ok")
    hint = hint_for(error.type, error.message, stderr)
    error = error.model_copy(
        update={"hint": hint.text if hint else None, "lesson": hint.lesson if hint else None}
    )
    out_of_memory = error.type == "MemoryError" or any(
        fragment in error.message for fragment in MEMORY_MESSAGES
    )
    if not out_of_memory:
        return Judgement("error", error)
    memory_hint = (
        f"A run may use {s.memory_mib} MiB of memory; this one asked for more. "
        "Work with smaller tensors."
    )
    return Judgement("memory", error.model_copy(update={"hint": memory_hint}))


def lost(message: str, output: OutputBudget | None, started_at: float) -> RunResult:
    """A run whose zygote went away under it."""
    return RunResult(
        status="killed",
        error=ErrorInfo(type="SandboxError", message=message),
        stdout=output.text("stdout") if output else "",
        stderr=output.text("stderr") if output else "",
        truncated=output.truncated if output else False,
        duration_ms=elapsed_ms(started_at),
    )
