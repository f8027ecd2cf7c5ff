"""The pitfall fixer: a hint ladder for each pitfall, and the verdict on a learner's fix.

A fix is judged by what it does, never by its text: run in the sandbox, it must behave as the
pitfall's corrected code is declared (and proved by `gradlab check`) to behave: no error, the
same stdout, the same declared `.grad` values.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from app.lessons.claims import snippet_problems
from app.lessons.numeric import compare
from app.lessons.schema import Pitfall
from app.sandbox.result import RunResult

HINT_LEVELS = 3


@dataclass(frozen=True)
class Hint:
    level: int
    title: str
    text: str  # Markdown
    line: int | None = None  # 1-based line of the wrong code the hint points at
    code: str | None = None  # a line of code the hint quotes


@dataclass(frozen=True)
class Change:
    """Where the corrected code first departs from the wrong code."""

    wrong_line: int  # 1-based; for a pure insertion, the line before which code is missing
    wrong_text: str | None  # None when lines are missing rather than wrong
    correct_text: str  # the corrected code's first new line (stripped)
    removed: bool = False  # the wrong line has no counterpart: it must go (or move)


def first_change(pitfall: Pitfall) -> Change:
    wrong = pitfall.wrong.code.splitlines()
    correct = pitfall.correct.code.splitlines()
    matcher = difflib.SequenceMatcher(a=wrong, b=correct, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changes:
        raise ValueError("the wrong and corrected code are the same")  # the schema forbids it
    new_lines = [
        line.strip() for _, _, _, c1, c2 in changes for line in correct[c1:c2] if line.strip()
    ]
    key_line = new_lines[0] if new_lines else ""
    tag, w1, w2, _, _ = changes[0]
    if tag == "insert":
        return Change(w1 + 1, None, key_line)
    numbered = list(enumerate(wrong[w1:w2], start=w1 + 1))
    number, text = next(((n, line) for n, line in numbered if line.strip()), numbered[0])
    return Change(number, text.strip(), key_line, removed=tag == "delete")


def hint(pitfall: Pitfall, level: int) -> Hint:
    """Level 1: the root cause. 2: the line where it goes wrong. 3: the corrected key line."""
    change = first_change(pitfall)
    if level == 1:
        return Hint(1, "The root cause", pitfall.root_cause)
    if level == 2:
        if change.wrong_text is None:
            return Hint(
                2,
                "Where to look",
                f"Something is missing just before line {change.wrong_line}.",
                line=change.wrong_line,
            )
        return Hint(
            2,
            "Where to look",
            f"Line {change.wrong_line} is where it goes wrong.",
            line=change.wrong_line,
            code=change.wrong_text,
        )
    if level == 3:
        text = "The corrected code has this line:"
        if change.removed:
            text = f"Line {change.wrong_line} does not belong where it is. " + text
        return Hint(3, "The key line", text, line=change.wrong_line, code=change.correct_text)
    raise ValueError(f"hint levels are 1 to {HINT_LEVELS}")


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reasons: list[str]  # Markdown, for the learner; empty when the fix passed


def _fenced(text: str) -> str:
    body = text if text.endswith("\n") else text + "\n"
    return f"```\n{body}```" if text else "_(nothing)_"


def judge_fix(pitfall: Pitfall, result: RunResult) -> Verdict:
    """Does this run behave as the corrected code does? Reasons say how it does not."""
    goal = pitfall.correct
    if not snippet_problems(goal, result):
        return Verdict(True, [])
    reasons: list[str] = []
    if result.status in ("timeout", "memory", "killed"):
        reasons.append("The run was stopped before it finished (" + result.status + ").")
    elif result.error is not None:
        where = f" on line {result.error.line}" if result.error.line else ""
        reasons.append(f"It still raises `{result.error.type}`{where}: {result.error.message}")
    if result.stdout != goal.output:
        printed, wanted = _fenced(result.stdout), _fenced(goal.output)
        reasons.append(f"It prints\n\n{printed}\n\nbut should print\n\n{wanted}")
    tensors = {tensor.name: tensor for tensor in result.tensors}
    for name, claimed in goal.grads.items():
        found = tensors.get(name)
        if found is None:
            reasons.append(f"There is no tensor named `{name}` after the run.")
        elif not compare(claimed, found.grad).matches:
            reasons.append(f"`{name}.grad` is not what the fixed code leaves there.")
    if not reasons:  # e.g. an error the corrected code does not declare, with the same output
        reasons.append("It does not yet behave like the fixed code.")
    return Verdict(False, reasons)
