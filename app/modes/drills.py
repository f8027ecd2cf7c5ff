"""Predict-the-gradient drills, generated from a lesson's verified snippets.

Every `.grad` a snippet declares (and `gradlab check` proved) that is not None becomes a drill:
the learner reads the code and types the tensor's gradient before running it. Value predictions
of the build-up count as drills of their step too. Myth demos are left out: the deep dive keeps
their code hidden until the myth is answered, and a drill would show it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.lessons.disclosure import Disclosure
from app.lessons.schema import Lesson, Snippet, ValueMisconception


@dataclass(frozen=True)
class Drill:
    id: str  # "step-2.x", "pitfall-1.w" (the corrected code), "pitfall-1-wrong.w"
    source: str  # where the code comes from, for the learner
    code: str
    tensor: str
    expected: Any  # a number or nested list, as the lesson declares (never None)
    step: int = 0  # the build-up step whose code it is (0: a pitfall's)
    pitfall: int = 0  # the pitfall whose code it is (0: a step's)
    # The step's named wrong values for this tensor: its drill is the same question.
    misconceptions: tuple[ValueMisconception, ...] = ()


def drill_open(drill: Drill, disclosure: Disclosure) -> bool:
    """A drill on a step's code answers that step's question; on a pitfall's, the pitfall's
    output: it is sent only once those are open (app/lessons/disclosure.py)."""
    if drill.step:
        return disclosure.step_open(drill.step)
    return disclosure.pitfall_open(disclosure.lesson.pitfalls[drill.pitfall - 1])


def _from_snippet(
    prefix: str, source: str, snippet: Snippet, step: int = 0, pitfall: int = 0
) -> list[Drill]:
    if snippet.error is not None:
        return []  # a run that raises leaves nothing worth predicting
    return [
        Drill(f"{prefix}.{name}", source, snippet.code, name, value, step, pitfall)
        for name, value in snippet.grads.items()
        if value is not None
    ]


def lesson_drills(lesson: Lesson) -> list[Drill]:
    """Every drill of a lesson, in reading order, each id unique."""
    drills: list[Drill] = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.snippet is None:
            continue
        source = f"Step {number}: {step.title}"
        found = _from_snippet(f"step-{number}", source, step.snippet, step=number)
        guess = step.value_prediction
        declared = {drill.tensor for drill in found}
        if guess is not None and guess.expected is not None and guess.tensor not in declared:
            drill_id = f"step-{number}.{guess.tensor}"
            code = step.snippet.code
            found.append(Drill(drill_id, source, code, guess.tensor, guess.expected, number))
        if guess is not None and guess.misconceptions:
            named = tuple(guess.misconceptions)
            found = [
                replace(d, misconceptions=named) if d.tensor == guess.tensor else d for d in found
            ]
        drills.extend(found)
    for number, pitfall in enumerate(lesson.pitfalls, start=1):
        title = pitfall.title
        corrected = _from_snippet(
            f"pitfall-{number}", f"Pitfall {number}, fixed: {title}", pitfall.correct, 0, number
        )
        wrong = _from_snippet(
            f"pitfall-{number}-wrong",
            f"Pitfall {number}, as written wrongly: {title}",
            pitfall.wrong,
            pitfall=number,
        )
        drills.extend(corrected + wrong)
    return drills


def find_drill(lesson: Lesson, drill_id: str) -> Drill | None:
    return next((drill for drill in lesson_drills(lesson) if drill.id == drill_id), None)


def value_drill_id(lesson: Lesson, step: int) -> str | None:
    """The drill a step's value prediction corresponds to (its misses share that drill)."""
    if not 1 <= step <= len(lesson.steps):
        return None
    guess = lesson.steps[step - 1].value_prediction
    if guess is None:
        return None
    drill_id = f"step-{step}.{guess.tensor}"
    return drill_id if find_drill(lesson, drill_id) is not None else None
