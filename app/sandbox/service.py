"""The server's side of the sandbox: start the zygote, hand it runs, read what they print.

`Sandbox.run(code)` is the one entry point: it never raises for anything the snippet does; the
returned `RunResult.status` says how the run ended. It raises `SandboxBusy` when every worker is
taken and the queue is full, `SnippetTooLarge` for oversized code, and `SandboxUnavailable` when
the sandbox refuses to run (fail closed) or cannot start.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from app.config import ISOLATION_LAYERS, PROJECT_ROOT, Settings
from app.sandbox.hints import hint_for
from app.sandbox.result import ChildReport, ErrorInfo, RunResult
from app.sandbox.zygote import SANDBOX_FAILED_EXIT, ZygoteConfig, tree_size

log = logging.getLogger("gradlab.sandbox")

MAX_RESULT_BYTES = 4 << 20
# Output beyond the kept limit is read and dropped, up to this multiple; then the run is killed.
OUTPUT_FLOOD_FACTOR = 16
START_TIMEOUT_S = 120.0
# The zygote enforces the wall clock; this is the server's backstop should the zygote stall.
BACKSTOP_GRACE_S = 3.0
MEMORY_MESSAGES = ("can't allocate memory", "Cannot allocate memory", "out of memory")
# Environment variables the zygote may keep; everything else (secrets included) is dropped.
_INHERITED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ")


class SandboxBusy(Exception):
    """Every worker is busy and the queue is full."""


class SandboxUnavailable(Exception):
    """The sandbox is not running or refuses to run snippets; the message says why."""


class SnippetTooLarge(Exception):
    pass


def zygote_environment() -> dict[str, str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    env.update({name: os.environ[name] for name in _INHERITED_ENV if name in os.environ})
    return env


class _Zygote:
    """One running zygote process and the socket to it."""

    def __init__(self, process: subprocess.Popen[bytes], sock: socket.socket) -> None:
        self.process = process
        self.sock = sock
        self.ready: dict[str, Any] = {}
        self.alive = True


class Sandbox:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.workers = settings.workers
        self._slots = asyncio.Semaphore(settings.workers)
        self._waiting = 0
        self._ids = itertools.count(1)
        self._runs: dict[int, asyncio.Queue[tuple[dict[str, Any], list[int]]]] = {}
        self._zygote: _Zygote | None = None
        self._starting: asyncio.Task[None] | None = None
        self._problem: str | None = "not started"
        self._scratch_root: Path | None = None
        self._stopping = False
        # Set when the zygote refused to run snippets (a required layer is off): not retried
        # per request, since nothing but a configuration change can fix it.
        self._refused = False

    # --- lifecycle --------------------------------------------------------------------------
    def _make_scratch_root(self) -> Path:
        base = self.settings.scratch_root
        if base is not None:
            base.mkdir(parents=True, exist_ok=True)
        root = Path(tempfile.mkdtemp(prefix="gradlab-scratch-", dir=base))
        # Runs may enter their own directory below, never list this one.
        root.chmod(0o711)
        return root

    def _config(self) -> ZygoteConfig:
        s = self.settings
        if self._scratch_root is None:
            raise RuntimeError("start() makes the scratch root first")
        return ZygoteConfig(
            wall_time_s=s.wall_time_s,
            cpu_s=s.cpu_time_s,
            memory_bytes=s.memory_mib << 20,
            file_size_bytes=s.file_size_bytes,
            scratch_bytes=s.scratch_bytes,
            open_files=s.open_files,
            scratch_root=str(self._scratch_root),
            user=s.sandbox_user,
            relaxed=sorted(s.relax),
        )

    async def start(self) -> None:
        if self.settings.relax:
            log.warning(
                "SANDBOX RELAXED: isolation layers %s may be off (GRADLAB_RELAX). "
                "Never do this on a server others can reach.",
                ", ".join(sorted(self.settings.relax)),
            )
        self._scratch_root = self._make_scratch_root()
        await self._restart()

    async def _restart(self) -> None:
        if self._starting is None or self._starting.done():
            self._starting = asyncio.create_task(self._spawn())
        await asyncio.shield(self._starting)

    async def _spawn(self) -> None:
        self._discard_zygote("restarting")
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for end in (ours, theirs):
            end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        bootstrap = (
            "import sys; sys.path.insert(0, sys.argv[3]); "
            "from app.sandbox.zygote import main; main()"
        )
        config = json.dumps(asdict(self._config()))
        try:
            process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [
                    sys.executable,
                    "-I",
                    "-c",
                    bootstrap,
                    str(theirs.fileno()),
                    config,
                    str(PROJECT_ROOT),
                ],
                env=zygote_environment(),
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                cwd="/",
                start_new_session=True,
            )
        except OSError as exc:
            self._problem = f"cannot start the zygote: {exc}"
            log.error("sandbox: %s", self._problem)
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        zygote = _Zygote(process, ours)
        try:
            data = await asyncio.wait_for(loop.sock_recv(ours, 1 << 20), START_TIMEOUT_S)
            hello = json.loads(data) if data else {}
        except (TimeoutError, json.JSONDecodeError, OSError) as exc:
            hello = {"ok": False, "problem": f"the zygote did not start: {exc!r}"}
        if hello.get("event") != "ready":
            hello.setdefault("problem", f"the zygote exited (code {process.poll()})")
            hello["ok"] = False
        zygote.ready = hello
        self._zygote = zygote
        if not hello.get("ok"):
            self._problem = str(hello.get("problem") or "the zygote is not ready")
            self._refused = "event" in hello
            log.error("sandbox refuses to run snippets: %s", self._problem)
            self._discard_zygote(self._problem)
            self._zygote = zygote  # kept for its report in /healthz
            return
        self._problem = None
        loop.add_reader(ours.fileno(), self._on_message, zygote)
        log.info("sandbox ready: zygote pid %s, layers %s", process.pid, hello.get("layers"))

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
        with contextlib.suppress(subprocess.TimeoutExpired):
            zygote.process.wait(timeout=5)
        for queue in self._runs.values():
            queue.put_nowait(({"event": "lost", "message": why}, []))

    async def stop(self) -> None:
        self._stopping = True
        if self._starting is not None:
            with contextlib.suppress(BaseException):
                await self._starting
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
        if self._scratch_root is not None:
            shutil.rmtree(self._scratch_root, ignore_errors=True)

    def _on_message(self, zygote: _Zygote) -> None:
        while zygote.alive:
            try:
                data, fds, _, _ = socket.recv_fds(zygote.sock, 1 << 20, 8)
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
            message = json.loads(data)
            queue = self._runs.get(message.get("id"))
            if queue is None:
                for fd in fds:
                    os.close(fd)
                continue
            queue.put_nowait((message, list(fds)))

    def health(self) -> dict[str, Any]:
        zygote = self._zygote
        layers = dict((zygote.ready.get("layers") or {}) if zygote else {})
        for layer in ISOLATION_LAYERS:
            if layer not in layers and layer != "uid":
                layers[layer] = f"off: {self._problem or 'unknown'}"
        report: dict[str, Any] = {
            "ready": self._problem is None and zygote is not None and zygote.alive,
            "workers": self.workers,
            "busy": self.workers - self._slots._value,
            "queued": self._waiting,
            "isolation": layers,
        }
        if self._problem:
            report["problem"] = self._problem
        return report

    # --- runs -------------------------------------------------------------------------------
    async def run(self, code: str) -> RunResult:
        if len(code.encode("utf-8", errors="replace")) > self.settings.code_bytes:
            raise SnippetTooLarge(f"the snippet is larger than {self.settings.code_bytes} bytes")
        if self._slots.locked() and self._waiting >= self.settings.queue_size:
            raise SandboxBusy("every worker is busy and the queue is full")
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            return await self._run_in_zygote(code)
        finally:
            self._slots.release()

    async def _run_in_zygote(self, code: str) -> RunResult:
        if (self._zygote is None or not self._zygote.alive) and not (
            self._stopping or self._refused
        ):
            await self._restart()
        zygote = self._zygote
        if zygote is None or not zygote.alive or self._problem is not None:
            raise SandboxUnavailable(self._problem or "the sandbox is not running")
        run_id = next(self._ids)
        events: asyncio.Queue[tuple[dict[str, Any], list[int]]] = asyncio.Queue()
        self._runs[run_id] = events
        started_at = time.perf_counter()
        try:
            zygote.sock.send(json.dumps({"op": "run", "id": run_id, "code": code}).encode())
            return await self._follow(zygote, run_id, events, started_at)
        finally:
            del self._runs[run_id]

    async def _follow(
        self,
        zygote: _Zygote,
        run_id: int,
        events: asyncio.Queue[tuple[dict[str, Any], list[int]]],
        started_at: float,
    ) -> RunResult:
        try:
            message, fds = await asyncio.wait_for(events.get(), START_TIMEOUT_S)
        except TimeoutError:
            raise SandboxUnavailable("the sandbox did not start the run in time") from None
        if message["event"] == "failed":
            raise SandboxUnavailable(message.get("message") or "the sandbox could not start a run")
        if message["event"] == "lost":
            return RunResult(
                status="killed", error=ErrorInfo(type="SandboxError", message=message["message"])
            )
        stdout_fd, stderr_fd, result_fd = fds
        output = _OutputBudget(self.settings.output_bytes)

        def kill(reason: str) -> None:
            if zygote.alive:
                with contextlib.suppress(OSError):
                    zygote.sock.send(
                        json.dumps({"op": "kill", "id": run_id, "reason": reason}).encode()
                    )

        readers = asyncio.ensure_future(
            asyncio.gather(
                _read_pipe(stdout_fd, output, "stdout", kill),
                _read_pipe(stderr_fd, output, "stderr", kill),
                _read_limited(result_fd, MAX_RESULT_BYTES),
            )
        )
        exit_event = asyncio.ensure_future(events.get())
        deadline = time.monotonic() + self.settings.wall_time_s + BACKSTOP_GRACE_S
        try:
            waiting: set[asyncio.Future[Any]] = {readers, exit_event}
            done, _ = await asyncio.wait(
                waiting,
                timeout=deadline - time.monotonic(),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if exit_event not in done and readers in done:
                report = _parse_report(readers.result()[2])
                if report is not None and output.flood_reason is None:
                    # A complete result and closed output: answer now rather than wait for
                    # the process's exit, which takes milliseconds to unmap its memory.
                    exit_event.cancel()
                    reason = None
                    if tree_size(Path(message["scratch"])) > self.settings.scratch_bytes:
                        reason = "scratch"
                        kill(reason)
                    finished = {"event": "finished", "status": 0, "reason": reason}
                    return self._verdict(finished, report, output, started_at)
            exited, _ = await asyncio.wait_for(exit_event, deadline - time.monotonic())
            await asyncio.wait_for(readers, deadline - time.monotonic())
        except TimeoutError:
            exit_event.cancel()
            log.error("sandbox: run %s outlived the zygote's wall clock; restarting it", run_id)
            kill("timeout")
            self._discard_zygote("the sandbox stalled")
            self._starting = asyncio.ensure_future(self._spawn())
            return RunResult(
                status="timeout",
                stdout=output.text("stdout"),
                stderr=output.text("stderr"),
                truncated=output.truncated,
                duration_ms=_elapsed_ms(started_at),
            )
        return self._verdict(exited, _parse_report(readers.result()[2]), output, started_at)

    def _verdict(
        self,
        exited: dict[str, Any],
        report: ChildReport | None,
        output: _OutputBudget,
        started_at: float,
    ) -> RunResult:
        stdout, stderr = output.text("stdout"), output.text("stderr")
        common: dict[str, Any] = {
            "stdout": stdout,
            "stderr": stderr,
            "truncated": output.truncated,
            "duration_ms": _elapsed_ms(started_at),
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
        s = self.settings
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
                error=ErrorInfo(
                    type="SandboxError", message="The sandbox could not confine this run."
                ),
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


def _elapsed_ms(started_at: float) -> float:
    return round((time.perf_counter() - started_at) * 1000, 3)


def _parse_report(raw: bytes | None) -> ChildReport | None:
    if not raw:
        return None
    try:
        return ChildReport.model_validate_json(raw)
    except ValidationError:
        return None


class _OutputBudget:
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


async def _wait_readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, ready.set_result, None)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def _chunks(fd: int) -> AsyncIterator[bytes]:
    """What arrives on a pipe, chunk by chunk, until end of file; the pipe is closed after."""
    os.set_blocking(fd, False)
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                await _wait_readable(fd)
                continue
            if not chunk:
                return
            yield chunk
    finally:
        os.close(fd)


async def _read_pipe(fd: int, budget: _OutputBudget, stream: str, kill: Any) -> None:
    flooding = False
    async for chunk in _chunks(fd):
        if not budget.take(stream, chunk) and not flooding:
            flooding = True
            kill("output")


async def _read_limited(fd: int, limit: int) -> bytes | None:
    """Read the result channel; None when it is larger than `limit` (a forged or broken result)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in _chunks(fd):
        size += len(chunk)
        if size <= limit:
            parts.append(chunk)
    return b"".join(parts) if size <= limit else None
