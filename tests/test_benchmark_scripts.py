"""The benchmark scripts docs/performance.md tells people to run still start (they are not run in CI:
their figures need an idle machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.config.paths import PROJECT_ROOT


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


def test_against_refuses_a_revision_that_names_no_commit() -> None:
    script = PROJECT_ROOT / "benchmarks" / "bench_endpoints.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--against", "no-such-revision"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 2
    assert "--against: 'no-such-revision' names no commit" in answer.stderr


def test_against_checks_the_revision_out_beside_this_tree_and_removes_it() -> None:
    from benchmarks.revision import checked_out

    def worktrees() -> str:
        return subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "worktree", "list", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    with checked_out("HEAD") as folder:
        assert (folder / "app" / "main.py").is_file()
        assert str(folder) in worktrees()
    assert not folder.exists()
    assert str(folder) not in worktrees()


def test_against_compares_each_side_by_its_median() -> None:
    from benchmarks.revision import compared

    passes = [
        ("now", {"round": 10.0}),
        ("old", {"round": 20.0}),
        ("now", {"round": 12.0}),
        ("old", {"round": 16.0}),
        ("now", {"round": 11.0}),
        ("old", {"round": 22.0}),
    ]
    (name, figures), *_ = compared(passes, "now").items()
    assert name == "round"
    assert figures.now == [10.0, 12.0, 11.0] and figures.then == [20.0, 16.0, 22.0]
    assert figures.ratio == pytest.approx(11.0 / 20.0)
