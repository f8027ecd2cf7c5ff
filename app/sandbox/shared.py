"""What the server and the zygote's side of the process boundary agree on, so that neither
imports the other's code: the zygote's configuration (sent as JSON on its command line), the
exit code of a child whose sandbox failed, the byte a child writes once it has its code, and
how the scratch space's size is measured (both sides enforce its limit).
Nothing here imports anything of the sandbox."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

SANDBOX_FAILED_EXIT = 121
# The child's first byte on the result channel, written once it has its code and before it runs
# anything: a child that dies without it never started the run (a spare killed from outside).
CODE_RECEIVED = b"\x06"


@dataclass(frozen=True)
class ZygoteConfig:
    wall_time_s: float
    cpu_s: int
    memory_bytes: int
    file_size_bytes: int
    scratch_bytes: int
    open_files: int
    scratch_root: str
    user: str | None  # drop to this user when root
    spares: int = 1  # children kept ready ahead of demand
    relaxed: list[str] = field(default_factory=list)


def tree_size(path: Path) -> int:
    total = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
    except OSError:
        pass
    return total
