"""Settings whose defaults are computed from the machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.config import capacity
from app.config.capacity import GiB, default_workers
from app.config.settings import Settings


@pytest.mark.parametrize(
    ("cpus", "memory", "expected"),
    [
        (2, 24 * GiB, 8),  # four runs per CPU
        (16, 8 * GiB, 7),  # one per GiB beyond the first
        (2, 2 * GiB, 1),  # a small container: still one
        (1, GiB // 2, 1),
        (64, 512 * GiB, 64),  # a big server: no more than the setting allows
    ],
)
def test_default_workers_follow_cpus_and_memory(
    monkeypatch: pytest.MonkeyPatch, cpus: int, memory: int, expected: int
) -> None:
    monkeypatch.setattr(capacity.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(capacity, "memory_limit_bytes", lambda: memory)
    assert default_workers() == expected


@pytest.mark.parametrize(
    ("cpus", "memory", "processes", "expected"),
    [
        (2, 24 * GiB, 2, 4),  # the machine's runs shared between two server processes
        (2, 24 * GiB, 3, 2),
        (16, 8 * GiB, 2, 3),  # a GiB for each process, then one per run
        (1, 2 * GiB, 4, 1),  # never none
    ],
)
def test_server_processes_share_the_default_runs(
    monkeypatch: pytest.MonkeyPatch, cpus: int, memory: int, processes: int, expected: int
) -> None:
    monkeypatch.setattr(capacity.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(capacity, "memory_limit_bytes", lambda: memory)
    monkeypatch.delenv("GRADLAB_WORKERS", raising=False)
    monkeypatch.setenv("GRADLAB_PROCESSES", str(processes))
    assert default_workers(processes) == expected
    assert Settings().workers == expected


def test_the_default_is_valid_on_a_big_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity.os, "cpu_count", lambda: 128)
    monkeypatch.setattr(capacity, "memory_limit_bytes", lambda: 1024 * GiB)
    monkeypatch.delenv("GRADLAB_WORKERS", raising=False)
    assert Settings().workers == capacity.MAX_WORKERS


def test_an_explicit_worker_count_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADLAB_WORKERS", "3")
    assert Settings().workers == 3


def test_the_default_queue_is_six_runs_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADLAB_WORKERS", "3")
    assert Settings().queue_size == 3 * capacity.QUEUE_PER_WORKER
    monkeypatch.setenv("GRADLAB_QUEUE_SIZE", "5")
    assert Settings().queue_size == 5


@pytest.mark.parametrize(("cgroup", "expected_gib"), [("2147483648\n", 2), ("max\n", None)])
def test_a_containers_memory_limit_counts_when_lower(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cgroup: str, expected_gib: int | None
) -> None:
    limit_file = tmp_path / "memory.max"
    limit_file.write_text(cgroup)
    monkeypatch.setattr(capacity, "CGROUP_MEMORY_MAX", limit_file)
    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    expected = machine if expected_gib is None else min(machine, expected_gib * GiB)
    assert capacity.memory_limit_bytes() == expected


def test_no_cgroup_file_means_the_machines_memory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(capacity, "CGROUP_MEMORY_MAX", tmp_path / "absent")
    assert capacity.memory_limit_bytes() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
