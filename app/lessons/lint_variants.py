"""Lints of what a step asks after its reveal: its typed value and its variant instances
(app/lessons/variants.py), read as the learner meets them.

The choice's reveal shows the step's own output and answer, and the typed value comes right
after it. A step without variants whose typed value is a value that reveal has just shown asks
the learner to copy, not to recall: it needs variants. An instance's typed value must not be
the number the step's reveal has just shown, and its code, the only text it adds before its
answer, must not state that answer. Nor may an instance be an example the learner has
already seen worked out: a myth (answerable at any time) or an earlier step's reveal with the
same numbers and that answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.lessons.lint_disclosure import Visible, choice_leaks, flat_value, numbers_of, value_leaks
from app.lessons.numeric import compare
from app.lessons.schema import ChoicePrediction, Lesson, Step
from app.lessons.variants import Instance, expected_value, instances


def _as_step(step: Step, instance: Instance) -> Step:
    """The step as one instance asks it: its code, choices, answer and typed value."""
    snippet, prediction, guess = step.snippet, step.prediction, step.value_prediction
    if snippet is not None:
        snippet = snippet.model_copy(update={"code": instance.code, "output": instance.output})
    if prediction is not None and instance.answer is not None:
        prediction = ChoicePrediction.model_construct(
            question=prediction.question,
            choices=instance.choices,
            answer=instance.answer,
            explanation=instance.explanation,
        )
    if guess is not None:
        guess = guess.model_copy(update={"expected": expected_value(step, instance)})
    return step.model_copy(
        update=dict(snippet=snippet, prediction=prediction, value_prediction=guess)
    )


def _shown_values(text: str) -> list[list[float]]:
    """The values a printed text shows: each `tensor(...)`'s numbers, and each number outside
    a tensor on its own."""
    found: list[list[float]] = []
    rest = []
    at = 0
    for start in (match.start() for match in re.finditer(r"tensor\(", text)):
        if start < at:
            continue
        depth, end = 0, start + len("tensor(")
        while end < len(text) and (depth or text[end] not in ",)"):
            depth += {"[": 1, "]": -1}.get(text[end], 0)
            end += 1
        found.append(numbers_of(text[start + len("tensor(") : end]))
        rest.append(text[at:start])
        at = end
    rest.append(text[at:])
    found += [[number] for number in numbers_of(" ".join(rest))]
    return found


def _repeats_the_reveal(step: Step) -> str | None:
    """Where a step without variants asks, after its reveal, a typed value that the reveal's
    output or answer has just shown."""
    guess, prediction = step.value_prediction, step.prediction
    if guess is None or prediction is None or step.variants is not None:
        return None  # a value asked alone is the question itself, asked before any reveal
    expected = flat_value(guess.expected)
    shown = [("its answer", prediction.answer)]
    if step.snippet is not None:
        shown.insert(0, ("its output", step.snippet.output))
    for where, text in shown:
        if expected and any(compare(expected, value).matches for value in _shown_values(text)):
            return where
    return None


def variant_leaks(step: Step) -> Iterator[str]:
    """What gives away an instance's answer: the number the step's reveal just showed asked
    again, or the instance's code stating its answer; and a step without variants whose typed
    value is such a number."""
    own = step.value_prediction
    where_shown = _repeats_the_reveal(step)
    if own is not None and where_shown is not None:
        yield (
            f"the typed value {own.expected!r} is shown in the step's reveal ({where_shown}) "
            "just before it is asked: give the step variants, so the typed value asks other "
            "numbers"
        )
    for instance in instances(step):
        where = f"variant instance {instance.index + 1}"
        expected = expected_value(step, instance)
        if (
            own is not None
            and step.prediction is not None
            and compare(expected, own.expected).matches
        ):
            yield (
                f"{where} asks the typed value {expected!r}, which the step's reveal has just "
                "shown: choose other params"
            )
        asked = _as_step(step, instance)
        seen = Visible(f"{where}'s code", instance.code)
        yield from choice_leaks(asked, instance.code, seen)
        yield from value_leaks(asked, instance.code, seen)


def _seen_examples(lesson: Lesson, number: int) -> Iterator[tuple[str, str, str]]:
    """(where, what sets it up, what it shows) for every worked example open when step
    `number`'s typed value is asked: the myths, and the steps up to this one."""
    for index, myth in enumerate(lesson.myths, start=1):
        demo = myth.demo
        setup = f"{demo.code if demo else ''} {myth.belief} {myth.reality}"
        shown = f"{demo.output if demo else ''} {myth.reality} {myth.why_it_matters}"
        yield f"myth {index}", setup, shown
    for index, step in enumerate(lesson.steps[: number - 1], start=1):
        snippet, prediction = step.snippet, step.prediction
        code = snippet.code if snippet else ""
        answer = prediction.answer if prediction else ""
        shown = f"{snippet.output if snippet else ''} {answer} {step.explanation}"
        yield f"step {index}", code, shown


def repeated_instances(lesson: Lesson, number: int, step: Step) -> Iterator[str]:
    """An instance whose numbers and answer a myth or an earlier step has already shown
    together: its typed value is copied from there, not recalled."""
    seen = list(_seen_examples(lesson, number))
    for instance in instances(step):
        params = [
            float(value)
            for value in (step.variants.params_of(instance.index) if step.variants else {}).values()
            if isinstance(value, int | float) and not isinstance(value, bool)
        ]
        expected = flat_value(expected_value(step, instance))
        # An answer that is one of the numbers put in (`x.grad` of `w * x` is `w`) matches any
        # example that prints a number it uses: too common to tell the same example.
        if not params or not expected or all(any(e == p for p in params) for e in expected):
            continue
        for where, setup, shown in seen:
            numbers = numbers_of(setup)
            if all(any(abs(p - n) < 1e-9 for n in numbers) for p in params) and any(
                compare(expected, value).matches for value in _shown_values(shown)
            ):
                answer = expected_value(step, instance)
                yield (
                    f"variant instance {instance.index + 1} is the example {where} has already "
                    f"worked out (the same numbers, the answer {answer!r}): choose other params"
                )
                break
