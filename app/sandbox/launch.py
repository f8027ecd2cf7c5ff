"""Starting the zygote: its scrubbed environment, its command line, and its first message."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from app.config.paths import PROJECT_ROOT
from app.config.settings import Settings
from app.sandbox.protocol import MAX_PACKET, ProtocolError, Ready, ZygoteConfig, decode_event

START_TIMEOUT_S = 120.0
# Environment variables the zygote may keep; everything else (secrets included) is dropped.
_INHERITED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ")


def zygote_environment() -> dict[str, str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        # The same hashes in every zygote: a set of strings prints in the same order on every
        # run of every server (app/learning/running/known_runs.py relies on it).
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    env.update({name: os.environ[name] for name in _INHERITED_ENV if name in os.environ})
    return env


def make_scratch_root(base: Path | None) -> Path:
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="gradlab-scratch-", dir=base))
    # Runs may enter their own directory below, never list this one.
    root.chmod(0o711)
    return root


def zygote_config(s: Settings, scratch_root: Path) -> ZygoteConfig:
    return ZygoteConfig(
        wall_time_s=s.wall_time_s,
        cpu_s=s.cpu_time_s,
        memory_bytes=s.memory_mib << 20,
        file_size_bytes=s.file_size_bytes,
        scratch_bytes=s.scratch_bytes,
        scratch_entries=s.scratch_entries,
        open_files=s.open_files,
        scratch_root=str(scratch_root),
        user=s.sandbox_user,
        spares=s.spares,
        relaxed=sorted(s.relax),
    )


@dataclass
class ZygoteProcess:
    """One running zygote process and the socket to it."""

    process: subprocess.Popen[bytes]
    sock: socket.socket
    layers: dict[str, str] = field(default_factory=dict)  # as its probe child found them
    alive: bool = True


@dataclass(frozen=True)
class Launch:
    zygote: ZygoteProcess | None  # None: the process could not even be started
    problem: str | None  # why it will not run snippets; None when it is ready
    refused: bool = False  # it started and said no (a required layer is off): not retried


def _start_process(config: ZygoteConfig, theirs: socket.socket) -> subprocess.Popen[bytes]:
    bootstrap = (
        "import sys; sys.path.insert(0, sys.argv[3]); from app.sandbox.zygote import main; main()"
    )
    return subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [
            sys.executable,
            "-I",
            "-c",
            bootstrap,
            str(theirs.fileno()),
            json.dumps(asdict(config)),
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


async def _first_message(sock: socket.socket, process: subprocess.Popen[bytes]) -> Ready | str:
    """The zygote's Ready message, or why there is none."""
    loop = asyncio.get_running_loop()
    try:
        data = await asyncio.wait_for(loop.sock_recv(sock, MAX_PACKET), START_TIMEOUT_S)
        message = decode_event(data) if data else None
    except (TimeoutError, ProtocolError, OSError) as exc:
        return f"the zygote did not start: {exc!r}"
    if message is None or message["event"] != "ready":
        return f"the zygote exited (code {process.poll()})"
    return message


async def launch_zygote(config: ZygoteConfig) -> Launch:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for end in (ours, theirs):
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, MAX_PACKET)
    try:
        process = _start_process(config, theirs)
    except OSError as exc:
        ours.close()
        return Launch(None, f"cannot start the zygote: {exc}")
    finally:
        theirs.close()
    ours.setblocking(False)
    zygote = ZygoteProcess(process, ours)
    ready = await _first_message(ours, process)
    if isinstance(ready, str):
        return Launch(zygote, ready)
    zygote.layers = ready["layers"]
    if not ready["ok"]:
        return Launch(zygote, ready["problem"] or "the zygote is not ready", refused=True)
    return Launch(zygote, None)
