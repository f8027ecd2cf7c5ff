"""The pitfall fixer: its goal, a hint ladder for each pitfall, and the verdict on a fix.

A fix is judged by what it does, never by its text: run in the sandbox, it must behave as the
pitfall's corrected code is declared (and proved by `gradlab check`) to behave where it matters:
no error, the same stdout, and the `.grad` values the goal names (`goal_grads`). A gradient of
zeros and `None` count as the same unless the pitfall says the difference is its point
(`none_matters`): a fix that clears `.grad` with `opt.zero_grad()` or `.zero_()` before each
backward is as good as one that sets it to `None` after each step.

Hints lead to the fix without giving it, and never number lines: the learner's code is not the
code the lesson wrote, so a hint quotes the line instead (the page finds it in the editor).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from app.lessons.behaviour import Goal, GoalGrad, Verdict, judge
from app.lessons.format import Pitfall
from app.sandbox.result import RunResult

HINT_LEVELS = 3


@dataclass(frozen=True)
class Hint:
    level: int
    title: str
    text: str  # Markdown
    code: str | None = None  # a line of the broken code the hint quotes


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


def _first_difference(goal: str, wrong: str) -> tuple[int, str, str] | None:
    """(1-based output line, the goal's line, the broken code's line) where the outputs part."""
    wanted, printed = goal.splitlines(), wrong.splitlines()
    for number in range(max(len(wanted), len(printed))):
        a = wanted[number] if number < len(wanted) else ""
        b = printed[number] if number < len(printed) else ""
        if a != b:
            return number + 1, a, b
    return None


def _quoted(line: str) -> str:
    return f"`{line}`" if line and "`" not in line else "nothing" if not line else repr(line)


def _symptom(pitfall: Pitfall) -> str:
    """Level 1: what to compare, from what the two runs really do (both proved by the check)."""
    wrong, goal = pitfall.wrong, pitfall.correct
    if wrong.error is not None:
        return (
            f"As written it stops with `{wrong.error.type}`. Read the message: which value is "
            "not what the failing call needs, and where did that value come from?"
        )
    parted = _first_difference(goal.output, wrong.output)
    if parted is not None:
        line, wanted, printed = parted
        return (
            f"Put its output beside the goal's: they first part at output line {line}, where the "
            f"goal prints {_quoted(wanted)} and the broken code {_quoted(printed)}. What has the "
            "code done differently by the time it prints that line?"
        )
    for want in goal_grads(pitfall)[:1]:
        return (
            f"It prints what the goal prints, but leaves `{want.name}.grad` different. What is in "
            "that `.grad` after the run, and what put it there?"
        )
    return "Run it and compare what it does with the goal."


def _where(pitfall: Pitfall) -> Hint:
    """Level 2: the place, quoted from the broken code, never numbered."""
    change = first_change(pitfall)
    lines = pitfall.wrong.code.splitlines()
    if change.wrong_text is not None:
        if change.removed:
            return Hint(2, "Where to look", "This line is not where it belongs:", change.wrong_text)
        return Hint(
            2,
            "Where to look",
            "Look at this line: it is where the run goes astray.",
            change.wrong_text,
        )
    after = [line.strip() for line in lines[change.wrong_line - 1 :] if line.strip()]
    if after:
        return Hint(2, "Where to look", "Something is missing just before this line:", after[0])
    before = [line.strip() for line in lines if line.strip()]
    return Hint(2, "Where to look", "Something is missing after the last line:", before[-1])


def hint(pitfall: Pitfall, level: int) -> Hint:
    """Level 1: what to compare. 2: where to look. 3: why it goes wrong. None gives the fix:
    "Show the fix" does, when asked."""
    if level == 1:
        return Hint(1, "What to compare", _symptom(pitfall))
    if level == 2:
        return _where(pitfall)
    if level == 3:
        return Hint(3, "Why it goes wrong", pitfall.root_cause)
    raise ValueError(f"hint levels are 1 to {HINT_LEVELS}")


# --- the goal and the verdict ------------------------------------------------------------------
def goal_grads(pitfall: Pitfall) -> list[GoalGrad]:
    """The `.grad` values a fix must leave: the corrected code's claims, but a `None` only when
    the pitfall is about `None` (elsewhere it says how that fix happens to end, not what a fix
    must do: the usual `opt.zero_grad()` loop leaves the last step's gradient in place)."""
    return Goal.of(pitfall.correct, pitfall.none_matters).wanted()


def judge_fix(pitfall: Pitfall, result: RunResult) -> Verdict:
    """Does this run behave as the goal says? Reasons say how it does not."""
    return judge(Goal.of(pitfall.correct, pitfall.none_matters), result)
