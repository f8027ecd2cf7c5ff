"""The server's open-files limit: every connection a learner keeps open holds a descriptor.

An idle connection stays open `GRADLAB_KEEP_ALIVE_S` (75 s) for the learner's next click, so a
class of a thousand learners holds about a thousand sockets at once, beyond the soft limit of
1,024 most Linux systems give a process: past it the server can accept no connection and open
no file. At start the server raises its soft limit to the hard one (which only the operator,
or root, can raise: systemd's `LimitNOFILE`, Docker's `--ulimit nofile`), says so in one log
line, and warns when the hard limit is below what a class needs.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass
from pathlib import Path

from app.config.settings import Settings

# The class the server is sized for (docs/performance.md), and the connections each learner's
# browser may keep to it: one for the pages and answers, a second it opens to fetch a page's
# scripts and styles while the page is still arriving.
CLASS_SIZE = 1000
CONNECTIONS_PER_LEARNER = 2
# SQLite: the pool's connections (app/progress/database.py: 16 + 32 overflow), each holding the
# database, its write-ahead log and its shared memory; PostgreSQL: the pool's sockets (5 + 10).
SQLITE_DESCRIPTORS = (16 + 32) * 3
POSTGRES_DESCRIPTORS = 5 + 10
# A run in progress: its stdout, stderr and result pipes, and the process descriptor.
DESCRIPTORS_PER_RUN = 4
# The listening socket, the zygote's socket, the lessons and templates being read, the logs,
# the write lock, the event loop's own: a margin for the rest.
MARGIN = 256
NR_OPEN = Path("/proc/sys/fs/nr_open")


@dataclass(frozen=True)
class OpenFiles:
    before: int  # the soft limit the process was started with
    soft: int  # the soft limit now
    hard: int
    needed: int  # what a class of CLASS_SIZE learners needs, by the settings

    @property
    def enough(self) -> bool:
        return self.soft == resource.RLIM_INFINITY or self.soft >= self.needed

    def report(self) -> str:
        if self.soft == self.before:
            return f"open files: limit {self.soft} (the hard limit is {_shown(self.hard)})"
        return f"open files: limit raised from {self.before} to {self.soft} (the hard limit)"

    def warning(self) -> str:
        return (
            f"open files: the hard limit is {_shown(self.hard)}, and a class of {CLASS_SIZE:,} "
            f"learners needs about {self.needed:,} descriptors in each server process (one per "
            "open connection, kept GRADLAB_KEEP_ALIVE_S, the database's and the runs'); past it "
            "new connections are refused. Raise the hard limit of open files: systemd "
            "LimitNOFILE=65536, docker run --ulimit nofile=65536:65536, or `ulimit -Hn 65536` "
            "as root before starting gradlab"
        )


def descriptors_needed(settings: Settings) -> int:
    """Descriptors one server process needs for a class of CLASS_SIZE learners."""
    database = (
        SQLITE_DESCRIPTORS if settings.database_url.startswith("sqlite") else (POSTGRES_DESCRIPTORS)
    )
    runs = DESCRIPTORS_PER_RUN * settings.workers if settings.sandbox_enabled else 0
    return CLASS_SIZE * CONNECTIONS_PER_LEARNER + database + runs + MARGIN


def raise_open_files_limit(settings: Settings) -> OpenFiles:
    """Raise this process's soft limit of open files to its hard limit (inherited by the
    server processes and the sandbox it starts; a run's child sets its own, far lower)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if hard == resource.RLIM_INFINITY:  # the kernel's ceiling stands in for "unlimited"
        target = int(NR_OPEN.read_text()) if NR_OPEN.exists() else max(soft, 1 << 20)
    raised = soft
    if soft != resource.RLIM_INFINITY and target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            raised = target
        except (ValueError, OSError):
            raised = soft
    return OpenFiles(soft, raised, hard, descriptors_needed(settings))


def _shown(limit: int) -> str:
    return "unlimited" if limit == resource.RLIM_INFINITY else str(limit)
