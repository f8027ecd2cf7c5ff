"""The zygote: imports torch once, then forks one fresh, confined child per run.

Started by the server as its own program (never forked from the web process) with a scrubbed
environment, it talks to the server over one SOCK_SEQPACKET socket, with the messages of
app/sandbox/protocol.py.

The zygote keeps spare children already forked, confined and warmed up, waiting for code on their
stdin, so a run never waits for fork(). The zygote alone reaps children, so it alone kills them
(a pid cannot be reused before it is reaped): the server asks, it kills. It enforces the wall
clock and the scratch-space caps (bytes and entries); the server reads the pipes and caps the
output. A finished run's scratch dir is removed by a cleaner process (cleaner.py), so that a
dir full of files never keeps the zygote from starting other runs.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import resource
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.sandbox.child import run_child
from app.sandbox.cleaner import Cleaner
from app.sandbox.isolation import ChildLimits, Confinement
from app.sandbox.protocol import (
    MAX_PACKET,
    RUN_DOCTOR,
    RUN_PLAIN,
    SANDBOX_FAILED_EXIT,
    FromZygote,
    ProtocolError,
    ToZygote,
    ZygoteConfig,
    decode_op,
    encode,
)
from app.sandbox.scratch import over_limit
from app.sandbox.warmup import load_and_settle

SCRATCH_POLL_S = 0.02


@dataclass
class Child:
    pid: int
    scratch: Path
    code_w: int = -1
    pipes: list[int] = field(default_factory=list)  # stdout, stderr, result read ends
    run_id: int | None = None
    deadline: float = 0.0
    reason: str | None = None


def confinement_for(config: ZygoteConfig) -> Confinement:
    """How every child is confined: the configured limits, as `config.user` when root."""
    uid = gid = None
    if os.geteuid() == 0 and config.user:
        entry = pwd.getpwnam(config.user)
        uid, gid = entry.pw_uid, entry.pw_gid
    limits = ChildLimits(
        config.cpu_s, config.memory_bytes, config.file_size_bytes, config.open_files
    )
    return Confinement(limits=limits, uid=uid, gid=gid, relaxed=frozenset(config.relaxed))


def make_scratch(root: str, confinement: Confinement) -> Path:
    """A fresh, randomly named scratch dir for one child, owned by the user it runs as."""
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    if confinement.uid is not None and confinement.gid is not None:
        os.chown(scratch, confinement.uid, confinement.gid)
    return scratch


def _thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


class Zygote:
    def __init__(self, control: socket.socket, config: ZygoteConfig, cleaner: Cleaner) -> None:
        self.control = control
        self.config = config
        self.cleaner = cleaner
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, Child] = {}
        # Children forked, confined and warmed up ahead of demand, oldest first.
        self.spares: list[Child] = []
        self.confinement = confinement_for(config)
        self.ready_problem: str | None = None
        self.policed_at = 0.0  # when police() last looked

    # --- messages -------------------------------------------------------------------------
    def send(self, message: FromZygote, fds: list[int] | None = None) -> None:
        data = encode(message)
        # A server that went away is noticed by the main loop (end of file on the socket).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if fds:
                socket.send_fds(self.control, [data], fds)
            else:
                self.control.send(data)

    # --- children ---------------------------------------------------------------------------
    def fork_child(self) -> Child:
        if _thread_count() != 1:
            raise RuntimeError(f"the zygote has {_thread_count()} threads; forking is unsafe")
        scratch = make_scratch(self.config.scratch_root, self.confinement)
        code_r, code_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            status = SANDBOX_FAILED_EXIT
            try:
                status = run_child(self.confinement, scratch, code_r, out_w, err_w, res_w)
            finally:
                os._exit(status)
        for fd in (code_r, out_w, err_w, res_w):
            os.close(fd)
        child = Child(pid=pid, scratch=scratch, code_w=code_w, pipes=[out_r, err_r, res_r])
        self.children[pid] = child
        return child

    def probe(self) -> dict[str, str]:
        """Fork a child that applies every layer it can and reports which held."""
        from app.sandbox.isolation import LayerFailed, check_doors_shut

        every_layer_relaxed = Confinement(
            limits=self.confinement.limits,
            uid=self.confinement.uid,
            gid=self.confinement.gid,
            relaxed=frozenset({"rlimits", "uid", "no_new_privs", "landlock", "seccomp"}),
        )
        scratch = make_scratch(self.config.scratch_root, self.confinement)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                report = every_layer_relaxed.apply(scratch)
                check_doors_shut(report)
            except (LayerFailed, OSError) as exc:
                report = {"probe": f"off: {exc}"}
            os.write(write_end, json.dumps(report).encode())
            os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            raw = reader.read()
        os.waitpid(pid, 0)
        shutil.rmtree(scratch, ignore_errors=True)
        layers: dict[str, str] = json.loads(raw or b'{"probe": "off: the probe child died"}')
        return layers

    def _take_spare(self) -> Child:
        """The oldest spare still alive (one killed but not yet reaped is skipped: reap() sees to
        it), or a new child."""
        while self.spares:
            spare = self.spares.pop(0)
            if spare.pid in self.children and _still_running(spare.pid):
                return spare
        return self.fork_child()

    def _refill_spares(self) -> None:
        while len(self.spares) < self.config.spares and self.ready_problem is None:
            try:
                self.spares.append(self.fork_child())
            except (OSError, RuntimeError) as exc:
                print(f"gradlab zygote: cannot fork a spare: {exc}", file=sys.stderr)
                return

    def start_run(
        self, run_id: int, code: str, received: float, nice: int = 0, doctor: bool = False
    ) -> None:
        if self.ready_problem is not None:
            self.send({"event": "failed", "id": run_id, "message": self.ready_problem})
            return
        try:
            child = self._take_spare()
        except (OSError, RuntimeError) as exc:
            self.send({"event": "failed", "id": run_id, "message": f"cannot fork: {exc}"})
            return
        child.run_id = run_id
        if nice > 0:
            # Only ever lower the child's priority (no privilege needed for that); it has one
            # thread while it waits for its code, and threads it starts inherit the value.
            with contextlib.suppress(OSError):
                base = os.getpriority(os.PRIO_PROCESS, child.pid)
                os.setpriority(os.PRIO_PROCESS, child.pid, min(base + nice, 19))
        handed = time.monotonic()
        child.deadline = handed + self.config.wall_time_s
        # If the child died before reading, its exit is reported as usual.
        with contextlib.suppress(OSError):
            mode = RUN_DOCTOR if doctor else RUN_PLAIN
            os.write(child.code_w, mode + code.encode("utf-8", errors="replace"))
        os.close(child.code_w)
        child.code_w = -1
        marks = {"received": received, "handed": handed}
        self.send(
            {
                "event": "started",
                "id": run_id,
                "pid": child.pid,
                "scratch": str(child.scratch),
                "marks": marks,
            },
            child.pipes,
        )
        for fd in child.pipes:
            os.close(fd)
        child.pipes = []
        self._refill_spares()

    def kill(self, child: Child, reason: str) -> None:
        if child.reason is None:
            child.reason = reason
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)

    def reap(self) -> None:
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is not None:
                self._clean_up(child, functools.partial(self._report_exit, child, status, usage))

    def _clean_up(self, child: Child, then: Callable[[], None]) -> None:
        """After a child's exit: its process group, its file descriptors, its scratch dir;
        `then` once that is gone (a run's exit is reported once its files are removed)."""
        # Anything the run left in its process group dies with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        # A run can fill its scratch space between two polls and finish: judge it at the end.
        if child.reason is None:
            child.reason = self._over_limit(child)
        for fd in [*child.pipes, child.code_w]:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.cleaner.discard(child.scratch, then)

    def _report_exit(self, child: Child, status: int, usage: resource.struct_rusage) -> None:
        if child in self.spares:
            self.spares.remove(child)
            if child.reason != "shutdown":
                print(
                    f"gradlab zygote: the spare child {child.pid} died (status {status})",
                    file=sys.stderr,
                )
            return
        if child.run_id is not None:
            self.send(
                {
                    "event": "exited",
                    "id": child.run_id,
                    "pid": child.pid,
                    "status": status,
                    "reason": child.reason,
                    "cpu_s": round(usage.ru_utime + usage.ru_stime, 6),
                    "maxrss_kb": usage.ru_maxrss,
                }
            )

    def police(self) -> None:
        """Wall clock and scratch space of every running child."""
        now = self.policed_at = time.monotonic()
        for child in list(self.children.values()):
            if child.run_id is None or child.reason is not None:
                continue
            if now >= child.deadline:
                self.kill(child, "timeout")
            elif reason := self._over_limit(child):
                self.kill(child, reason)

    def _over_limit(self, child: Child) -> str | None:
        return over_limit(child.scratch, self.config.scratch_bytes, self.config.scratch_entries)

    def handle(self, message: ToZygote, received: float) -> None:
        if message["op"] == "run":
            self.start_run(
                message["id"], message["code"], received, message["nice"], message["doctor"]
            )
            return
        for child in self.children.values():
            if child.run_id == message["id"]:
                self.kill(child, message["reason"] or "killed")

    # --- main loop --------------------------------------------------------------------------
    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        os.set_blocking(wake_r, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.selector.register(self.control, selectors.EVENT_READ, "control")
        self.selector.register(wake_r, selectors.EVENT_READ, "signal")
        self.selector.register(self.cleaner.done_r, selectors.EVENT_READ, "cleaned")
        self._refill_spares()
        while True:
            running = any(c.run_id is not None for c in self.children.values())
            next_look = self.policed_at + SCRATCH_POLL_S
            timeout = max(0.0, next_look - time.monotonic()) if running else None
            for key, _ in self.selector.select(timeout):
                if key.data == "signal":
                    with contextlib.suppress(BlockingIOError):
                        os.read(wake_r, 4096)
                    self.reap()
                    continue
                if key.data == "cleaned":
                    if not self.cleaner.acknowledge():
                        self.selector.unregister(self.cleaner.done_r)
                    continue
                data = self.control.recv(MAX_PACKET)
                if not data:
                    return  # the server is gone
                try:
                    message = decode_op(data)
                except ProtocolError as exc:
                    print(f"gradlab zygote: ignoring a message: {exc}", file=sys.stderr)
                    continue
                self.handle(message, time.monotonic())
            # Once per SCRATCH_POLL_S, however many messages came meanwhile: a look costs up
            # to a scan of every running child's scratch dir.
            if time.monotonic() >= self.policed_at + SCRATCH_POLL_S:
                self.police()

    def shutdown(self) -> None:
        for child in list(self.children.values()):
            self.kill(child, "shutdown")
        deadline = time.monotonic() + 2
        while self.children and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.01)


def _still_running(pid: int) -> bool:
    """Has `pid` (our child) not exited yet? Looks without reaping it."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def main() -> None:
    control_fd = int(sys.argv[1])
    config = ZygoteConfig(**json.loads(sys.argv[2]))
    from app.sandbox.isolation import _prctl

    _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: the zygote dies with the server
    if os.getppid() != int(sys.argv[4]):
        return  # the server died before PR_SET_PDEATHSIG was set (in Docker it may be pid 1)
    # Forked first, while the zygote is small: it never needs torch.
    cleaner = Cleaner(config.scratch_root)
    huge = load_and_settle()
    print(f"gradlab zygote: {huge >> 20} MiB in huge pages", file=sys.stderr)
    control = socket.socket(fileno=control_fd)
    zygote = Zygote(control, config, cleaner)
    layers = zygote.probe()
    failed = [
        f"{layer}: {state}"
        for layer, state in layers.items()
        if not state.startswith("on") and layer not in config.relaxed
    ]
    zygote.ready_problem = "; ".join(failed) or None
    zygote.send(
        {
            "event": "ready",
            "ok": not failed,
            "problem": zygote.ready_problem,
            "layers": layers,
            "pid": os.getpid(),
            "threads": _thread_count(),
        }
    )
    try:
        zygote.serve()
    finally:
        zygote.shutdown()
        cleaner.close()


if __name__ == "__main__":
    main()
