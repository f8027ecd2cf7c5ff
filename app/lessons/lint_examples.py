"""Lints of examples met twice: a myth whose reveal answers a step of its own lesson, and a step
that asks an example of an earlier lesson again with other numbers.

A myth may be answered at any time, before the build-up too, and its reveal (belief, reality,
why it matters, the demo's code and output) comes with the answer; a myth's `forms` are asked in
review, each with its own reality and demo. lint_disclosure.py finds a step's answer written
in that reveal. This module finds the reveal that answers a step without writing its answer
out:

- the demo is the step's computation with other numbers (every computing line of the step,
  its numbers aside) and shows the gradient the step asks: the learner has seen the rule
  worked, and only the numbers change;
- the demo computes the gradient of the step's tensor at the same input value and prints the
  step's answer there (`log` at `0` has the gradient `inf`; so has `sqrt` at `0`);
- the myth asks the statement of one of the step's choices ("… not the derivative of forward"):
  its verdict says whether that choice is right.

A step whose code is an earlier lesson's example (a step, a pitfall's two sides, a myth's or
form's demo) with other numbers or names, printing what that example printed, asks the learner
to remember an outcome, not to work one out.
"""

from __future__ import annotations

import ast
import contextlib
import math
import re
from collections.abc import Iterator
from typing import NamedTuple

from app.lessons.disclosure import asks
from app.lessons.format import Lesson, Snippet, Step
from app.lessons.grading import TypedValueError, parse_typed_value
from app.lessons.lint_diagnosis import content_words
from app.lessons.lint_disclosure import flat_value

# A choice and a myth that share this many words in a row, at least two of them distinctive,
# make the same statement.
SAME_STATEMENT_WORDS = 4
SAME_STATEMENT_CONTENT = 2

_LITERAL = re.compile(r"-?\d+(?:\.\d*)?(?:[eE]-?\d+)?")
_PRINTED = re.compile(r"-?(?:\d+(?:\.\d*)?(?:[eE]-?\d+)?|inf|nan)")
_LEAF = re.compile(
    r"^(\w+)\s*=\s*torch\.tensor\((.+?)(?:,\s*dtype=[\w.]+)?,\s*requires_grad=True\)$"
)
_GRAD = re.compile(r"\b([A-Za-z_]\w*)\.grad\b")
_WORD = re.compile(r"[a-z0-9_.']+")


class Reveal(NamedTuple):
    where: str  # "myth 2", "myth 2's form 1"
    demo: Snippet | None
    statements: list[str]  # what it asks or states as its belief


def myth_reveals(lesson: Lesson) -> Iterator[Reveal]:
    for number, myth in enumerate(lesson.myths, start=1):
        yield Reveal(f"myth {number}", myth.demo, [myth.question, myth.belief])
        for form_number, form in enumerate(myth.forms, start=1):
            yield Reveal(f"myth {number}'s form {form_number}", form.demo, [form.question])


# --- the same computation with other numbers --------------------------------------------------
def computing_lines(code: str) -> list[str]:
    """The lines that compute (imports, prints and comments aside), in order, spaces folded and
    every number written as N: the computation, whatever numbers it is run on."""
    found = []
    for line in code.splitlines():
        text = " ".join(line.split())
        if text and not text.startswith(("import ", "from ", "print(", "#")):
            found.append(_LITERAL.sub("N", text))
    return found


def other_numbers(example: str, asked: str) -> bool:
    """Does `example` compute what `asked` computes, numbers aside: every computing line of
    it, in the same order (unscaling before clipping is not clipping before unscaling)?"""
    lines = computing_lines(asked)
    remaining = iter(computing_lines(example))
    return len(set(lines)) >= 2 and all(line in remaining for line in lines)


def asked_grads(step: Step) -> set[str]:
    """The tensors whose `.grad` the step asks: its typed value's, and any `NAME.grad` its
    choice question names."""
    found = set()
    if step.value_prediction is not None:
        found.add(step.value_prediction.tensor)
    if step.prediction is not None:
        found |= set(_GRAD.findall(step.prediction.question))
    return found


