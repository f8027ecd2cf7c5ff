"""Lints that read a lesson as a learner does: for each question, whether any text the server
sends before its commit (`lint_visible` lists them) answers it.

A leak is the answer written out (long enough not to be a common word), the step's printed
output when it is the answer, the question's subject bound to the answer ("`y.grad` = 40",
"`x.grad` is None": a rule that names the answer), the typed value's numbers in a row, or the
same example (the same code, asked again) answered earlier in this lesson or the path
(app/lessons/lint_variants.py reads a step's variants, and the typed values that need some).
A pattern over the myths is a leak of the whole curriculum (`lint_myth_patterns`); an
exercise's card that names its diagnosis's answer, of that exercise (`lint_diagnosis`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.lessons.disclosure import asks
from app.lessons.format import GradValue, Lesson, Step
from app.lessons.lint_visible import Visible, same_computation, visible_before

# An answer shorter than this (None, True, 6.0) is a common word: it leaks only when the text
# binds it to the question's subject.
MIN_LITERAL = 6
# How far after its subject an answer may stand and still be what the text says it is.
BINDING_WINDOW = 40

_MARKUP = re.compile(r"`|\*|(?<!\w)_|_(?!\w)")
_SPAN = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE]-?\d+)?")
_BINDS = r"\s*(?:=|==|:|is|was|stays|becomes|gives|prints|returns|holds|→|->|reads|equals)\s*"


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())


def _code_key(code: str) -> str:
    return " ".join(code.split())


def _subjects(step: Step) -> list[str]:
    """What the question asks about: its code spans that name something (`x.grad`)."""
    found: list[str] = []
    if step.prediction is not None:
        spans = _SPAN.findall(step.prediction.question)
        found += [span for span in spans if re.search(r"[A-Za-z_]", span)]
    if step.value_prediction is not None:
        found.append(f"{step.value_prediction.tensor}.grad")
    return [subject for subject in found if len(subject) >= 3]


def _mentions(haystack: str, needle: str) -> bool:
    pattern = r"(?<![\w.=])" + re.escape(needle.lower()) + r"(?![\w])"
    return re.search(pattern, haystack.lower()) is not None


def _subject_pattern(subject: str) -> str:
    """`y.grad` is also written as a derivative: dz/dy, dL/dy, ∂z/∂y."""
    own = r"(?<![\w.])" + re.escape(subject.lower()) + r"(?![\w(])"
    name = re.fullmatch(r"([A-Za-z_]\w*)\.grad", subject)
    if name is None:
        return own
    derivative = r"[d∂][\w()]{1,12}\s*/\s*[d∂]" + re.escape(name.group(1).lower()) + r"(?!\w)"
    return f"(?:{own}|{derivative})"


def _binds(text: str, subject: str, answer: str) -> bool:
    """Does `text` say the subject is the answer ("`x.grad` is None", "y.grad = 40",
    "dz/dy = 3")? A word or a short number must follow at once ("is not None" says the
    opposite); a longer value may stand a little further on ("`x.grad` is now tensor([2.])")."""
    lead = _subject_pattern(subject) + _BINDS
    close = answer.isalpha() or len(answer) < 3
    gap = "" if close else rf"[^.;\n]{{0,{BINDING_WINDOW}}}?(?<![\w.])"
    pattern = lead + gap + re.escape(answer.lower()) + r"(?![\w.]\d|\w)"
    return re.search(pattern, _plain(text).lower()) is not None


def numbers_of(text: str) -> list[float]:
    return [float(match) for match in _NUMBER.findall(re.sub(r"float\d+|int\d+", "", text))]


def flat_value(value: GradValue) -> list[float]:
    if value is None:
        return []
    if isinstance(value, list):
        return [number for item in value for number in flat_value(item)]
    return [float(value)]


def _in_a_row(text: str, expected: list[float]) -> bool:
    """Are the expected numbers written one after the other somewhere in `text`?"""
    found = numbers_of(text)
    size = len(expected)
    return any(
        all(
            abs(a - b) <= 1e-6 * max(1.0, abs(b))
            for a, b in zip(found[i : i + size], expected, strict=True)
        )
        for i in range(len(found) - size + 1)
    )


def _trivial(values: list[float]) -> bool:
    """Small whole numbers in a row are in every lesson (shapes, indices): they tell nothing."""
    return all(value.is_integer() and abs(value) <= 4 for value in values)


def _show(values: list[float]) -> str:
    return "[" + ", ".join(f"{value:g}" for value in values) + "]"


def _answer_shapes(step: Step) -> list[str]:
    """The choice answer as it could be written: itself, and the printed output it names."""
    if step.prediction is None:
        return []
    answer = _plain(step.prediction.answer)
    shapes = [answer]
    inner = re.fullmatch(r"tensor\((.*)\)", answer)
    if inner:
        shapes.append(inner.group(1))
        values = numbers_of(inner.group(1))
        if len(values) == 1:
            shapes.append(f"{values[0]:g}")  # tensor(3.) is written 3 in prose
    output = step.snippet.output.strip() if step.snippet else ""
    if output and (answer in output or output in answer) and output not in shapes:
        shapes.append(" ".join(output.split()))
    return shapes


def question_leaks(lesson: Lesson, number: int, step: Step) -> Iterator[str]:
    """What answers step `number`'s questions among the texts sent before its commit."""
    code = step.snippet.code if step.snippet else ""
    for seen in visible_before(lesson, number):
        earlier = lesson.steps[seen.outcome_of - 1].snippet if seen.outcome_of else None
        if seen.outcome_of and (earlier is None or not same_computation(earlier.code, code)):
            continue  # another example's outcome: the same value there answers nothing here
        yield from choice_leaks(step, code, seen)
        yield from value_leaks(step, code, seen)


