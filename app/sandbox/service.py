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
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from app.config import ISOLATION_LAYERS, PROJECT_ROOT, Settings
from app.sandbox.child import CODE_RECEIVED
from app.sandbox.pipes import OutputBudget, RunPipes
from app.sandbox.result import ErrorInfo, RunResult
from app.sandbox.timeline import PhaseLog, now
from app.sandbox.verdict import elapsed_ms, parse_report, verdict
from app.sandbox.zygote import ZygoteConfig, tree_size

log = logging.getLogger("gradlab.sandbox")

MAX_RESULT_BYTES = 4 << 20
START_TIMEOUT_S = 120.0
# The zygote enforces the wall clock; this is the server's backstop should the zygote stall.
BACKSTOP_GRACE_S = 3.0
# Environment variables the zygote may keep; everything else (secrets included) is dropped.
_INHERITED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ")


class SandboxBusy(Exception):
    """Every worker is busy and the queue is full."""


class SandboxUnavailable(Exception):
    """The sandbox is not running or refuses to run snippets; the message says why."""


class SnippetTooLarge(Exception):
    pass


class _ChildLost(Exception):
    """The run's child died before it received its code."""


def _without_marker(raw: bytes | None) -> bytes | None:
    return raw[len(CODE_RECEIVED) :] if raw and raw.startswith(CODE_RECEIVED) else raw


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
        self._phases = PhaseLog()

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
            spares=s.spares,
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
                    str(os.getpid()),
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
        self._phases.close()

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
        marks = {"enter": now()}
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
            result = await self._run_in_zygote(code, marks)
        finally:
            self._slots.release()
        marks["answered"] = now()
        self._phases.write(marks)
        return result

    async def _run_in_zygote(self, code: str, marks: dict[str, float]) -> RunResult:
        if (self._zygote is None or not self._zygote.alive) and not (
            self._stopping or self._refused
        ):
            await self._restart()
        zygote = self._zygote
        if zygote is None or not zygote.alive or self._problem is not None:
            raise SandboxUnavailable(self._problem or "the sandbox is not running")
        started_at = time.perf_counter()
        try:
            return await self._attempt(zygote, code, started_at, marks, retry_if_lost=True)
        except _ChildLost:
            # Its child was killed from outside before it read the code: nothing of the
            # snippet ran, so running it once more on a fresh child is safe.
            log.warning("sandbox: a child died before starting its run; running it again")
            return await self._attempt(zygote, code, started_at, marks, retry_if_lost=False)

    async def _attempt(
        self,
        zygote: _Zygote,
        code: str,
        started_at: float,
        marks: dict[str, float],
        retry_if_lost: bool,
    ) -> RunResult:
        run_id = next(self._ids)
        events: asyncio.Queue[tuple[dict[str, Any], list[int]]] = asyncio.Queue()
        self._runs[run_id] = events
        try:
            marks["sent"] = now()
            zygote.sock.send(json.dumps({"op": "run", "id": run_id, "code": code}).encode())
            return await self._follow(zygote, run_id, events, started_at, marks, retry_if_lost)
        finally:
            del self._runs[run_id]

    async def _follow(
        self,
        zygote: _Zygote,
        run_id: int,
        events: asyncio.Queue[tuple[dict[str, Any], list[int]]],
        started_at: float,
        marks: dict[str, float],
        retry_if_lost: bool,
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
        marks.update(message.get("marks") or {})
        output = OutputBudget(self.settings.output_bytes)

        def kill(reason: str) -> None:
            if zygote.alive:
                with contextlib.suppress(OSError):
                    zygote.sock.send(
                        json.dumps({"op": "kill", "id": run_id, "reason": reason}).encode()
                    )

        pipes = RunPipes((stdout_fd, stderr_fd, result_fd), output, MAX_RESULT_BYTES, kill)
        readers = pipes.done
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
                marks["output"] = now()
                report = parse_report(_without_marker(pipes.result))
                marks["parsed"] = now()
                if report is not None:
                    marks.update(report.marks)
                if report is not None and output.flood_reason is None:
                    # A complete result and closed output: answer now rather than wait for
                    # the process's exit, which takes milliseconds to unmap its memory.
                    exit_event.cancel()
                    reason = None
                    if tree_size(Path(message["scratch"])) > self.settings.scratch_bytes:
                        reason = "scratch"
                        kill(reason)
                    finished = {"event": "finished", "status": 0, "reason": reason}
                    return verdict(finished, report, output, self.settings, started_at)
            exited, _ = await asyncio.wait_for(exit_event, deadline - time.monotonic())
            await asyncio.wait_for(readers, deadline - time.monotonic())
        except TimeoutError:
            exit_event.cancel()
            pipes.close()
            log.error("sandbox: run %s outlived the zygote's wall clock; restarting it", run_id)
            kill("timeout")
            self._discard_zygote("the sandbox stalled")
            self._starting = asyncio.ensure_future(self._spawn())
            return RunResult(
                status="timeout",
                stdout=output.text("stdout"),
                stderr=output.text("stderr"),
                truncated=output.truncated,
                duration_ms=elapsed_ms(started_at),
            )
        raw = pipes.result
        lost = (
            raw is not None
            and not raw.startswith(CODE_RECEIVED)
            and exited.get("event") == "exited"
            and exited.get("reason") is None
            and os.WIFSIGNALED(int(exited["status"]))
        )
        if retry_if_lost and lost:
            raise _ChildLost
        report = parse_report(_without_marker(raw))
        return verdict(exited, report, output, self.settings, started_at)
