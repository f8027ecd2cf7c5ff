"""The child's side of a run, from fork to result."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from pathlib import Path

from app.sandbox.isolation import Confinement, LayerFailed, _prctl
from app.sandbox.protocol import CODE_RECEIVED, RUN_DOCTOR, SANDBOX_FAILED_EXIT
from app.sandbox.warmup import warm_up_child

MAX_CODE_READ = 1 << 20


def take_over(scratch: Path, pipes: tuple[int, int, int, int]) -> None:
    """Become the run's own process: a session of its own that dies with the zygote, the code,
    stdout, stderr and result pipes as fds 0-3 and nothing else open, the scratch dir as its
    working and temporary directory, and an environment with nothing of the server's."""
    os.setsid()
    _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the zygote
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(pipes):
        os.dup2(fd, target)
    os.closerange(4, 1 << 16)
    os.chdir(scratch)
    os.environ.clear()
    os.environ.update(
        {
            "HOME": str(scratch),
            "TMPDIR": str(scratch),
            "LANG": "C.UTF-8",
            "PATH": "/usr/bin:/bin",
            "OMP_NUM_THREADS": "1",
        }
    )
    tempfile.tempdir = str(scratch)


def run_child(
    confinement: Confinement, scratch: Path, code_r: int, out_w: int, err_w: int, res_w: int
) -> int:
    """In the freshly forked child: take the pipes as fds 0-3, move into the scratch dir, confine,
    warm up, wait for the code, run it, report. Returns the exit status."""
    # Imported here: execute pulls in torch, which the web server (importing this module for
    # its constants) must not load; the zygote has it loaded already.
    from app.sandbox import execute

    take_over(scratch, (code_r, out_w, err_w, res_w))
    try:
        confinement.apply(scratch)
    except LayerFailed as exc:
        os.write(2, f"gradlab sandbox: refusing to run: {exc}\n".encode())
        return SANDBOX_FAILED_EXIT
    warm_up_child()
    waiting = time.monotonic()
    code = os.read(0, MAX_CODE_READ)
    chunks = [code]
    while chunk := os.read(0, MAX_CODE_READ):
        chunks.append(chunk)
    received = b"".join(chunks)
    # The first byte says how to run it (protocol.RUN_PLAIN or RUN_DOCTOR).
    source = received[1:].decode("utf-8", errors="replace")
    os.write(3, CODE_RECEIVED)
    result = execute.run_code(source, doctor=received[:1] == RUN_DOCTOR)
    result["marks"]["waiting"] = waiting
    # Closing the output and then the result channel tells the server the run is over before
    # the (slower) exit; the output first, so that the server has seen its end while the
    # report is still being written.
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.close(fd)
    with os.fdopen(3, "wb") as channel:
        execute.write_result(result, channel)
    return 0
