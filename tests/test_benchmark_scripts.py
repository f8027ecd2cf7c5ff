"""The benchmark scripts docs/performance.md tells people to run still start (they are not run in CI:
their figures need an idle machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.config import PROJECT_ROOT


@pytest.mark.parametrize("script", sorted((PROJECT_ROOT / "benchmarks").glob("[!_]*.py")), ids=str)
def test_the_benchmark_script_starts(script) -> None:  # type: ignore[no-untyped-def]
    answer = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120
    )
    assert answer.returncode == 0, answer.stderr
    assert "usage:" in answer.stdout


def test_the_load_test_says_what_a_round_costs_and_what_the_cores_serve() -> None:
    from benchmarks.load_test import capacity

    # 600 requests (100 rounds of six) that cost 2.4 s of CPU in all: 24 ms a round.
    cost = capacity(2400.0, 600, cores=2, learners=100, pause=(0.2, 1.0))
    assert cost.round_ms == pytest.approx(24.0)
    assert cost.served == pytest.approx(2000 / 24)  # two cores' 2000 ms of CPU a second
    assert cost.asked == pytest.approx(100 / 0.6)  # each learner back after 0.6 s on average


def test_the_load_test_refuses_a_pause_that_is_no_pause() -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--pause", "0", "0"], capture_output=True, text=True
    )
    assert answer.returncode == 2
    assert "--pause takes two seconds" in answer.stderr


@pytest.mark.parametrize("arrive", ["-1", "30"])
def test_the_load_test_refuses_an_arrival_outside_the_run(arrive: str) -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--seconds", "30", "--arrive", arrive],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 2
    assert "--arrive takes seconds >= 0 and shorter than --seconds" in answer.stderr
