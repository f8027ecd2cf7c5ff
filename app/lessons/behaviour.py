"""How a real run compares with what a snippet says it does.

Runtime code: `gradlab check` (app/lessons/check.py) holds a snippet to its every claim, and the
pitfall fixer (app/modes/pitfalls.py) holds a learner's fix to the claims that matter; both
compare here, so a run is read the same way by both.
"""

from __future__ import annotations

import difflib

from app.lessons.numeric import Comparison, compare, flatten
from app.lessons.schema import GradValue, Snippet
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
    """How the run's error (or its absence) contradicts the snippet's claimed error."""
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


def same_grad(claimed: GradValue, actual: object, *, none_is_zero: bool) -> Comparison:
    """Is `actual` the claimed `.grad`? With `none_is_zero`, `None` and a gradient of zeros
    count as the same: both say no gradient has flowed into the tensor since it was cleared."""
    cleared = (claimed is None or all_zero(claimed)) and (actual is None or all_zero(actual))
    if none_is_zero and cleared:
        return Comparison(True)
    return compare(claimed, actual)


def snippet_problems(snippet: Snippet, result: RunResult) -> list[str]:
    """How `result` (a real run) contradicts what `snippet` claims; empty when it does not."""
    if result.status in STOPPED:
        message = result.error.message if result.error else ""
        return [f"the run ended with status {result.status!r}: {message}"]
    problems = error_problems(snippet, result)
    if result.stdout != snippet.output:
        problems.append(
            "stdout differs from the claimed output:\n" + output_diff(snippet.output, result.stdout)
        )
    tensors = {tensor.name: tensor for tensor in result.tensors}
    for name, claimed in snippet.grads.items():
        tensor = tensors.get(name)
        if tensor is None:
            problems.append(f"grads: no tensor named {name!r} after the run")
            continue
        comparison = compare(claimed, tensor.grad)
        if not comparison.matches:
            problems.append(
                f"grads: {name}.grad is claimed {claimed!r} but torch holds {tensor.grad!r} "
                f"({comparison.problem})"
            )
    return problems
