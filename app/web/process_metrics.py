"""Metrics added up over several server processes (`gradlab serve --processes N`).

Each process counts only its own requests, and a scrape reaches one process at random. So with
several, every process writes its counters and histograms to files in a folder they share
(prometheus_client's multi-process mode, chosen by `PROMETHEUS_MULTIPROC_DIR` being set before
prometheus_client is imported), and the process that answers a scrape reads them all.

The sandbox's gauges are written the same way, by each process every second and by the one
answering at the moment of the scrape, and added up as `GAUGES` says (busy workers are summed;
"ready" is the lowest). So another process's gauges are at most a second old. A process that
stops removes its gauges; one that was killed is forgotten by the next one to publish.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from prometheus_client import CollectorRegistry, Gauge
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from app.sandbox.runner import SnippetRunner
from app.web.metrics import GAUGES, Metrics, SandboxCollector, read_gauges

SHARED_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
PUBLISH_EVERY_S = 1.0
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db")


def shared_dir() -> Path | None:
    """The folder this process's metrics go to, if it is one of several."""
    folder = os.environ.get(SHARED_DIR_ENV)
    return Path(folder) if folder else None


def prepare_shared_dir() -> tuple[Path, Callable[[], None]]:
    """For the parent of several processes, before it starts them: the operator's
    `PROMETHEUS_MULTIPROC_DIR` emptied of an earlier run's files, or a new folder; and what
    removes what this made, at the end."""
    given = shared_dir()
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        for stale in given.glob("*.db"):
            stale.unlink(missing_ok=True)
        return given, lambda: None
    made = Path(tempfile.mkdtemp(prefix="gradlab-metrics-"))
    os.environ[SHARED_DIR_ENV] = str(made)
    return made, lambda: shutil.rmtree(made, ignore_errors=True)


def watch_sandbox(
    metrics: Metrics, sandbox: SnippetRunner | None, lessons: int
) -> ProcessGauges | None:
    """Show the sandbox's gauges in `metrics`: read at each scrape in a process of its own; or
    as this process's share, to publish (`ProcessGauges.keep_published`), in one of several."""
    folder = shared_dir()
    if folder is None:
        metrics.registry.register(SandboxCollector(sandbox, lessons))
        return None
    gauges = ProcessGauges(folder, sandbox, lessons)

    def scraped() -> CollectorRegistry:
        gauges.publish()  # this process's, as of now
        return shared_registry(folder)

    metrics.scraped = scraped
    return gauges


def shared_registry(folder: Path) -> CollectorRegistry:
    """What a scrape shows: every process's metrics, read from their files."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]
    return registry


class ProcessGauges:
    """This process's share of the sandbox's gauges, written to the shared folder."""

    def __init__(self, folder: Path, sandbox: SnippetRunner | None, lessons: int) -> None:
        self.folder = folder
        self.sandbox = sandbox
        self.lessons = lessons
        self.gauges = {
            spec.name: Gauge(
                spec.name,
                spec.help,
                [spec.label] if spec.label else [],
                multiprocess_mode=spec.across,
                registry=None,
            )
            for spec in GAUGES
        }

    def publish(self) -> None:
        for name, values in read_gauges(self.sandbox, self.lessons).items():
            gauge = self.gauges[name]
            for label, value in values.items():
                (gauge.labels(label) if label else gauge).set(value)
        self.forget_the_dead()

    def forget_the_dead(self) -> None:
        """Remove the gauges of processes that died without removing their own (SIGKILL, a
        crash); uvicorn starts another in their place."""
        for entry in self.folder.glob("gauge_live*.db"):
            found = _LIVE_GAUGE_FILE.fullmatch(entry.name)
            if found and not Path(f"/proc/{found[1]}").exists():
                mark_process_dead(int(found[1]), str(self.folder))  # type: ignore[no-untyped-call]

    async def keep_published(self, stop: asyncio.Event) -> None:
        """Publish every second until `stop`, then remove this process's gauges."""
        try:
            while not stop.is_set():
                self.publish()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), PUBLISH_EVERY_S)
        finally:
            mark_process_dead(os.getpid(), str(self.folder))  # type: ignore[no-untyped-call]
