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


def test_the_load_test_against_refuses_a_revision_that_names_no_commit() -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--against", "no-such-revision"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 2
    assert "--against: 'no-such-revision' names no commit" in answer.stderr


def test_the_load_test_against_starts_both_servers_itself() -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--against", "HEAD", "--url", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 2
    assert "--against starts both servers itself" in answer.stderr


def test_the_load_test_figures_what_a_round_cost_and_what_learners_saw() -> None:
    from benchmarks.load_test import Outcome, Tally
    from benchmarks.simulated_learner import RUN_EDITED, RUN_KNOWN

    tally = Tally()
    for name in ("GET /", "GET /lessons/{slug}", RUN_KNOWN, "a", "b"):
        tally.latencies[name] = [10.0, 20.0]
    tally.latencies[RUN_EDITED] = [30.0, 900.0]
    tally.busy[RUN_EDITED] = 1
    # 12 requests (two rounds) in 4 s; the server spent 6 ms, the zygote 2, runs 10, us 6.
    figures = Outcome(tally, 4.0, 6.0, [6.0, 2.0, 10.0], 0).figures()
    assert figures["CPU a round, all processes (ms)"] == pytest.approx(12.0)
    assert figures["server CPU a round (ms)"] == pytest.approx(3.0)
    assert figures["requests/s"] == pytest.approx(3.0)
    assert figures["503 with Retry-After (%)"] == pytest.approx(100 / 12)
    assert figures["GET / p95 (ms)"] == 20.0
    assert figures["POST /api/run p95 (ms)"] == 900.0  # the runs of both kinds, together


@pytest.mark.parametrize("share", ["-0.1", "1.5"])
def test_the_load_test_refuses_a_share_of_edited_runs_that_is_no_share(share: str) -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--edited", share], capture_output=True, text=True
    )
    assert answer.returncode == 2
    assert "--edited takes a share between 0 and 1" in answer.stderr


def test_an_edited_run_is_code_no_lesson_has_and_no_other_run_had() -> None:
    from app.learning.running.known_runs import known_codes
    from app.lessons.loader import load_catalog
    from benchmarks.simulated_learner import edit_of

    catalog = load_catalog(PROJECT_ROOT / "lessons")
    known = known_codes(catalog)
    step = next(step for step in catalog.lessons[0].steps if step.snippet is not None)
    code = step.snippet.code.removesuffix("\n")  # type: ignore[union-attr]
    assert code in known  # the page's run of the step's own code is known code
    edits = {edit_of(code) for _ in range(1000)}
    assert len(edits) == 1000
    assert all(edit.startswith(code + "\n#") for edit in edits)  # the step's program, annotated
    assert not edits & known


@pytest.mark.slow
def test_the_load_test_sends_the_pages_requests_over_all_lessons() -> None:
    """Every run edited (`--edited 1`): no run of the step's own code, every run new code; the
    catalog, lesson pages, predictions, progress and myths answered without an error."""
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [
            sys.executable,
            str(script),
            "--learners",
            "3",
            "--seconds",
            "4",
            "--pause",
            "0.1",
            "0.3",
            "--edited",
            "1",
            "--cold",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PROJECT_ROOT,
    )
    assert answer.returncode == 0, answer.stderr
    assert "100% of runs edited code" in answer.stdout and "error rate 0.00%" in answer.stdout
    table = answer.stdout.split("endpoint")[1]
    names = [
        "GET /lessons/{slug}",
        "POST prediction",
        "POST /api/run (edited)",
        "GET progress",
        "POST myth",
    ]
    for name in names:
        assert name in table
    assert "POST /api/run (step's code)" not in table


@pytest.mark.slow
def test_the_load_test_against_a_revision_loads_both_in_turn_and_compares_them() -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [
            sys.executable,
            str(script),
            "--learners",
            "2",
            "--seconds",
            "3",
            "--pause",
            "0.2",
            "0.4",
            "--edited",
            "0",
            "--against",
            "HEAD",
            "--repeat",
            "1",
            "--cold",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=PROJECT_ROOT,
    )
    assert answer.returncode == 0, answer.stderr
    assert "--- pass 1/1, now ---" in answer.stdout
    assert "--- pass 1/1, HEAD ---" in answer.stdout
    assert "POST /api/run (edited)" not in answer.stdout  # --edited 0: the steps' own code only
    assert "POST /api/run (step's code)" in answer.stdout
    table = answer.stdout.split("2 learners, 0% of runs edited, 1 passes a side, interleaved")[1]
    row = next(line for line in table.splitlines() if "CPU a round, all processes" in line)
    ratio = float(row.split()[-1])
    assert ratio > 0  # both sides served rounds and spent CPU on them


def test_find_capacity_judges_a_load_by_the_targets() -> None:
    from benchmarks._capacity_search import probe
    from benchmarks.simulated_learner import RUN_EDITED, RUN_KNOWN, Tally

    tally = Tally()
    tally.latencies["GET /"] = [10.0] * 99 + [240.0]
    tally.latencies[RUN_KNOWN] = [5.0] * 50
    tally.latencies[RUN_EDITED] = [100.0] * 50
    assert probe(100, tally).misses == []
    tally.latencies["GET /lessons/{slug}"] = [300.0] * 20  # a page over 250 ms at p95
    tally.busy[RUN_EDITED] = 2  # 2 of 220 requests refused: over 0.5 %
    tally.errors["GET /"] = 2
    assert probe(100, tally).misses == ["2 errors", "0.9% refused", "a request's p95 300 ms"]
    tally.latencies[RUN_EDITED] = [100.0] * 40 + [900.0] * 10  # runs p95 over 400 ms
    assert "runs p95 900 ms" in probe(100, tally).misses


@pytest.mark.parametrize("limit", [1, 37, 95, 160, 1000, 5000])
def test_find_capacity_finds_the_largest_class_within_a_tenth(limit: int) -> None:
    from benchmarks._capacity_search import Probe, largest_class

    loaded: list[int] = []

    def load(learners: int) -> Probe:  # meets the targets up to `limit` learners
        loaded.append(learners)
        return Probe(learners, 500.0 if learners > limit else 100.0, 10.0, 0.0, 0)

    found = largest_class(20, 4000, load)
    if limit < 20:
        assert found == 0
    elif limit >= 4000:
        assert found == 4000
    else:
        assert found <= limit and limit - found <= max(10, found // 10)
    assert len(loaded) <= 16  # doubling, then halving the gap: a few probes, not a sweep


def test_find_capacity_starts_its_own_servers() -> None:
    script = PROJECT_ROOT / "benchmarks" / "load_test.py"
    answer = subprocess.run(
        [sys.executable, str(script), "--find-capacity", "--url", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
    )
    assert answer.returncode == 2
    assert "--find-capacity starts its own servers" in answer.stderr
