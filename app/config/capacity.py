"""What the machine can take: its memory (or its cgroup's limit), and from it and its CPUs the
runs at once and the runs that may wait that the settings default to, with their bounds."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

MiB = 1024 * 1024

# Under load a run spends most of its time waiting for the server's event loop, not computing:
# with one run per CPU they queued until the server refused them (docs/performance.md).
RUNS_PER_CPU = 4
# ...but each run may use up to GRADLAB_MEMORY_MIB (1 GiB by default) above the zygote: the
# default keeps one GiB of the memory this server may use for each, after one for the server,
# its zygote and its spares.
GiB = 1 << 30
CGROUP_MEMORY_MAX = Path("/sys/fs/cgroup/memory.max")  # cgroup v2; "max" means no limit


def memory_limit_bytes() -> int:
    """The memory this process may use: the machine's, or its cgroup's limit if lower (in a
    container, /proc/meminfo shows the host's)."""
    limit = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    with contextlib.suppress(OSError, ValueError):
        cgroup = CGROUP_MEMORY_MAX.read_text().strip()
        if cgroup.isdigit():
            limit = min(limit, int(cgroup))
    return limit


MAX_WORKERS = 64
MAX_PROCESSES = 32
# Runs that may wait, per worker: a full queue is about this many runs' time away. At 100
# learners on 2 cores (eight workers), once answers stopped queueing for the database, six per
# worker refused 2.1 - 3.8 % of runs, eight 0.38 - 0.60 %, ten none; a longer queue makes the
# runs that wait wait longer (docs/performance.md).
QUEUE_PER_WORKER = 8


# Workers kept for a client address with no run in progress (app/sandbox/fair.py): one in
# eight, so that a learner at another address starts at once while one address keeps the rest
# busy; none below four workers, where one kept idle would be a quarter of the server or more.
RESERVED_PER_WORKERS = 8
RESERVED_FROM = 4


def default_reserved(workers: int) -> int:
    """Workers kept for an address with nothing running, of `workers`."""
    return max(1, workers // RESERVED_PER_WORKERS) if workers >= RESERVED_FROM else 0


def default_workers(processes: int = 1) -> int:
    """Runs at once in each of `processes` server processes: the machine's share of each."""
    by_cpu = RUNS_PER_CPU * (os.cpu_count() or 1) // processes
    by_memory = (memory_limit_bytes() // GiB - processes) // processes
    return max(1, min(by_cpu, by_memory, MAX_WORKERS))
