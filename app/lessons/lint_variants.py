"""Lints of what a step asks after its reveal: its typed value and its variant instances
(app/lessons/variants.py), read as the learner meets them.

The choice's reveal shows the step's own output and answer, and the typed value comes right
after it. A step without variants whose typed value is a value that reveal has just shown, in
its output, its answer or its words, asks the learner to copy, not to recall: it needs
variants (or prose that leaves the number out). An instance's typed value must not be
the number the step's reveal has just shown, and its code, the only text it adds before its
answer, must not state that answer. Nor may an instance be an example the learner has
already seen worked out: a myth (answerable at any time) or an earlier step's reveal with the
same numbers and that answer.

Review asks a missed item in another form than the lesson page's (app/learning/kinds/): a
step's variant instance, a myth's form. `missing_forms` fails a question that has none to
give, once `REQUIRE_FORMS` is on; `form_counts` is what `gradlab check` prints of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from app.lessons.format import ChoicePrediction, Lesson, Step
from app.lessons.lint_disclosure import (
    _in_a_row,
    _plain,
    _show,
    _subject_pattern,
    choice_leaks,
    flat_value,
    numbers_of,
    value_leaks,
)
from app.lessons.lint_visible import Visible
from app.lessons.numeric import compare
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


# How far after its subject ("`fc2.bias.grad` went from `2` to `4`") the prose may state a
# typed value and still be saying what it is.
STATED_WINDOW = 40
_RESULT = re.compile(r"=\s*(-?\d+(?:\.\d*)?(?:[eE]-?\d+)?)")


def _reveal_prose(step: Step) -> str:
    """What the choice's reveal writes in words before the typed value is asked: the concept,
    explanation, insight and the prediction's explanation, and the `why` of the wrong choice
    the learner picked (any of them)."""
    texts = [step.concept, step.explanation, step.insight, step.insight_question or ""]
    if step.prediction is not None:
        texts.append(step.prediction.explanation)
        texts += [choice.why or "" for choice in step.prediction.choices]
    return " ".join(_plain(text).replace("\u2212", "-") for text in texts)


def _results(text: str) -> list[float]:
    """The numbers the text gives as results: each right-hand side of an `=`."""
    return [float(match) for match in _RESULT.findall(text)]


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _states_after(text: str, subject: str, value: float) -> bool:
    """Does the text name the subject and, in the same clause just after, the value?"""
    for match in re.finditer(_subject_pattern(subject), text.lower()):
        clause = re.split(r"[;\n]|\.\s", text[match.end() : match.end() + STATED_WINDOW])[0]
        if any(_close(number, value) for number in numbers_of(clause)):
            return True
    return False


def states_the_typed_value(step: Step) -> str | None:
    """How the choice's reveal states the step's typed value in words, if it does: its numbers
    in a row ("`[[-5.25, -5.25]]`"), each as a result in turn ("… = -4 and … = -6"), or, for
    one number, right after its tensor's name ("`fc2.bias.grad` went from `2` to `4`")."""
    guess = step.value_prediction
    if guess is None or step.prediction is None or step.variants is not None:
        return None  # asked alone it comes before any reveal; variants ask other numbers
    expected = flat_value(guess.expected)
    prose = _reveal_prose(step)
    if len(expected) >= 2:
        if _in_a_row(prose, expected):
            return f"its numbers {_show(expected)} in a row"
        results = _results(prose)
        size = len(expected)
        for start in range(len(results) - size + 1):
            row = results[start : start + size]
            if all(_close(a, b) for a, b in zip(row, expected, strict=True)):
                return f"its numbers {_show(expected)}, one result after another"
        return None
    if len(expected) == 1 and _states_after(prose, f"{guess.tensor}.grad", expected[0]):
        return f"{expected[0]:g} right after `{guess.tensor}.grad`"
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
    stated = states_the_typed_value(step)
    if own is not None and stated is not None:
        yield (
            f"the step's reveal states the typed value {own.expected!r} in words ({stated}) "
            "just before it is asked: take the number out of the prose, or give the step "
            "variants so the typed value asks other numbers"
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


# Off for `gradlab check` on a pack of one's own, where it prints how many questions have other
# forms and lists the rest; the bundled curriculum is held to it by a test
# (tests/lessons/test_review_forms_lint.py), where it is on.
REQUIRE_FORMS = False
# The other forms review needs of a question: one asked on each of two returns in a row.
MIN_FORMS = 2


def asks_a_computed_answer(step: Step) -> bool:
    """A step whose question review asks again on other numbers (a prediction, a typed value:
    each `Question` says whether it is `computed`)."""
    return any(question.computed for _, question in step.questions())


def has_variants(step: Step) -> bool:
    return step.variants is not None and step.variants.count >= MIN_FORMS


def review_instances(step: Step) -> int:
    """How many instances review may ask: all but the one its typed value asks on the lesson
    page."""
    count = step.variants.count if step.variants is not None else 0
    return count - 1 if count and step.value_prediction is not None else count


def missing_forms(lesson: Lesson) -> Iterator[tuple[int | str, str]]:
    """(a step's number or a myth's place, the problem) for each question review would ask again
    as it was asked on the lesson page: a step with a prediction or a typed value and neither
    variants with at least two instances nor `no_variants`, a myth with fewer than two
    forms. Nothing while `REQUIRE_FORMS` is off."""
    if not REQUIRE_FORMS:
        return
    for number, step in enumerate(lesson.steps, start=1):
        if not asks_a_computed_answer(step) or step.no_variants is not None:
            continue
        if not has_variants(step):
            yield (
                number,
                "review would ask it again on the code the learner has seen: give it "
                f"`variants` with at least {MIN_FORMS} instances, or say in `no_variants` why "
                "the sandbox cannot compute its answer with other numbers",
            )
        elif review_instances(step) < MIN_FORMS:
            yield (
                number,
                f"review can ask only {review_instances(step)} instance (its typed value asks "
                "another on the lesson page), so every return asks the same: give `variants` "
                f"at least {MIN_FORMS + 1} instances",
            )
    for number, myth in enumerate(lesson.myths, start=1):
        if len(myth.forms) < MIN_FORMS:
            yield (
                f"myth {number}",
                f"has {len(myth.forms)} other forms: review asks a missed myth as one of its "
                f"`forms`, another each time, so it needs at least {MIN_FORMS}",
            )


@dataclass
class FormCounts:
    """How many questions review can ask in other forms than the lesson page's."""

    steps: int = 0  # every step
    with_variants: int = 0  # variants with at least two instances
    no_variants: list[tuple[str, str]] = field(default_factory=list)  # (where, why)
    # With variants, but one instance left for review (the other is the typed value's).
    one_left: list[str] = field(default_factory=list)
    neither: int = 0
    neither_asking: int = 0  # of those, steps with a prediction or a typed value
    myths: int = 0
    myths_with_forms: int = 0  # at least two forms

    def lines(self) -> list[str]:
        found = [
            f"Review forms: {self.with_variants} of {self.steps} steps have variants with at "
            f"least {MIN_FORMS} instances, {len(self.no_variants)} say why they have none "
            f"(no_variants), {self.neither} have neither ({self.neither_asking} of them ask a "
            f"prediction or a typed value); {self.myths_with_forms} of {self.myths} myths have "
            f"at least {MIN_FORMS} other forms"
        ]
        found += [f"  no variants: {where}: {why}" for where, why in self.no_variants]
        found += [
            f"  one instance for review: {where}: its typed value asks the other on the lesson "
            "page, so every return asks the same"
            for where in self.one_left
        ]
        return found


def form_counts(lessons: Sequence[Lesson]) -> FormCounts:
    counts = FormCounts()
    for lesson in lessons:
        for number, step in enumerate(lesson.steps, start=1):
            counts.steps += 1
            if has_variants(step):
                counts.with_variants += 1
                if review_instances(step) < MIN_FORMS:
                    counts.one_left.append(f"{lesson.slug} step {number} ({step.title})")
            elif step.no_variants is not None:
                where = f"{lesson.slug} step {number} ({step.title})"
                counts.no_variants.append((where, " ".join(step.no_variants.split())))
            else:
                counts.neither += 1
                counts.neither_asking += asks_a_computed_answer(step)
        counts.myths += len(lesson.myths)
        counts.myths_with_forms += sum(len(myth.forms) >= MIN_FORMS for myth in lesson.myths)
    return counts
