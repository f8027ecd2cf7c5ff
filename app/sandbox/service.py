"""The server's side of the sandbox: start the zygote, hand it runs, read what they print.

`Sandbox.run(code, who)` is the one entry point: it never raises for anything the snippet does;
the returned `RunResult.status` says how the run ended. It raises `SandboxBusy` when every worker
is taken and the queue is full, `LearnerLimit` when `who` (a learner at a client address) has as
many runs in progress and waiting as it may, `SnippetTooLarge` for oversized code, and
`SandboxUnavailable` when the sandbox refuses to run (fail closed) or cannot start. Who runs
next is fair between addresses, then between the learners of each (app/sandbox/fair.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from app.config.settings import ISOLATION_LAYERS, Settings
from app.errors import SandboxUnavailable, SnippetTooLarge
from app.sandbox.fair import FairQueue, Who
from app.sandbox.launch import (
    START_TIMEOUT_S,
    ZygoteProcess,
    launch_zygote,
    make_scratch_root,
    zygote_config,
)
from app.sandbox.pipes import OutputBudget, RunPipes
from app.sandbox.protocol import (
    MAX_PACKET,
    KillOp,
    ProtocolError,
    RunOp,
    Started,
    decode_event,
    encode,
)
from app.sandbox.result import KILLED, ChildReport, RunResult
from app.sandbox.runner import SandboxHealth
from app.sandbox.scratch import over_limit
from app.sandbox.timeline import PhaseLog, now
from app.sandbox.tracking import Event, FollowedRun, Lost, never_started, remaining
from app.sandbox.verdict import Ending, elapsed_ms, lost, verdict

log = logging.getLogger("gradlab.sandbox")

MAX_RESULT_BYTES = 4 << 20
# The zygote enforces the wall clock; this is the server's backstop should the zygote stall.
BACKSTOP_GRACE_S = 3.0


class _ChildLost(Exception):
    """The run's child died before it received its code."""