def choice_leaks(step: Step, code: str, seen: Visible) -> Iterator[str]:
    if step.prediction is None:
        return
    plain = _plain(seen.text)
    numbers = numbers_of(step.prediction.answer)
    if (
        len(numbers) >= 2
        and not _trivial(numbers)
        and _in_a_row(plain, numbers)
        and not _in_a_row(code, numbers)
    ):
        yield f"the answer's numbers {_show(numbers)} show in a row in {seen.where}"
    subjects = _subjects(step)
    for shape in _answer_shapes(step):
        if len(shape) >= MIN_LITERAL and _mentions(plain, shape) and shape not in code:
            yield f"the answer {shape!r} shows in {seen.where}"
            return
        if any(_binds(seen.text, subject, shape) for subject in subjects):
            yield f"{seen.where} says what the question asks: {shape!r}"
            return


def value_leaks(step: Step, code: str, seen: Visible) -> Iterator[str]:
    if step.value_prediction is None:
        return
    expected = flat_value(step.value_prediction.expected)
    plain = _plain(seen.text)
    if (
        len(expected) >= 2
        and not _trivial(expected)
        and _in_a_row(plain, expected)
        and not _in_a_row(code, expected)
    ):
        yield f"the typed value's numbers {_show(expected)} show in a row in {seen.where}"
    elif len(expected) == 1:
        value = f"{expected[0]:g}"
        if any(_binds(seen.text, subject, value) for subject in _subjects(step)):
            yield f"{seen.where} states the typed value {value}"


def repeated_examples(lessons: list[Lesson]) -> Iterator[tuple[str, str, str]]:
    """(lesson, where, problem) for a question on code whose outcome was shown earlier in the
    lesson or the path: asking the same example again tests memory, not understanding."""
    ordered = sorted(lessons, key=lambda lesson: lesson.order)
    shown: dict[str, str] = {}
    for lesson in ordered:
        for number, step in enumerate(lesson.steps, start=1):
            if step.snippet is None:
                continue
            key = _code_key(step.snippet.code)
            if asks(step) and key in shown:
                yield (
                    lesson.slug,
                    f"step {number} ({step.title})",
                    f"asks about the same code as {shown[key]}, whose outcome the learner "
                    "has seen: change the example (a rule may be asked again, not an example)",
                )
            shown.setdefault(key, f"{lesson.slug} step {number}")
