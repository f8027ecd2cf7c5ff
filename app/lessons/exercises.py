"""An exercise's code as it runs: its blanks filled with what a learner (or the reference, or
the bug) wrote, followed by the gradcheck harness when the exercise has one; and its goal.

Runtime code: `gradlab check` (app/lessons/check.py) runs the reference, the unfilled code and
the buggy code through here, and the exercise grader (app/modes/exercises.py) the learner's,
so all of them run exactly the same program around the blanks.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from app.lessons.behaviour import Goal, Verdict, judge
from app.lessons.format import BLANK, Exercise, Gradcheck, GradValue, Probe, Rerun
from app.sandbox.result import RunResult

# What a blank holds when it is left empty: the code still parses, and does nothing there.
EMPTY = "pass"
GRADCHECK_PASSED = "gradcheck: passed\n"
PROBE_MARK = "gradlab-probe:"  # the probe's report on stderr


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


def program(
    exercise: Exercise,
    lines: list[str],
    given: Callable[[str], str] = lambda text: text,
) -> str:
    """The exercise's code with its blanks filled by `lines` (one entry per blank, each one or
    more lines, re-indented to the blank), and its gradcheck harness; `given` rewrites the
    given code around the blanks (the grading's rerun and probe)."""
    if len(lines) != exercise.blanks:
        raise ValueError(f"{exercise.blanks} blank(s) to fill, {len(lines)} given")
    filled = iter(lines)
    code = "".join(
        given(part.text) if part.kind == "code" else _indented(next(filled), part.indent)
        for part in parts(exercise)
    )
    if exercise.gradcheck is not None:
        code += harness(exercise.gradcheck)
    return code


def _rerun_values(rerun: Rerun) -> Callable[[str], str]:
    def replaced(text: str) -> str:
        for old, new in rerun.replace.items():
            text = text.replace(old, new)
        return text

    return replaced


def _watched(probe: Probe) -> Callable[[str], str]:
    """The given code with the probe's watch after its line (at that line's indentation)."""

    def watched(text: str) -> str:
        out = []
        for line in text.splitlines(keepends=True):
            out.append(line)
            if line.strip() == probe.after.strip():
                indent = line[: len(line) - len(line.lstrip())]
                out.append(_indented(probe.watch, indent))
        return "".join(out)

    return watched


def _report(probe: Probe) -> str:
    """Code after the program: the probe's value, on stderr (stdout is graded byte for byte)."""
    return (
        f"\nimport sys as _gradlab_sys\n"
        f"print({PROBE_MARK!r}, repr({probe.value}), file=_gradlab_sys.stderr)\n"
    )


def graded_programs(exercise: Exercise, lines: list[str]) -> list[str]:
    """What the grading runs: the filled code (with the probe, if any), then, with a rerun,
    the filled code again with the rerun's values. A learner sees the first one's run."""
    first = (
        program(exercise, lines, _watched(exercise.probe)) + _report(exercise.probe)
        if exercise.probe is not None
        else program(exercise, lines)
    )
    if exercise.rerun is None:
        return [first]
    return [first, program(exercise, lines, _rerun_values(exercise.rerun))]


def probe_value(result: RunResult) -> str | None:
    """What the probe reported after the run (None: the run did not get that far)."""
    found = [line for line in result.stderr.splitlines() if line.startswith(PROBE_MARK)]
    return found[-1][len(PROBE_MARK) :].strip() if found else None


def without_probe(result: RunResult) -> RunResult:
    """The run as the learner sees it: without the probe's report."""
    kept = [line for line in result.stderr.splitlines(keepends=True) if PROBE_MARK not in line]
    return result.model_copy(update={"stderr": "".join(kept)})


def _values(rerun: Rerun) -> str:
    return ", ".join(f"`{new}` for `{old}`" for old, new in rerun.replace.items())


def judge_runs(exercise: Exercise, results: list[RunResult]) -> Verdict:
    """The filled code's runs (graded_programs) against the goal: the first must do what the
    goal says, the probe must find its behaviour, and the rerun must do what its own goal says
    (so the `.grad` values follow the values, as only the mechanism makes them)."""
    verdict = judge(goal(exercise), results[0])
    if not verdict.passed:
        return verdict
    probe = exercise.probe
    if probe is not None and probe_value(results[0]) != probe.expect:
        return Verdict(False, [probe.miss])
    rerun = exercise.rerun
    if rerun is not None:
        again = judge(_goal(exercise, rerun.output, rerun.grads), results[1])
        if not again.passed:
            told = f"The grading ran your code again with other values ({_values(rerun)}):"
            return Verdict(False, [told, *again.reasons])
    return verdict


def goal_by_hand(exercise: Exercise) -> list[list[str]]:
    """Fills that write the goal in by hand instead of doing what the task asks: the first
    blank prints the goal's output as a literal (and silences every later `print`) and sets
    the `.grad` of some of the goal's tensors to the goal's numbers, once for each subset of
    them (a tensor missing yet is passed over); the other blanks hold nothing. Only a rerun
    with other values, a probe or gradcheck tells these from the real thing, so each must fail
    the grading (`gradlab check` runs them)."""
    names = sorted(exercise.grads)
    fills = []
    for mask in range(2 ** min(len(names), 3)):
        chosen = [name for bit, name in enumerate(names[:3]) if mask >> bit & 1]
        lines = [
            "import builtins as _gradlab_b, sys as _gradlab_s, torch as _gradlab_t",
            "if not getattr(_gradlab_b, '_gradlab_goal', False):",
            "    _gradlab_b._gradlab_goal = True",
            f"    _gradlab_s.stdout.write({exercise.output!r})",
            "    _gradlab_b.print = lambda *args, **kwargs: None",
            *(
                f"    try:\n        {name}.grad = _gradlab_t.tensor({exercise.grads[name]!r})"
                "\n    except Exception:\n        pass"
                for name in chosen
            ),
        ]
        fills.append(["\n".join(lines), *[""] * (exercise.blanks - 1)])
    return fills


def unfilled(exercise: Exercise) -> str:
    return program(exercise, [""] * exercise.blanks)


def goal(exercise: Exercise) -> Goal:
    """What the filled code must do: its output (and gradcheck's verdict), its `.grad` values."""
    return _goal(exercise, exercise.output, exercise.grads)


def _goal(exercise: Exercise, output: str, grads: Mapping[str, GradValue]) -> Goal:
    """A goal of this exercise (its own, or its rerun's): gradcheck's verdict follows the
    output when the exercise has a gradcheck."""
    passed = GRADCHECK_PASSED if exercise.gradcheck is not None else ""
    return Goal(output + passed, dict(grads), exercise.none_matters)
