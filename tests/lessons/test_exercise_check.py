"""`gradlab check` on exercises: a reference that passes its own grading and blanks that fail
it are fine; a planted broken exercise (a wrong reference, blanks that already pass, a bug that
behaves right, a hint that writes the answer) fails, naming the exercise and the problem."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.lessons.check import NO_RERUN, check_lesson, exercise_problems
from app.lessons.exercises import goal_by_hand, graded_programs, judge_runs, parts, program
from app.lessons.format import Exercise, Lesson
from tests.catalogs import BUNDLED
from tests.conftest import SandboxHarness
from tests.lessons.test_lint import curriculum

Data = dict[str, Any]
RERUN = {"replace": {"tensor(3.0,": "tensor(-2.0,"}, "grads": {"x": -4.0}}


def exercise(**changes: Any) -> Data:
    data: Data = {
        "title": "Fill .grad",
        "task": "Make `x.grad` hold the slope of `y`.",
        "code": "import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\n____\n",
        "solution": ["y.backward()"],
        "grads": {"x": 6.0},
        "rerun": {"replace": {"tensor(3.0,": "tensor(-2.0,"}, "grads": {"x": -4.0}},
        "hints": ["What walks the recorded graph back to `x`?"],
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def problems(sandbox: SandboxHarness, **changes: Any) -> list[str]:
    checked: list[str] = sandbox.call(
        exercise_problems(Exercise.model_validate(exercise(**changes)), sandbox.sandbox.run)
    )
    return checked


def test_a_sound_exercise_passes_the_check(sandbox: SandboxHarness) -> None:
    first, _ = curriculum()
    first["exercises"] = [exercise()]
    lesson = Lesson.model_validate(first)
    assert sandbox.call(check_lesson(lesson, sandbox.sandbox.run)) == []


def test_a_planted_broken_exercise_fails_the_check(sandbox: SandboxHarness) -> None:
    first, _ = curriculum()
    first["exercises"] = [exercise(grads={"x": 7.0})]  # the reference leaves 6
    lesson = Lesson.model_validate(first)
    failures = [str(f) for f in sandbox.call(check_lesson(lesson, sandbox.sandbox.run))]
    assert len(failures) == 1
    assert failures[0].startswith(
        "first-steps: exercise 1 (Fill .grad): the reference solution fails its own grading: "
    )
    assert "`x.grad` is `6.0` after your run; the goal is `7.0`." in failures[0]


def test_blanks_that_already_pass_fail_the_check(sandbox: SandboxHarness) -> None:
    # The goal names nothing the blank changes: an empty blank passes as well.
    empty = "the code with its blanks empty passes the grading, so the exercise asks nothing"
    assert empty in problems(sandbox, grads={}, output="", rerun={**RERUN, "grads": {}})


def test_an_exercise_without_a_rerun_passes_with_its_goal_written_by_hand(
    sandbox: SandboxHarness,
) -> None:
    # `x.grad = torch.tensor(6.0)` in the blank meets the goal without a backward pass; only
    # a run with other values tells it from `y.backward()`.
    found = problems(sandbox, rerun=None)
    assert found[0] == NO_RERUN
    assert "the goal written by hand (2) passes the grading, so the exercise asks nothing" in found
    assert problems(sandbox) == []


def test_a_rerun_that_keeps_the_goal_s_numbers_proves_nothing(sandbox: SandboxHarness) -> None:
    # x * x at -3.0 has the slope -6: the numbers written by hand for 3.0 are not refused
    # by a rerun whose goal is the same, so the goal printed by hand still passes when the
    # output is what is graded.
    printed = {"code": exercise()["code"] + "print(x.grad)\n", "output": "tensor(6.)\n"}
    same = {"replace": {"tensor(3.0,": "tensor(3.00,"}, "output": "tensor(6.)\n"}
    found = problems(sandbox, **printed, grads={}, rerun=same)
    assert "the goal written by hand (1) passes the grading, so the exercise asks nothing" in found
    other = {**same, "replace": {"tensor(3.0,": "tensor(-3.0,"}, "output": "tensor(-6.)\n"}
    assert problems(sandbox, **printed, grads={}, rerun=other) == []


@pytest.mark.parametrize(
    "lesson",
    [lesson for lesson in BUNDLED.lessons if lesson.exercises],
    ids=lambda lesson: lesson.slug,
)
def test_no_bundled_exercise_passes_with_its_goal_written_by_hand(
    sandbox: SandboxHarness, lesson: Lesson
) -> None:
    for exercise_ in lesson.exercises:
        assert exercise_.rerun is not None, f"{lesson.slug}: {exercise_.title}"
        for number, fill in enumerate(goal_by_hand(exercise_), start=1):
            results = [sandbox.run(code) for code in graded_programs(exercise_, fill)]
            verdict = judge_runs(exercise_, results)
            assert not verdict.passed, f"{lesson.slug}: {exercise_.title}: by hand ({number})"


def test_a_bug_that_behaves_right_fails_the_check(sandbox: SandboxHarness) -> None:
    diagnosis = {
        "question": "What is wrong?",
        "choices": ["Nothing is walked", {"text": "A hook", "why": "There is no hook."}],
        "answer": "Nothing is walked",
        "explanation": "No backward.",
    }
    sound = {"buggy": ["y.sum()"], "diagnosis": diagnosis, "source": "first-steps"}
    assert problems(sandbox, **sound) == []
    harmless = {**sound, "buggy": ["(y * 1).backward()"]}
    assert problems(sandbox, **harmless) == [
        "the buggy code passes the grading, so the exercise asks nothing"
    ]


def test_a_hint_that_writes_the_solution_fails_the_check(sandbox: SandboxHarness) -> None:
    assert problems(sandbox, hints=["Call `y.backward()`."]) == [
        "hint 1 writes the solution out: 'y.backward()'"
    ]


def test_a_wrong_custom_backward_fails_gradcheck_with_its_input_named(
    sandbox: SandboxHarness,
) -> None:
    lesson = BUNDLED.get("custom-autograd-function")
    assert lesson is not None and lesson.exercises[0].gradcheck is not None
    custom = lesson.exercises[0]
    # Right on the demo (its .sum() sends ones), wrong for any other incoming gradient.
    forgets = "x, w = ctx.saved_tensors\nreturn 2 * w * x, x * x"
    result = sandbox.run(program(custom, [forgets]))
    assert result.error is None
    assert result.stdout.startswith(
        "tensor([ 6., -2.]) tensor([1., 4.])\ngradcheck: failed for input 0 (torch.randn(3)).\n"
    )
    assert "numerical:" in result.stdout and "analytical:" in result.stdout


def test_the_schema_refuses_an_exercise_that_does_not_add_up() -> None:
    with pytest.raises(ValidationError, match="no blank line"):
        Exercise.model_validate(exercise(code="print(1)\n"))
    with pytest.raises(ValidationError, match="2 entries for 1 blank"):
        Exercise.model_validate(exercise(solution=["a", "b"]))
    with pytest.raises(ValidationError, match="diagnosis, buggy and source go together"):
        Exercise.model_validate(exercise(buggy=["y.sum()"]))


def test_a_blank_is_filled_at_its_own_indentation() -> None:
    looped = exercise(
        code="for i in range(2):\n    ____\nprint(i)\n", solution=["pass"], rerun=None
    )
    shaped = Exercise.model_validate(looped)
    assert [(p.kind, p.indent) for p in parts(shaped)] == [
        ("code", ""),
        ("blank", "    "),
        ("code", ""),
    ]
    assert program(shaped, ["  if i:\n      print(i)"]) == (
        "for i in range(2):\n    if i:\n        print(i)\nprint(i)\n"
    )
    assert program(shaped, ["   "]) == "for i in range(2):\n    pass\nprint(i)\n"


PROBE = {
    "after": "y = x * x",
    "watch": "_walks = []\ny.grad_fn.register_hook(lambda *_: _walks.append(1))\n",
    "value": "len(_walks)",
    "expect": "1",
    "miss": "The graph of `y` must be walked.",
}


def test_the_reference_must_meet_the_rerun_and_the_probe_too(sandbox: SandboxHarness) -> None:
    assert problems(sandbox, probe=PROBE) == []
    wrong_rerun = problems(sandbox, rerun={**RERUN, "grads": {"x": 4.0}})
    assert len(wrong_rerun) == 1
    assert wrong_rerun[0].startswith("the reference solution fails its own grading: ")
    assert "ran your code again with other values" in wrong_rerun[0]
    wrong_probe = problems(sandbox, probe={**PROBE, "expect": "2"})
    assert wrong_probe == [
        "the reference solution fails its own grading: The graph of `y` must be walked."
    ]


def test_the_schema_refuses_a_rerun_or_probe_that_names_no_given_code() -> None:
    with pytest.raises(ValidationError, match="is not once in the given code"):
        Exercise.model_validate(exercise(rerun={"replace": {"tensor(4.0,": "x"}}))
    with pytest.raises(ValidationError, match="is not a line of the code"):
        Exercise.model_validate(exercise(probe={**PROBE, "after": "z = 1"}))
    with pytest.raises(ValidationError, match="when"):
        Exercise.model_validate(exercise(hints=[{"text": "Look.", "when": "style"}]))


def test_a_first_walk_by_autograd_grad_is_a_walk_of_the_same_graph(sandbox: SandboxHarness) -> None:
    # graphs-used-twice grades behaviour: both passes must go through y's one graph, and
    # torch.autograd.grad with retain_graph=True is such a pass (without it the second fails).
    lesson = BUNDLED.get("graphs-used-twice")
    assert lesson is not None
    twice = lesson.exercises[0]
    walks = "x.grad = torch.autograd.grad(y, x, retain_graph=True)[0]"
    results = [sandbox.run(code) for code in graded_programs(twice, [walks])]
    assert judge_runs(twice, results).passed
    freed = walks.replace(", retain_graph=True", "")
    results = [sandbox.run(code) for code in graded_programs(twice, [freed])]
    assert not judge_runs(twice, results).passed
