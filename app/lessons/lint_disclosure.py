"""Lints that read a lesson as a learner does: for each question, every text the server sends
before its commit (app/lessons/disclosure.py decides which), and whether any of it answers.

Before step N's commit a learner going through in order has the introduction, every step's
title, setup and choice question, the value questions of steps that ask only a value and of
steps 1..N-1, the myths' questions and their reveals (a myth may be answered at any time, so
its belief, reality and why it matters, and its demo's output on the same computation, may come
before any step), the reveals of steps 1..N-1 (concept,
explanation, insight, the prediction's answer and explanation, what the code printed or
raised, the typed value), the text of steps that ask nothing, and the pitfalls opened by
`after_step` < N. The reference is never among it: it opens after the build-up.

A leak is the answer written out (long enough not to be a common word), the step's printed
output when it is the answer, the question's subject bound to the answer ("`y.grad` = 40",
"`x.grad` is None": a rule that names the answer), the typed value's numbers in a row, or the
same example (the same code, asked again) answered earlier in this lesson or the path
(app/lessons/lint_variants.py reads a step's variants, and the typed values that need some). A
pattern over the myths (a fixed yes/no split, a first word or a position that predicts the
answer) is a leak of the whole curriculum.

An exercise that asks a diagnosis shows its card (title and task) before the diagnosis is
committed: neither may hold a distinctive word of the answer. A distinctive word is a word of
the answer (letters only, at least four, not a common function word, a plural or possessive
read as its singular, code spans left out) that no wrong choice has: a word the choices share
tells nothing, one only the answer has points at it ("A running total that trains on every loss
so far" points at "every step sends the gradients of all the earlier losses").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import NamedTuple

from app.lessons.disclosure import (
    Disclosure,
    asks,
    exercise_texts,
    pitfall_texts,
    reference_texts,
)
from app.lessons.schema import GradValue, Lesson, Step

# An answer shorter than this (None, True, 6.0) is a common word: it leaks only when the text
# binds it to the question's subject.
MIN_LITERAL = 6
# How far after its subject an answer may stand and still be what the text says it is.
BINDING_WINDOW = 40
# A myth question's first word predicts its answer when used this often with this share of
# one answer; so does a position in the lessons' myth lists.
PATTERN_USES = 5
PATTERN_SHARE = 0.8

_MARKUP = re.compile(r"`|\*|(?<!\w)_|_(?!\w)")
_SPAN = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE]-?\d+)?")
_BINDS = r"\s*(?:=|==|:|is|was|stays|becomes|gives|prints|returns|holds|→|->|reads|equals)\s*"


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())


def _code_key(code: str) -> str:
    return " ".join(code.split())


class Visible(NamedTuple):
    where: str
    text: str
    outcome_of: int = 0  # the step whose outcome (answer, output, error, value) this is


def visible_before(lesson: Lesson, number: int) -> list[Visible]:
    """Every text a learner going in order is sent before step `number`'s commit, its own
    title, setup and choice question apart (lint.py checks those)."""
    shown = Disclosure.before_step(lesson, number)
    found: list[Visible] = [Visible("the introduction", " ".join([lesson.title, lesson.summary]))]
    found += [Visible(f"the overview ({k})", v) for k, v in lesson.overview.model_dump().items()]
    found += [
        Visible(f"the mental model ({k})", v)
        for k, v in lesson.mental_model.model_dump().items()
        if v
    ]
    for other, step in enumerate(lesson.steps, start=1):
        if other == number:
            continue  # its own value question comes with the choice's reveal, or is the question
        found += _step_front(other, step, shown)
        if shown.step_open(other):
            found += _step_reveal(other, step)
    for pitfall_number, pitfall in shown.pitfalls():
        found += [Visible(*item) for item in pitfall_texts(pitfall_number, pitfall)]
    for exercise_number, exercise in shown.exercises():
        found += [Visible(*item) for item in exercise_texts(exercise_number, exercise)]
    if shown.reference:
        found += [Visible(*item) for item in reference_texts(lesson)]
    found += [
        Visible(f"myth {n}'s question", myth.question) for n, myth in enumerate(lesson.myths, 1)
    ]
    found += _myth_reveals(lesson, lesson.steps[number - 1])
    return found


def _myth_reveals(lesson: Lesson, step: Step) -> list[Visible]:
    """A myth may be answered at any time, before the build-up too, and its reveal (belief,
    reality, why it matters, the demo's output) comes with the answer; so may each of its
    forms in review, with its own reality and demo. A demo's output answers only a question on
    the same computation."""
    code = step.snippet.code if step.snippet else ""
    found: list[Visible] = []
    for number, myth in enumerate(lesson.myths, start=1):
        where = f"myth {number}'s reveal"
        found.append(Visible(where, " ".join([myth.belief, myth.reality, myth.why_it_matters])))
        demo = myth.demo
        if demo is not None and demo.output and same_computation(demo.code, code):
            found.append(Visible(f"{where} (its demo's output)", demo.output))
        for form_number, form in enumerate(myth.forms, start=1):
            # A form's reality speaks of its own code and numbers (the myth's belief and why it
            # matters are above): it answers only a question on the same computation.
            if same_computation(form.demo.code, code):
                where = f"myth {number}'s form {form_number}'s reveal"
                found.append(Visible(where, form.reality))
                found.append(Visible(f"{where} (its demo's output)", form.demo.output))
    return found


def _step_front(number: int, step: Step, shown: Disclosure) -> list[Visible]:
    where = f"step {number}"
    title = " ".join(filter(None, [step.title, step.setup]))
    found = [Visible(f"{where}'s title or setup", title)]
    if step.prediction is not None:
        found.append(Visible(f"{where}'s question", step.prediction.question))
    if step.value_prediction is not None and shown.value_open(number):
        found.append(Visible(f"{where}'s value question", step.value_prediction.question))
    return found


def _step_reveal(number: int, step: Step) -> list[Visible]:
    """The step's prose, and its outcomes: those answer only a question on the same
    computation (another example may well give the same value)."""
    where = f"step {number}'s " + ("reveal" if asks(step) else "text")
    prose = [step.concept, step.explanation, step.insight, step.insight_question or ""]
    if step.prediction is not None:
        prose.append(step.prediction.explanation)
    found = [Visible(where, " ".join(prose))]
    if step.prediction is not None:
        found.append(Visible(f"{where} (its answer)", step.prediction.answer, number))
    if step.snippet is not None:
        if step.snippet.output:
            found.append(Visible(f"{where} (its output)", step.snippet.output, number))
        if step.snippet.error is not None:
            error = f"{step.snippet.error.type} {step.snippet.error.message_contains}"
            found.append(Visible(f"{where} (its error)", error, number))
    if step.value_prediction is not None:
        guess = step.value_prediction
        value = f"{guess.tensor}.grad = {guess.expected}"
        found += [Visible(where, guess.explanation), Visible(f"{where} (its value)", value, number)]
    return found


def _statements(code: str) -> set[str]:
    """The lines that compute (imports and prints aside), spaces folded."""
    lines = {" ".join(line.split()) for line in code.splitlines()}
    return {line for line in lines if line and not line.startswith(("import ", "print(", "#"))}


def same_computation(earlier: str, later: str) -> bool:
    """Does the later code redo the earlier computation (every computing line of it)?"""
    done = _statements(earlier)
    return len(done) >= 2 and done <= _statements(later)


# --- what a question's answer looks like in text ------------------------------------------------
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


# --- myths over the curriculum --------------------------------------------------------------
def myth_patterns(lessons: list[Lesson]) -> Iterator[str]:
    """Patterns a learner could answer the myths by without reading them."""
    splits = {
        lesson.slug: tuple(sorted(Counter(m.answer for m in lesson.myths).items()))
        for lesson in lessons
        if lesson.myths
    }
    if len(splits) >= 2 and len(set(splits.values())) == 1:
        split = ", ".join(f"{count} {answer}" for answer, count in next(iter(splits.values())))
        yield (
            f"every lesson's myths split the same way ({split}): the last answer of a lesson "
            "follows from the others; vary the split"
        )
    firsts: dict[str, list[str]] = defaultdict(list)
    positions: dict[int, list[str]] = defaultdict(list)
    for lesson in lessons:
        for position, myth in enumerate(lesson.myths, start=1):
            words = _plain(myth.question).split()
            if words:
                firsts[words[0].lower().strip("`*_")].append(myth.answer)
            positions[position].append(myth.answer)
    for word, answers in sorted(firsts.items()):
        yield from _predicts(f"a myth starting {word.capitalize()!r}", answers)
    for position, answers in sorted(positions.items()):
        yield from _predicts(f"myth {position} of a lesson", answers)


def _predicts(what: str, answers: list[str]) -> Iterator[str]:
    if len(answers) < PATTERN_USES:
        return
    answer, count = Counter(answers).most_common(1)[0]
    if count / len(answers) >= PATTERN_SHARE:
        yield (
            f"{what} answers {answer!r} {count} times out of {len(answers)}: the pattern "
            "gives the answer away; reword questions rather than flipping facts"
        )


# --- an exercise's card before its diagnosis ----------------------------------------------------
# Words too common to point at any choice.
_COMMON = frozenset(
    {
        "that",
        "this",
        "with",
        "from",
        "into",
        "their",
        "there",
        "they",
        "what",
        "when",
        "which",
        "where",
        "have",
        "does",
        "were",
        "been",
        "will",
        "would",
        "also",
        "some",
        "then",
        "them",
        "these",
        "those",
        "your",
        "about",
        "because",
        "while",
        "each",
        "than",
    }
)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _stem(word: str) -> str:
    word = word.lower().removesuffix("'s").removesuffix("'")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("ss", "sh", "ch", "x")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """The words of a text that could point at an answer, stemmed; code spans left out."""
    prose = _SPAN.sub(" ", text)
    return {
        stem
        for word in _WORD.findall(prose)
        if len(stem := _stem(word)) >= 4 and stem not in _COMMON
    }


def diagnosis_card_leaks(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """(where, problem) for each exercise card whose title or task holds a word only the
    diagnosis's answer has."""
    for number, exercise in enumerate(lesson.exercises, start=1):
        diagnosis = exercise.diagnosis
        if diagnosis is None:
            continue
        others: set[str] = set()
        for text in diagnosis.texts:
            if text != diagnosis.answer:
                others |= content_words(text)
        distinctive = content_words(diagnosis.answer) - others
        for field, text in (("title", exercise.title), ("task", exercise.task)):
            found = sorted(content_words(text) & distinctive)
            if found:
                yield (
                    f"exercise {number} ({exercise.title})",
                    f"its {field} names the diagnosis's answer before it is committed: "
                    f"{', '.join(repr(word) for word in found)} "
                    "(words of the answer that no wrong choice has)",
                )
