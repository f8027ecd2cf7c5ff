"""What /proc says about processes: the one place that reads it for parent/child links."""

from __future__ import annotations

from pathlib import Path


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # The command name may hold spaces and parentheses: split after its last ")".
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found
