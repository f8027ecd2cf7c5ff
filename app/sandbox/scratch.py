"""A run's scratch directory, measured by both sides of the sandbox: the zygote while a run
lasts, the server after it (the files a snippet may leave are capped).

Both its bytes and its entries (files, directories, links: what a flood of empty files is made
of) are capped. The entries are counted first, from the directory listings alone, and counting
stops past their cap: a flood of any size costs no more to look at than a full scratch dir, and
only a dir within its cap on entries has its entries' sizes read.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

# Why a run's scratch dir is over its limits, as the zygote's and the server's `reason`.
OVER_BYTES = "scratch"
OVER_ENTRIES = "scratch_entries"


def _entries(path: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry of the tree below `path`, symbolic links not followed, as it is listed."""
    folders = [path]
    while folders:
        with contextlib.suppress(OSError), os.scandir(folders.pop()) as listing:
            for entry in listing:
                yield entry
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))


def over_limit(path: Path, max_bytes: int, max_entries: int) -> str | None:
    """OVER_ENTRIES or OVER_BYTES when the tree below `path` is over that limit, else None."""
    if _more_than(max_entries, _entries(path)):
        return OVER_ENTRIES
    size = 0
    # The dir may have grown since: counted again.
    for count, entry in enumerate(_entries(path), start=1):
        if count > max_entries:
            return OVER_ENTRIES
        with contextlib.suppress(OSError):
            size += entry.stat(follow_symlinks=False).st_blocks * 512
    return OVER_BYTES if size > max_bytes else None


def _more_than(limit: int, entries: Iterator[os.DirEntry[str]]) -> bool:
    return any(count > limit for count, _ in enumerate(entries, start=1))