def shows_grad(demo: Snippet, name: str) -> bool:
    """Does the demo print `name.grad`?"""
    return any(
        line.strip().startswith("print(") and f"{name}.grad" in line
        for line in demo.code.splitlines()
    )


# --- the same point ---------------------------------------------------------------------------
def _points(snippet: Snippet) -> set[tuple[str, float, float]]:
    """(leaf, input value, its gradient) for each element of each leaf the code writes as a
    literal and whose `.grad` it states."""
    found: set[tuple[str, float, float]] = set()
    for line in snippet.code.splitlines():
        match = _LEAF.match(line.strip())
        if match is None or match.group(1) not in snippet.grads:
            continue
        try:
            inputs = flat_value(ast.literal_eval(match.group(2)))
        except (ValueError, SyntaxError, TypeError):
            continue
        grads = flat_value(snippet.grads[match.group(1)])
        if len(inputs) == len(grads):
            found |= {(match.group(1), v, g) for v, g in zip(inputs, grads, strict=True)}
    return found


def _answers(step: Step) -> list[list[float]]:
    """The step's answers as numbers: the choice answer when it is a value, the typed value."""
    found: list[list[float]] = []
    if step.prediction is not None:
        with contextlib.suppress(TypedValueError):  # words, not a value: nothing to compare
            found.append(flat_value(parse_typed_value(step.prediction.answer)))
    if step.value_prediction is not None:
        found.append(flat_value(step.value_prediction.expected))
    return [values for values in found if values]


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _printed(text: str) -> list[float]:
    return [float(number) for number in _PRINTED.findall(re.sub(r"float\d+|int\d+", "", text))]


def same_point(demo: Snippet, step: Step) -> tuple[str, float, float] | None:
    """A (leaf, input, gradient) the demo and the step share, where the gradient is the
    step's answer (every element of it) and the demo's output prints it."""
    if step.snippet is None:
        return None
    shared = _points(demo) & _points(step.snippet)
    printed = _printed(demo.output)
    for answer in _answers(step):
        hits = [p for p in shared if any(_same(p[2], value) for value in answer)]
        covered = all(any(_same(p[2], value) for p in hits) for value in answer)
        if hits and covered and all(any(_same(v, p) for p in printed) for v in answer):
            return sorted(hits)[0]
    return None


# --- the same statement -----------------------------------------------------------------------
def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("`", "").lower())


def shared_statement(first: str, second: str) -> str | None:
    """The longest run of words two texts share, when it is long enough to be one statement."""
    a, b = _words(first), _words(second)
    best: list[str] = []
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            if k > len(best):
                best = a[i : i + k]
    run = " ".join(best)
    if len(best) >= SAME_STATEMENT_WORDS and len(content_words(run)) >= SAME_STATEMENT_CONTENT:
        return run
    return None


def myth_answers(lesson: Lesson) -> Iterator[tuple[int, str]]:
    """(step number, problem) for each step a myth's reveal answers."""
    for number, step in enumerate(lesson.steps, start=1):
        if not asks(step) or step.snippet is None:
            continue
        for reveal in myth_reveals(lesson):
            demo = reveal.demo
            if demo is not None and other_numbers(demo.code, step.snippet.code):
                shown = sorted(name for name in asked_grads(step) if shows_grad(demo, name))
                if shown:
                    yield (
                        number,
                        f"{reveal.where}'s demo is this step's computation with other numbers "
                        f"and prints `{shown[0]}.grad`: a learner who answers the myth first "
                        "has seen the rule worked; give the demo another example",
                    )
                    continue
            point = same_point(demo, step) if demo is not None else None
            if point is not None:
                name, value, grad = point
                yield (
                    number,
                    f"{reveal.where}'s demo prints the gradient of `{name}` at {value:g}, "
                    f"{grad:g}, which is this step's answer: give the demo another point",
                )
                continue
            if step.prediction is None:
                continue
            for choice in step.prediction.texts:
                found = (shared_statement(choice, s) for s in reveal.statements)
                shared = next(filter(None, found), None)
                if shared is not None:
                    yield (
                        number,
                        f"{reveal.where} asks what the choice {choice!r} claims ({shared!r}): "
                        "its verdict judges that choice; ask the myth about another claim",
                    )
                    break


