"""What /proc says about processes: the one place that reads it for parent/child links."""

from __future__ import annotations

from pathlib import Path


def parent_pid(pid: int) -> int:
    """The parent of `pid` (OSError once it is gone)."""
    # The command name may hold spaces and parentheses: split after its last ")".
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if parent_pid(int(entry.name)) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


# The name (/proc/PID/comm) of the zygote's one child that runs no snippet: it removes finished
# runs' scratch dirs (app/sandbox/cleaner.py, which cannot import this module, names itself so).
CLEANER_NAME = "gradlab-cleaner"


def sandbox_children(zygote: int) -> list[int]:
    """A zygote's children that are runs: its spares and running children, not its cleaner."""
    found = []
    for pid in child_pids(zygote):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != CLEANER_NAME:
                found.append(pid)
        except OSError:
            continue
    return found


def descendants(pid: int) -> set[int]:
    """Every process below `pid`: children, theirs, and so on."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in child_pids(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def is_zygote(pid: int) -> bool:
    """Whether `pid` is a sandbox's zygote (app/sandbox/zygote.py)."""
    try:
        return b"app.sandbox.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