def _reap(process: subprocess.Popen[bytes]) -> None:
    """Collect a killed zygote's exit status, so that it leaves no zombie."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


class Sandbox:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.workers = settings.workers
        self._line = FairQueue(
            settings.workers,
            settings.queue_size,
            settings.runs_per_learner,
            settings.queued_per_learner,
            settings.reserved_workers,
        )
        self._ids = itertools.count(1)
        self._runs: dict[int, asyncio.Queue[Event]] = {}
        self._zygote: ZygoteProcess | None = None
        self._starting: asyncio.Task[None] | None = None
        self._problem: str | None = "not started"
        self._scratch_root: Path | None = None
        self._stopping = False
        # Discarded zygotes being reaped off the event loop; `stop()` waits for them.
        self._reaping: set[asyncio.Future[Any]] = set()
        # Set when the zygote refused to run snippets (a required layer is off): not retried
        # per request, since nothing but a configuration change can fix it.
        self._refused = False
        self._phases = PhaseLog()

    # --- lifecycle --------------------------------------------------------------------------
    async def start(self) -> None:
        if self.settings.relax:
            log.warning(
                "SANDBOX RELAXED: isolation layers %s may be off (GRADLAB_RELAX). "
                "Never do this on a server others can reach.",
                ", ".join(sorted(self.settings.relax)),
            )
        self._scratch_root = make_scratch_root(self.settings.scratch_root)
        await self._restart()

    async def _restart(self) -> None:
        if self._starting is None or self._starting.done():
            self._starting = asyncio.create_task(self._spawn())
        await asyncio.shield(self._starting)

    async def _spawn(self) -> None:
        self._discard_zygote("restarting")
        if self._scratch_root is None:
            raise RuntimeError("start() makes the scratch root first")
        launch = await launch_zygote(zygote_config(self.settings, self._scratch_root))
        zygote = launch.zygote
        self._zygote = zygote
        self._problem = launch.problem
        if launch.problem is not None:
            self._refused = launch.refused
            log.error("sandbox refuses to run snippets: %s", launch.problem)
            self._discard_zygote(launch.problem)
            self._zygote = zygote  # kept for its report in /healthz
            return
        assert zygote is not None  # noqa: S101 - a launch without a problem has a zygote
        asyncio.get_running_loop().add_reader(zygote.sock.fileno(), self._on_message, zygote)
        log.info("sandbox ready: zygote pid %s, layers %s", zygote.process.pid, zygote.layers)

    def _discard_zygote(self, why: str) -> None:
        zygote = self._zygote
        if zygote is None:
            return
        self._zygote = None
        if zygote.alive:
            zygote.alive = False
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(zygote.sock.fileno())
            zygote.sock.close()
        if zygote.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                zygote.process.kill()
            # Reaped in a thread: a wait here would hold every request for as long as it took.
            reap = asyncio.ensure_future(asyncio.to_thread(_reap, zygote.process))
            self._reaping.add(reap)
            reap.add_done_callback(self._reaping.discard)
        for queue in self._runs.values():
            queue.put_nowait((Lost(why), []))

    async def stop(self) -> None:
        self._stopping = True
        if self._starting is not None:
            # Waited for, not awaited: a failed start is the start's to report (it logged why),
            # and a cancellation of this stop goes on up instead of being swallowed here.
            await asyncio.wait([self._starting])
            if not self._starting.cancelled() and self._starting.exception() is not None:
                log.info("sandbox: stopping after a failed start")
        zygote = self._zygote
        if zygote is not None and zygote.alive:
            # Closing the socket tells the zygote to kill its children and exit.
            asyncio.get_running_loop().remove_reader(zygote.sock.fileno())
            zygote.sock.close()
            zygote.alive = False
            try:
                await asyncio.to_thread(zygote.process.wait, 5)
            except subprocess.TimeoutExpired:
                zygote.process.kill()
        self._zygote = None
        if self._reaping:
            await asyncio.wait(set(self._reaping))
        if self._scratch_root is not None:
            shutil.rmtree(self._scratch_root, ignore_errors=True)
        self._phases.close()

    def _on_message(self, zygote: ZygoteProcess) -> None:
        while zygote.alive:
            try:
                data, fds, _, _ = socket.recv_fds(zygote.sock, MAX_PACKET, 8)
            except BlockingIOError:
                return
            except OSError:
                data, fds = b"", []
            if not data:
                log.error("sandbox: the zygote died (exit %s); restarting", zygote.process.poll())
                self._discard_zygote("the sandbox restarted during the run")
                if not self._stopping:
                    self._starting = asyncio.ensure_future(self._spawn())
                return
            self._deliver(data, list(fds))

    def _deliver(self, data: bytes, fds: list[int]) -> None:
        """Hand a message to the run it is about; the file descriptors of none are closed."""
        try:
            message = decode_event(data)
        except ProtocolError as exc:
            log.error("sandbox: a malformed message from the zygote: %s", exc)
            message = None
        queue = None
        if message is not None and message["event"] != "ready":
            queue = self._runs.get(message["id"])
        if message is None or queue is None:
            for fd in fds:
                os.close(fd)
            return
        queue.put_nowait((message, fds))

    def health(self) -> SandboxHealth:
        zygote = self._zygote
        layers = dict(zygote.layers if zygote else {})
        for layer in ISOLATION_LAYERS:
            if layer not in layers and layer != "uid":
                layers[layer] = f"off: {self._problem or 'unknown'}"
        report = SandboxHealth(
            ready=self._problem is None and zygote is not None and zygote.alive,
            workers=self.workers,
            busy=self._line.busy,
            queued=self._line.waiting,
            isolation=layers,
        )
        if self._problem:
            report["problem"] = self._problem
        return report

    # --- runs -------------------------------------------------------------------------------
    def longest_line(self) -> int:
        """The most runs one learner has waiting."""
        return self._line.longest_line()

    async def run(self, code: str, who: Who | None = None, doctor: bool = False) -> RunResult:
        """Run `code` in the line of `who` (a client address and its learner), or None for
        the server's own runs, which share a line without the per-learner limits. With
        `doctor`, the gradient doctor watches the run (`RunResult.doctor()`)."""
        marks = {"enter": now()}
        if len(code.encode("utf-8", errors="replace")) > self.settings.code_bytes:
            raise SnippetTooLarge(f"the snippet is larger than {self.settings.code_bytes} bytes")
        slot = await self._line.acquire(who)
        try:
            result = await self._run_in_zygote(code, marks, slot.nice, doctor)
        finally:
            self._line.release(slot)
        marks["answered"] = now()
        self._phases.write(marks)
        if result.status in KILLED:  # on the request's log line too, for whoever follows it up
            log.info("sandbox: run killed (%s) after %.0f ms", result.status, result.duration_ms)
        return result

    async def _run_in_zygote(
        self, code: str, marks: dict[str, float], nice: int, doctor: bool = False
    ) -> RunResult:
        if (self._zygote is None or not self._zygote.alive) and not (
            self._stopping or self._refused
        ):
            await self._restart()
        zygote = self._zygote
        if zygote is None or not zygote.alive or self._problem is not None:
            raise SandboxUnavailable(self._problem or "the sandbox is not running")
        started_at = time.perf_counter()
        # A child killed from outside before it read the code ran nothing of the snippet, so
        # running it again on a fresh child is safe. Whoever killed it may have killed the
        # spares too, and a spare still dying looks alive to the zygote: one try more than
        # there are spares reaches a child forked after the kill.
        for _ in range(self.settings.spares + 1):
            try:
                return await self._attempt(zygote, (code, doctor), nice, started_at, marks, True)
            except _ChildLost:
                log.warning("sandbox: a child died before starting its run; running it again")
        return await self._attempt(
            zygote, (code, doctor), nice, started_at, marks, retry_if_lost=False
        )

    async def _attempt(
        self,
        zygote: ZygoteProcess,
        job: tuple[str, bool],  # the code, and whether the doctor watches
        nice: int,
        started_at: float,
        marks: dict[str, float],
        retry_if_lost: bool,
    ) -> RunResult:
        run_id = next(self._ids)
        events: asyncio.Queue[Event] = asyncio.Queue()
        self._runs[run_id] = events
        try:
            marks["sent"] = now()
            code, doctor = job
            op = RunOp(op="run", id=run_id, code=code, nice=nice, doctor=doctor)
            zygote.sock.send(encode(op))
            started, fds = await self._started(events)
            if isinstance(started, Lost):
                return lost(started.message, None, started_at)
            marks.update(started["marks"])
            kill = functools.partial(self._kill, zygote, run_id)
            output = OutputBudget(self.settings.output_bytes)
            run = FollowedRun(
                kill=kill,
                scratch=Path(started["scratch"]),
                pipes=RunPipes((fds[0], fds[1], fds[2]), output, MAX_RESULT_BYTES, kill),
                exit_event=asyncio.ensure_future(events.get()),
                marks=marks,
            )
            return await self._follow(run, run_id, started_at, retry_if_lost)
        finally:
            del self._runs[run_id]

    @staticmethod
    async def _started(events: asyncio.Queue[Event]) -> tuple[Started | Lost, list[int]]:
        """The zygote's word that the run started, with the run's pipes."""
        try:
            message, fds = await asyncio.wait_for(events.get(), START_TIMEOUT_S)
        except TimeoutError:
            raise SandboxUnavailable("the sandbox did not start the run in time") from None
        if isinstance(message, Lost):
            return message, fds
        if message["event"] == "failed":
            raise SandboxUnavailable(message["message"] or "the sandbox could not start a run")
        if message["event"] != "started" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            raise SandboxUnavailable(f"the sandbox answered {message['event']!r} to a run")
        return message, fds

    def _kill(self, zygote: ZygoteProcess, run_id: int, reason: str) -> None:
        if zygote.alive:
            with contextlib.suppress(OSError):
                zygote.sock.send(encode(KillOp(op="kill", id=run_id, reason=reason)))

    async def _follow(
        self, run: FollowedRun, run_id: int, started_at: float, retry_if_lost: bool
    ) -> RunResult:
        """Read the run's output until it ends; judge it."""
        deadline = time.monotonic() + self.settings.wall_time_s + BACKSTOP_GRACE_S
        try:
            ending, report = await self._ending(run, deadline, retry_if_lost)
        except TimeoutError:
            return self._stalled(run, run_id, started_at)
        finally:
            run.exit_event.cancel()
            run.pipes.close()
        if isinstance(ending, Lost):
            return lost(ending.message, run.pipes.budget, started_at)
        return verdict(ending, report, run.pipes.budget, self.settings, started_at)

    async def _ending(
        self, run: FollowedRun, deadline: float, retry_if_lost: bool
    ) -> tuple[Ending | Lost, ChildReport | None]:
        """How the run ended and its report: as soon as its result is complete and its output
        closed, rather than after its process's exit, which takes milliseconds to unmap its
        memory; or else from the zygote's account of the exit. TimeoutError past `deadline`."""
        waiting: set[asyncio.Future[Any]] = {run.pipes.done, run.exit_event}
        done, _ = await asyncio.wait(
            waiting,
            timeout=remaining(deadline),
            return_when=asyncio.FIRST_COMPLETED,
        )
        # Killed at its wall clock, a run closes its pipes too, perhaps after a report it wrote
        # itself: past the zygote's deadline only the zygote's account says how the run ended.
        in_time = now() < run.marks.get("handed", -float("inf")) + self.settings.wall_time_s
        if run.exit_event not in done and run.pipes.done in done and in_time:
            report = run.report()
            if report is not None and run.pipes.budget.flood_reason is None:
                s = self.settings
                reason = over_limit(run.scratch, s.scratch_bytes, s.scratch_entries)
                # A dir already gone was the zygote's to judge: its account of the exit says.
                # Looked at before the kill below, whose own exit (SIGKILL) would otherwise be
                # that account when the zygote removes the dir first.
                judged_here = reason is not None or run.scratch.exists()
                # The run is over by its own word, and the answer frees its worker: whatever it
                # still runs (a snippet that wrote a report itself and went on) is stopped.
                run.kill(reason or "finished")
                if judged_here:
                    return Ending(status=0, reason=reason), report
        message, _ = await asyncio.wait_for(run.exit_event, remaining(deadline))
        await asyncio.wait_for(run.pipes.done, remaining(deadline))
        if isinstance(message, Lost):
            return message, None
        if message["event"] != "exited":
            return Lost(f"the sandbox answered {message['event']!r} instead of an exit"), None
        ending = Ending(message["status"], message["reason"], message["cpu_s"])
        if retry_if_lost and never_started(run.pipes.result, ending):
            raise _ChildLost
        return ending, run.report()

    def _stalled(self, run: FollowedRun, run_id: int, started_at: float) -> RunResult:
        """The zygote did not end the run by its wall clock: restart it."""
        log.error("sandbox: run %s outlived the zygote's wall clock; restarting it", run_id)
        run.kill("timeout")
        self._discard_zygote("the sandbox stalled")
        self._starting = asyncio.ensure_future(self._spawn())
        output = run.pipes.budget
        return RunResult(
            status="timeout",
            stdout=output.text("stdout"),
            stderr=output.text("stderr"),
            truncated=output.truncated,
            duration_ms=elapsed_ms(started_at),
        )