# --- an earlier lesson's example asked again with other numbers ---------------------------------
# The names a line binds: `w = …`, `(d1,) = …`, `for xb, yb in …`.
_BOUND = re.compile(
    r"^\s*(?:for\s+)?\(?\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*\)?\s*(?:=(?!=)|\bin\b)"
)


def _renamed(code: str) -> str:
    """`code` with every name it binds (`w = …`, `for xb, yb in …`) written by the order it was
    first bound (v1, v2, …)."""
    names: dict[str, str] = {}
    for line in code.splitlines():
        match = _BOUND.match(line)
        if match is not None:
            for name in re.split(r"\s*,\s*", match.group(1)):
                names.setdefault(name, f"v{len(names) + 1}")
    if not names:
        return code
    pattern = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w.])({pattern})(?!\w)", lambda m: names[m.group(1)], code)


class Shape(NamedTuple):
    """An example whatever its numbers and its own names: what it computes, in order, and what
    it prints."""

    lines: list[str]
    prints: set[str]


def example_shape(code: str) -> Shape:
    renamed = _renamed(code)
    prints = {
        _LITERAL.sub("N", " ".join(line.split()))
        for line in renamed.splitlines()
        if line.strip().startswith("print(")
    }
    return Shape(computing_lines(renamed), prints)


def _examples(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """(where, code) for every example a lesson works out: its steps, its pitfalls' two sides,
    its myths' demos and their forms'."""
    for number, step in enumerate(lesson.steps, start=1):
        if step.snippet is not None:
            yield f"{lesson.slug} step {number}", step.snippet.code
    for number, pitfall in enumerate(lesson.pitfalls, start=1):
        yield f"{lesson.slug} pitfall {number}", pitfall.wrong.code
        yield f"{lesson.slug} pitfall {number} (fixed)", pitfall.correct.code
    for reveal in myth_reveals(lesson):
        if reveal.demo is not None:
            yield f"{lesson.slug} {reveal.where}", reveal.demo.code


def _within(asked: Shape, example: Shape) -> bool:
    """Does the example compute every line of the asked code, in order, and print something
    the asked code prints?"""
    remaining = iter(example.lines)
    return (
        len(set(asked.lines)) >= 2
        and all(line in remaining for line in asked.lines)
        and bool(asked.prints & example.prints)
    )


def other_numbers_of_earlier(lessons: list[Lesson]) -> Iterator[tuple[str, str, str]]:
    """(lesson, where, problem) for a step that asks about an earlier lesson's example with
    other numbers or names: every computing line of it, in order, is that example's, and the
    example printed what it prints. The same code exactly is lint_disclosure.repeated_examples'
    finding."""
    seen: list[tuple[str, str, Shape]] = []
    for lesson in sorted(lessons, key=lambda lesson: lesson.order):
        for number, step in enumerate(lesson.steps, start=1):
            if step.snippet is None or not asks(step):
                continue
            code = step.snippet.code
            shape = example_shape(code)
            for where, earlier, earlier_shape in seen:
                if " ".join(earlier.split()) != " ".join(code.split()) and _within(
                    shape, earlier_shape
                ):
                    yield (
                        lesson.slug,
                        f"step {number} ({step.title})",
                        f"asks about {where}'s example again with other numbers or names: "
                        "the learner has seen its outcome worked out; ask the idea on another "
                        "example",
                    )
                    break
        seen += [(where, code, example_shape(code)) for where, code in _examples(lesson)]
