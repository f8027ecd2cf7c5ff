"""How a real run compares with what a snippet says it does.

Runtime code: `gradlab check` (app/lessons/check.py) holds a snippet to everything it states, and a
learner's code (a pitfall fix, app/modes/pitfalls.py; an exercise, app/modes/exercises.py) is
held to what of it matters, its `Goal` (`judge`). Both compare here, so a run is read the
same way by the checker and by every grader of written code.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from app.lessons.format import GradValue, Snippet
from app.lessons.numeric import Comparison, compare, flatten
from app.sandbox.result import RunResult

STOPPED = ("timeout", "memory", "killed")


def output_diff(expected: str, actual: str) -> str:
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        "claimed",
        "actual",
        n=1,
    )
    return "".join(diff).rstrip("\n") or f"claimed {expected!r}, actual {actual!r}"


def error_problems(snippet: Snippet, result: RunResult) -> list[str]:
    """How the run's error (or its absence) contradicts the snippet's stated error."""
    expected_error = snippet.error
    if expected_error is None:
        if result.error is None:
            return []
        return [
            f"raised {result.error.type}: {result.error.message} (line {result.error.line}) "
            "but the lesson claims it runs cleanly"
        ]
    if result.error is None:
        return [f"claimed to raise {expected_error.type} but ran without error"]
    if result.error.type != expected_error.type.rsplit(".", 1)[-1]:
        return [
            f"claimed to raise {expected_error.type} but raised {result.error.type}: "
            f"{result.error.message}"
        ]
    if expected_error.message_contains not in result.error.message:
        return [
            f"the {result.error.type} message does not contain "
            f"{expected_error.message_contains!r}; it is {result.error.message!r}"
        ]
    return []


def all_zero(value: object) -> bool:
    """A `.grad` (as the sandbox reports it, nested lists of numbers) that holds only zeros."""
    if value is None:
        return False
    numbers = flatten(value)
    return bool(numbers) and all(isinstance(n, int | float) and n == 0 for n in numbers)


def same_grad(stated: GradValue, actual: object, *, none_is_zero: bool) -> Comparison:
    """Is `actual` the stated `.grad`? With `none_is_zero`, `None` and a gradient of zeros
    count as the same: both say no gradient has flowed into the tensor since it was cleared."""
    cleared = (stated is None or all_zero(stated)) and (actual is None or all_zero(actual))
    if none_is_zero and cleared:
        return Comparison(True)
    return compare(stated, actual)


def snippet_problems(snippet: Snippet, result: RunResult) -> list[str]:
    """How `result` (a real run) contradicts what `snippet` states; empty when it does not."""
    if result.status in STOPPED:
        message = result.error.message if result.error else ""
        return [f"the run ended with status {result.status!r}: {message}"]
    problems = error_problems(snippet, result)
    if result.stdout != snippet.output:
        problems.append(
            "stdout differs from the claimed output:\n" + output_diff(snippet.output, result.stdout)
        )
    tensors = {tensor.name: tensor for tensor in result.tensors}
    for name, stated in snippet.grads.items():
        tensor = tensors.get(name)
        if tensor is None:
            problems.append(f"grads: no tensor named {name!r} after the run")
            continue
        comparison = compare(stated, tensor.grad)
        if not comparison.matches:
            problems.append(
                f"grads: {name}.grad is claimed {stated!r} but torch holds {tensor.grad!r} "
                f"({comparison.problem})"
            )
    return problems


# --- a goal for written code, and the verdict on a run -----------------------------------------
@dataclass(frozen=True)
class GoalGrad:
    """A `.grad` written code must leave, in words for the goal."""

    name: str
    value: GradValue
    none_matters: bool

    @property
    def text(self) -> str:
        if self.value is None:
            return "`None` (not a tensor of zeros)"
        shown = f"`{self.value}`"
        if all_zero(self.value) and not self.none_matters:
            return f"{shown} (or `None`: both say no gradient is left)"
        return shown


@dataclass(frozen=True)
class Goal:
    """What written code must do: raise nothing, print exactly `output`, and leave the `.grad`
    values of `grads`. A `None` among them counts only when `none_matters` (elsewhere it says
    how the reference happens to end, not what any right code must do), and then zeros do not
    stand for it."""

    output: str
    grads: dict[str, GradValue]
    none_matters: bool = False

    @classmethod
    def of(cls, snippet: Snippet, none_matters: bool = False) -> Goal:
        return cls(snippet.output, dict(snippet.grads), none_matters)

    def wanted(self) -> list[GoalGrad]:
        return [
            GoalGrad(name, value, self.none_matters)
            for name, value in self.grads.items()
            if value is not None or self.none_matters
        ]


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reasons: list[str]  # Markdown, for the learner; empty when the code passed


def _fenced(text: str) -> str:
    body = text if text.endswith("\n") else text + "\n"
    return f"```\n{body}```" if text else "_(nothing)_"


def judge(goal: Goal, result: RunResult) -> Verdict:
    """Does this run do what the goal says? Reasons say how it does not; text is never read."""
    reasons: list[str] = []
    if result.status in STOPPED:
        reasons.append("The run was stopped before it finished (" + result.status + ").")
    elif result.error is not None:
        where = f" on line {result.error.line}" if result.error.line else ""
        reasons.append(f"It still raises `{result.error.type}`{where}: {result.error.message}")
    if result.stdout != goal.output:
        printed, wanted = _fenced(result.stdout), _fenced(goal.output)
        reasons.append(f"It prints\n\n{printed}\n\nbut should print\n\n{wanted}")
    tensors = {tensor.name: tensor for tensor in result.tensors}
    for want in goal.wanted():
        found = tensors.get(want.name)
        if found is None:
            reasons.append(f"There is no tensor named `{want.name}` after the run.")
        elif not same_grad(want.value, found.grad, none_is_zero=not want.none_matters).matches:
            held = "`None`" if found.grad is None else f"`{found.grad}`"
            reasons.append(f"`{want.name}.grad` is {held} after your run; the goal is {want.text}.")
    return Verdict(not reasons, reasons)
