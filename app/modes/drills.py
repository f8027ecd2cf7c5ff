"""Predict-the-gradient drills, generated from a lesson's verified snippets.

Every `.grad` a snippet declares (and `gradlab check` proved) that is not None becomes a drill:
the learner reads the code and types the tensor's gradient before running it. Value predictions
of the build-up count as drills of their step too. Myth demos are left out: the deep dive keeps
their code hidden until the myth is answered, and a drill would show it.

A step with variants (app/lessons/variants.py) drills an instance instead of the code the step
just revealed: other numbers, the answer its run computed, `None` where that is the answer
(a detached tensor, a path never taken). `for_learner` puts the learner's instance in, one
whose code ran to the end: an instance that raised has no `.grad` to type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson, Snippet, ValueMisconception
from app.lessons.memo import per_object
from app.lessons.variants import Instance, asked_tensors, finished, pick


@dataclass(frozen=True)
class Drill:
    id: str  # "step-2.x", "pitfall-1.w" (the corrected code), "pitfall-1-wrong.w"
    source: str  # where the code comes from, for the learner
    code: str
    tensor: str
    # A number or nested list, as the lesson declares; None only on a variant instance.
    expected: Any
    step: int = 0  # the build-up step whose code it is (0: a pitfall's)
    pitfall: int = 0  # the pitfall whose code it is (0: a step's)
    # The step's named wrong values for this tensor: its drill is the same question.
    misconceptions: tuple[ValueMisconception, ...] = ()
    instance: int | None = None  # the variant instance asked, if the step has variants


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


@per_object
def lesson_drills(lesson: Lesson) -> tuple[Drill, ...]:
    """Every drill of a lesson, in reading order, each id unique (once per loaded lesson:
    app/lessons/memo.py)."""
    drills: list[Drill] = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.snippet is None:
            continue
        source = f"Step {number}: {step.title}"
        found = _from_snippet(f"step-{number}", source, step.snippet, step=number)
        guess = step.value_prediction
        if finished(step):  # every asked tensor, None included, set per learner
            template = step.variants.code if step.variants is not None else ""
            found = [
                Drill(f"step-{number}.{n}", source, template, n, None, number)
                for n in asked_tensors(step)
            ]
            drills.extend(found)
            continue
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
    return tuple(drills)


def value_key(learner: str, slug: str, step: int) -> str:
    """Names the instance a learner's typed value asks on a lesson page."""
    return f"{learner}/{slug}/{step}"


def on_instance(lesson: Lesson, drill: Drill, instance: Instance) -> Drill:
    """The drill asked on one instance of its step: that instance's code and answer."""
    step = lesson.steps[drill.step - 1]
    guess = step.value_prediction
    named = instance.misconceptions if guess is not None and guess.tensor == drill.tensor else ()
    expected = instance.grads.get(drill.tensor)
    return replace(
        drill, code=instance.code, expected=expected, misconceptions=named, instance=instance.index
    )


def drills_page_key(drill: Drill) -> str:
    """The drills page asks every tensor of a step on one instance."""
    return f"drills/step-{drill.step}"


def for_learner(
    lesson: Lesson,
    drill: Drill,
    learner: str,
    asked: str,
    previous: int | None = None,
    seen: frozenset[str] | None = None,
) -> Drill:
    """`drill` as `learner` is asked it `asked` (the drills page, a return of a review card):
    on a step with variants, an instance other than the one the typed value asks and, while
    another remains, than `previous` (the instance the previous return asked) and than an
    instance whose code is in `seen` (what the learner was shown, app/learning/practice/seen.py)."""
    if not drill.step:
        return drill
    step = lesson.steps[drill.step - 1]
    # A step without a typed value asks no instance on its lesson page: none to avoid.
    asks_value = step.value_prediction is not None
    avoid = value_key(learner, lesson.slug, drill.step) if asks_value else None
    key = f"{learner}/{asked}"
    instance = pick(step, key, avoid=avoid, previous=previous, ran=True, seen=seen)
    return on_instance(lesson, drill, instance) if instance is not None else drill


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
