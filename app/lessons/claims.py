"""Does a real run do what a snippet claims (its output, its error, its `.grad` values)?

The one comparison, used by `gradlab check` to prove a lesson true and by the pitfall fixer to
judge a learner's fix; it runs nothing itself."""

from __future__ import annotations

import difflib

from app.lessons.numeric import compare
from app.lessons.schema import Snippet
from app.sandbox.result import RunResult


def _output_diff(expected: str, actual: str) -> str:
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        "claimed",
        "actual",
        n=1,
    )
    return "".join(diff).rstrip("\n") or f"claimed {expected!r}, actual {actual!r}"


def _error_problems(snippet: Snippet, result: RunResult) -> list[str]:
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


def snippet_problems(snippet: Snippet, result: RunResult) -> list[str]:
    """How `result` (a real run) contradicts what `snippet` claims; empty when it does not."""
    if result.status in ("timeout", "memory", "killed"):
        message = result.error.message if result.error else ""
        return [f"the run ended with status {result.status!r}: {message}"]
    problems = _error_problems(snippet, result)
    if result.stdout != snippet.output:
        problems.append(
            "stdout differs from the claimed output:\n"
            + _output_diff(snippet.output, result.stdout)
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
