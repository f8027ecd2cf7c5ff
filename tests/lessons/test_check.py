"""`gradlab check` catches every kind of lie a lesson can tell (against the real sandbox)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.lessons.check import check_lesson, run_check
from app.lessons.format import Lesson
from app.lessons.loader import parse_yaml
from tests.conftest import FIXTURE_LESSONS, SandboxHarness, in_own_thread


def fixture_data() -> dict[str, Any]:
    data: dict[str, Any] = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    return data


def step(data: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = data["steps"][0]
    return first


def pitfall(data: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = data["pitfalls"][0]
    return first


LIES: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    (
        "wrong output",
        lambda d: step(d)["snippet"].update(output="tensor([4., 7.])\n"),
        "step 1 (Squares)",
        "stdout differs from the claimed output",
    ),
    (
        "output without its newline",
        lambda d: step(d)["snippet"].update(output="tensor([4., 6.])"),
        "step 1 (Squares)",
        "stdout differs",
    ),
    (
        "the seed's 3.0 for tensor(3.)",
        lambda d: step(d)["snippet"].update(
            code="import torch\nprint(torch.tensor(3.0))\n", output="3.0\n", grads={}
        ),
        "step 1 (Squares)",
        "+tensor(3.)",
    ),
    (
        "wrong grad value",
        lambda d: step(d)["snippet"]["grads"].update(x=[4.0, 5.0]),
        "step 1 (Squares)",
        "grads: x.grad is claimed [4.0, 5.0] but torch holds [4.0, 6.0]",
    ),
    (
        "grad claimed None but filled",
        lambda d: step(d)["snippet"]["grads"].update(x=None),
        "step 1 (Squares)",
        "torch holds a tensor",
    ),
    (
        "grad claimed for a non-leaf",
        lambda d: step(d)["snippet"]["grads"].update(y=13.0),
        "step 1 (Squares)",
        "y.grad is claimed 13.0 but torch holds None",
    ),
    (
        "grad of a tensor that does not exist",
        lambda d: step(d)["snippet"]["grads"].update(z=1.0),
        "step 1 (Squares)",
        "no tensor named 'z'",
    ),
    (
        "claims clean but raises",
        lambda d: step(d)["snippet"].update(
            code="import torch\nprint(torch.tensor(1.0) + None)\n", output="", grads={}
        ),
        "step 1 (Squares)",
        "but the lesson claims it runs cleanly",
    ),
    (
        "claims an error that never comes",
        lambda d: pitfall(d)["wrong"].update(code="import torch\nprint('fine')\n", output="fine\n"),
        "pitfall 1 wrong code",
        "claimed to raise RuntimeError but ran without error",
    ),
    (
        "wrong error type",
        lambda d: pitfall(d)["wrong"]["error"].update(type="ValueError"),
        "pitfall 1 wrong code",
        "claimed to raise ValueError but raised RuntimeError",
    ),
    (
        "wrong error message",
        lambda d: pitfall(d)["wrong"]["error"].update(message_contains="may fail"),
        "pitfall 1 wrong code",
        "message does not contain 'may fail'",
    ),
    (
        "wrong value-prediction answer",
        lambda d: step(d)["value_prediction"].update(expected=[2.0, 3.0]),
        "step 1 (Squares) value prediction",
        "the answer [2.0, 3.0] is wrong",
    ),
    (
        "value prediction of a missing tensor",
        lambda d: step(d)["value_prediction"].update(tensor="w"),
        "step 1 (Squares) value prediction",
        "no tensor named 'w'",
    ),
    (
        "pitfall whose wrong code is not wrong",
        lambda d: pitfall(d).update(
            wrong={
                "code": pitfall(d)["correct"]["code"].replace("(x * 2)", "(2 * x)"),
                "output": "tensor([2., 2.])\n",
            }
        ),
        "pitfall 1 (Backward on a vector)",
        "behave the same",
    ),
    (
        "myth demo that says the opposite",
        lambda d: d["myths"][0]["demo"].update(output="False\n"),
        "myth 1 demo",
        "stdout differs",
    ),
    (
        "snippet that never ends",
        lambda d: step(d)["snippet"].update(code="while True:\n    pass\n", output="", grads={}),
        "step 1 (Squares)",
        "status 'timeout'",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "where", "problem"),
    [(m, w, p) for _, m, w, p in LIES],
    ids=[name for name, *_ in LIES],
)
def test_check_catches_the_lie(sandbox: SandboxHarness, mutate, where: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    data = fixture_data()
    mutate(data)
    lesson = Lesson.model_validate(data)
    failures = sandbox.call(check_lesson(lesson, sandbox.sandbox.run))
    assert failures, "the lie went unnoticed"
    assert any(f.where == where and problem in f.problem for f in failures), failures
    assert all(f.lesson == "first-steps" for f in failures)


def test_check_passes_a_truthful_lesson(sandbox: SandboxHarness) -> None:
    lesson = Lesson.model_validate(fixture_data())
    assert sandbox.call(check_lesson(lesson, sandbox.sandbox.run)) == []


def check_in_thread(sandbox: SandboxHarness | None, **options: Any) -> int:
    """`gradlab check` as the command runs it (asyncio.run), on a thread of its own: the
    browser tests' Playwright keeps an event loop on the main thread. Its snippets run in
    `sandbox` (the session's `check_sandbox`), or with None in a sandbox it starts itself."""
    if sandbox is not None:
        options["started"] = sandbox.runner()
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_check, **options).result()


