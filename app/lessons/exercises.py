"""An exercise's code as it runs: its blanks filled with what a learner (or the reference, or
the bug) wrote, followed by the gradcheck harness when the exercise has one; and its goal.

Runtime code: `gradlab check` (app/lessons/check.py) runs the reference, the unfilled code and
the buggy code through here, and the exercise grader (app/modes/exercises.py) the learner's,
so all of them run exactly the same program around the blanks.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Literal

from app.lessons.behaviour import Goal
from app.lessons.schema import BLANK, Exercise, Gradcheck

# What a blank holds when it is left empty: the code still parses, and does nothing there.
EMPTY = "pass"
GRADCHECK_PASSED = "gradcheck: passed\n"


@dataclass(frozen=True)
class Part:
    """A piece of an exercise's code as a page shows it: given code, or a blank to write."""

    kind: Literal["code", "blank"]
    text: str  # the given code; for a blank, "" (the learner writes it)
    indent: str = ""  # a blank's indentation, which the learner's lines are given


def parts(exercise: Exercise) -> list[Part]:
    """The code split at its blanks, in order."""
    found: list[Part] = []
    given: list[str] = []
    for line in exercise.code.splitlines(keepends=True):
        if line.strip() != BLANK:
            given.append(line)
            continue
        if given:
            found.append(Part("code", "".join(given)))
            given = []
        found.append(Part("blank", "", line[: len(line) - len(line.lstrip())]))
    if given:
        found.append(Part("code", "".join(given)))
    return found


def _indented(text: str, indent: str) -> str:
    body = textwrap.dedent(text.replace("\r\n", "\n")).strip("\n")
    if not body.strip():
        body = EMPTY
    return "".join(f"{indent}{line}\n" if line.strip() else "\n" for line in body.split("\n"))


def harness(check: Gradcheck) -> str:
    """Code that runs `torch.autograd.gradcheck` and says, in words, what it found: which
    input, the Jacobian from finite differences and the one from the learner's backward."""
    inputs = "".join(f"    ({expression}),\n" for expression in check.inputs)
    names = list(check.inputs)
    return f"""
import torch as _torch
from torch.autograd.gradcheck import GradcheckError as _GradcheckError
_torch.manual_seed(0)
_inputs = tuple(
    _torch.as_tensor(_value).detach().double().requires_grad_()
    for _value in (
{inputs}    )
)
_names = {names!r}
try:
    _torch.autograd.gradcheck({check.function}, _inputs)
except _GradcheckError as _failure:
    _message = str(_failure).replace(", dtype=torch.float64", "")
    _head, _, _rest = _message.partition("\\n")
    if _head.startswith("Jacobian mismatch") and "input " in _head:
        _number = int(_head.rstrip(",").rsplit(" ", 1)[-1])
        print(f"gradcheck: failed for input {{_number}} ({{_names[_number]}}).")
        print("Your backward (analytical) and finite differences (numerical) disagree:")
        print(_rest.rstrip("\\n"))
    else:
        print("gradcheck: failed.", _message.rstrip("\\n"))
else:
    print({GRADCHECK_PASSED.strip()!r})
"""


def program(exercise: Exercise, lines: list[str]) -> str:
    """The exercise's code with its blanks filled by `lines` (one entry per blank, each one or
    more lines, re-indented to the blank), and its gradcheck harness."""
    if len(lines) != exercise.blanks:
        raise ValueError(f"{exercise.blanks} blank(s) to fill, {len(lines)} given")
    filled = iter(lines)
    code = "".join(
        part.text if part.kind == "code" else _indented(next(filled), part.indent)
        for part in parts(exercise)
    )
    if exercise.gradcheck is not None:
        code += harness(exercise.gradcheck)
    return code


def unfilled(exercise: Exercise) -> str:
    return program(exercise, [""] * exercise.blanks)


def goal(exercise: Exercise) -> Goal:
    """What the filled code must do: its output (and gradcheck's verdict), its `.grad` values."""
    output = exercise.output + (GRADCHECK_PASSED if exercise.gradcheck is not None else "")
    return Goal(output, dict(exercise.grads), exercise.none_matters)
