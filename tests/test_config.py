"""Settings whose defaults are computed from the machine."""

from __future__ import annotations

import pytest

from app import config
from app.config import GiB, Settings, default_workers


@pytest.mark.parametrize(
    ("cpus", "memory", "expected"),
    [
        (2, 24 * GiB, 8),  # four runs per CPU
        (16, 8 * GiB, 7),  # one per GiB beyond the first
        (2, 2 * GiB, 1),  # a small container: still one
        (1, GiB // 2, 1),
    ],
)
def test_default_workers_follow_cpus_and_memory(
    monkeypatch: pytest.MonkeyPatch, cpus: int, memory: int, expected: int
) -> None:
    monkeypatch.setattr(config.os, "cpu_count", lambda: cpus)
    monkeypatch.setattr(config, "memory_limit_bytes", lambda: memory)
    assert default_workers() == expected


def test_an_explicit_worker_count_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADLAB_WORKERS", "3")
    assert Settings().workers == 3


def test_the_memory_limit_is_the_machines_at_most() -> None:
    assert (
        0
        < config.memory_limit_bytes()
        <= config.os.sysconf("SC_PAGE_SIZE") * (config.os.sysconf("SC_PHYS_PAGES"))
    )