def _write(folder: Path, data: dict[str, Any]) -> None:
    (folder / f"{data['slug']}.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))


def test_gradlab_check_exits_non_zero_and_names_the_lie(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    data = fixture_data()
    data.pop("next")
    data["torch_version"] = "2.0.0"
    step(data)["snippet"]["output"] = "tensor([4., 7.])\n"
    _write(tmp_path, data)
    assert check_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 1
    out, err = capsys.readouterr()
    assert "note: first-steps was verified against torch 2.0.0" in out
    assert "FAIL first-steps: step 1 (Squares): stdout differs" in err
    assert "-tensor([4., 7.])" in err and "+tensor([4., 6.])" in err


def test_gradlab_check_reports_broken_links(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    data = fixture_data()
    data["next"] = "missing-lesson"
    _write(tmp_path, data)
    assert check_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 1
    assert "next: no lesson 'missing-lesson'" in capsys.readouterr().err


@pytest.mark.slow  # its own sandbox, and some 800 runs: about 25 s; CI runs it, the quick loop not
def test_the_bundled_lessons_are_all_true(monkeypatch: pytest.MonkeyPatch) -> None:
    """As CI and an author run it: the check starts and stops its own sandbox (the other
    tests of the command share one). Its runs get a minute each, not the 5 s a learner's run
    gets: it runs beside the whole suite on two cores, where a two-line snippet once waited
    past 5 s for a core (and, with the check's one retry of a time-out, could do so twice),
    and what it proves is that every lesson is true, not how fast."""
    monkeypatch.setenv("GRADLAB_WALL_TIME_S", "60")
    monkeypatch.setenv("GRADLAB_CPU_TIME_S", "60")
    assert check_in_thread(None) == 0


def test_a_run_stopped_by_its_time_limit_is_tried_once_more_before_it_counts() -> None:
    """A time-out under load is run again; a snippet that always runs too long still fails.
    (In a thread of its own: a browser test before it leaves an event loop in this one.)"""
    import asyncio

    from app.lessons.check import timeout_retried
    from app.sandbox.result import RunResult

    asked: list[str] = []

    def runner(outcomes: list[str]) -> Callable[[str], Any]:
        async def run(code: str) -> RunResult:
            asked.append(code)
            status = outcomes[min(len(asked), len(outcomes)) - 1]
            return RunResult(status=status, stdout="done\n" if status == "ok" else "")  # type: ignore[arg-type]

        return run

    busy = timeout_retried(runner(["timeout", "ok"]))("print('done')")
    busy_once = in_own_thread(asyncio.run, busy)
    assert (busy_once.status, busy_once.stdout, len(asked)) == ("ok", "done\n", 2)
    asked.clear()
    endless = in_own_thread(asyncio.run, timeout_retried(runner(["timeout"]))("while 1: pass"))
    assert (endless.status, len(asked)) == ("timeout", 2)
    asked.clear()
    failing = in_own_thread(asyncio.run, timeout_retried(runner(["error"]))("1/0"))
    assert (failing.status, len(asked)) == ("error", 1)
