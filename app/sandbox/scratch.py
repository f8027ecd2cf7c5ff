"""A run's scratch directory, measured by both sides of the sandbox: the zygote while a run
lasts, the server after it (the files a snippet may leave are capped)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


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
