"""Pedagogy lints: `gradlab check` proves the quizzes test understanding, not only that the
code runs.

A prediction is worth only as much as its question. These rules catch what lets a learner
pass without understanding: an answer visible before the commit, a wrong choice that explains
nothing, a question whose wording rules a choice out, myths that one answer wins, the same
idea asked twice, a path that uses an idea before teaching it. Each finding names the lesson,
where, and the problem.

What the page shows before a learner commits (see `Step` and `Myth` in the schema): the lesson's
title, summary, overview and mental model; a step's title, setup, code, question and choices;
a myth's question. Code and the question's own numbers are the inputs of a question, so a number
found there is not a leak. app/lessons/lint_disclosure.py reads the rest of what is sent before
each commit (earlier reveals, open value questions, open pitfalls, earlier lessons' examples:
app/lessons/lint_visible.py lists them), app/lessons/lint_myth_patterns.py the myths' patterns
over the curriculum and app/lessons/lint_diagnosis.py an exercise's card before its diagnosis.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from app.lessons.lint_cards import card_problems
from app.lessons.lint_diagnosis import diagnosis_card_leaks
from app.lessons.lint_disclosure import question_leaks, repeated_examples
from app.lessons.lint_examples import myth_answers, other_numbers_of_earlier
from app.lessons.lint_myth_patterns import myth_patterns
from app.lessons.lint_variants import missing_forms, repeated_instances, variant_leaks
from app.lessons.schema import Lesson, Level, Step, StepLevel

WORDS_PER_MINUTE = 200
MINUTES_PER_ITEM = 0.5  # a prediction, value prediction, myth or pitfall
# `minutes` below this share of the estimate is "far below" the reading time.
MINUTES_TOLERANCE = 0.6
# Share of myths answered "yes" across the curriculum.
YES_SHARE = (0.4, 0.6)
# Two myth questions whose word sets overlap this much ask the same thing.
SAME_QUESTION = 0.85
# Below this length an answer ("None", "True") is too common a word to count as given away by
# the lesson's introduction; the step's own title, setup and question are still checked.
MIN_INTRO_ANSWER = 6

# Lesson levels and step levels on one scale: a path and a lesson both climb it.
_RANK = {"beginner": 0, "foundation": 0, "intermediate": 1, "advanced": 2, "expert": 3}


# A step may stretch one level above its lesson, no further: a beginner lesson's last step is
# "intermediate", never "advanced".
STEP_STRETCH = 1


def rank(level: Level | StepLevel) -> int:
    return _RANK[level.value]


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d*)?(?:[eE]-?\d+)?")
_BARE_REFERENCE = re.compile(r"\blessons? \d+\b", re.IGNORECASE)
_LESSON_LINK = re.compile(r"\]\(/lessons/([a-z0-9-]+)[^)]*\)")
# A question that asks what the code prints presumes it runs: a choice that it raises is then
# ruled out by the wording alone, unless the question names that outcome too.
_ASKS_PRINTED = re.compile(r"\bwhat (?:does|do|will)\b[^?]*\b(?:print|prints|show|shows)\b", re.I)
_NAMES_RAISING = re.compile(r"\brais|\berror\b", re.I)
_RAISES = re.compile(r"\braises?\b|\b[A-Z]\w*Error\b")
_CONFUSING_WORDS = re.compile(r"\b(upstream|downstream)\b", re.IGNORECASE)
# Code marks and emphasis; an underscore only where it marks emphasis, not inside a name.
_MARKUP = re.compile(r"`|\*|(?<!\w)_|_(?!\w)")
# The page sets typographic quotes; a lesson file has straight ones.
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


@dataclass(frozen=True)
class Finding:
    lesson: str
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.lesson}: {self.where}: {self.problem}"


def plain(text: str) -> str:
    """Text as a learner reads it: no Markdown code or emphasis marks, spaces folded."""
    return " ".join(_MARKUP.sub("", text.translate(_QUOTES)).split())


def numbers(text: str) -> set[float]:
    """The numbers written in `text` (signs dropped: "-0.09" gives away "0.09" too)."""
    return {round(float(match), 6) for match in _NUMBER.findall(text)}


def _flat_numbers(value: object) -> set[float]:
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int | float):
        return {round(abs(float(value)), 6)}
    if isinstance(value, list):
        return set().union(*(_flat_numbers(item) for item in value)) if value else set()
    return set()


def mentions(haystack: str, needle: str) -> bool:
    # `requires_grad=True` passes an argument; it does not state that something is True.
    pattern = r"(?<![\w.=])" + re.escape(needle.lower()) + r"(?![\w])"
    return re.search(pattern, haystack.lower()) is not None


def _show(values: Iterable[float]) -> str:
    return ", ".join(f"{value:g}" for value in sorted(values))


def step_label(number: int, step: Step) -> str:
    return f"step {number} ({step.title})"


def _intro(lesson: Lesson) -> str:
    parts = [lesson.title, lesson.summary, *lesson.overview.model_dump().values()]
    parts += [value for value in lesson.mental_model.model_dump().values() if value]
    return plain(" ".join(parts))


def _step_leaks(lesson: Lesson, number: int, step: Step, intro: str) -> Iterator[Finding]:
    where = step_label(number, step)
    code = step.snippet.code if step.snippet else ""
    shown = plain(" ".join(filter(None, [step.title, step.setup])))
    if step.prediction is not None:
        question = plain(step.prediction.question)
        answer = plain(step.prediction.answer)
        if mentions(shown, answer):
            yield Finding(lesson.slug, where, f"the answer {answer!r} shows in the title or setup")
        # A question may name choices ("True or False?"); it leaks when it names the answer alone.
        others = [plain(text) for text in step.prediction.texts if text != step.prediction.answer]
        if mentions(question, answer) and not any(mentions(question, o) for o in others):
            yield Finding(lesson.slug, where, f"the answer {answer!r} shows in the question")
        if len(answer) >= MIN_INTRO_ANSWER and mentions(intro, answer):
            yield Finding(
                lesson.slug,
                where,
                f"the answer {answer!r} shows in the lesson's introduction "
                "(title, summary, overview or mental model)",
            )
        leaked = (numbers(answer) - numbers(code) - numbers(question)) & numbers(shown)
        if leaked:
            yield Finding(
                lesson.slug,
                where,
                f"the answer's number(s) {_show(leaked)} show in the title or setup",
            )
    guess = step.value_prediction
    if guess is not None:
        visible = shown + " " + plain(guess.question)
        expected = _flat_numbers(guess.expected) - numbers(code)
        leaked = expected & numbers(visible)
        if leaked:
            yield Finding(
                lesson.slug,
                f"{where} value prediction",
                f"the expected value's number(s) {_show(leaked)} show before the answer",
            )
        # A misconception's `why` shows while the answer still waits.
        for count, wrong in enumerate(guess.misconceptions, start=1):
            told = (expected - _flat_numbers(wrong.value)) & numbers(plain(wrong.why))
            if told:
                yield Finding(
                    lesson.slug,
                    f"{where} value misconception {count}",
                    f"its why gives the expected value's number(s) {_show(told)} away",
                )


def _choice_problems(lesson: Lesson, number: int, step: Step) -> Iterator[Finding]:
    if step.prediction is None:
        return
    question = step.prediction.question
    raising = [text for text in step.prediction.texts if _RAISES.search(text)]
    if raising and _ASKS_PRINTED.search(question) and not _NAMES_RAISING.search(question):
        yield Finding(
            lesson.slug,
            step_label(number, step),
            f"the question asks what is printed, so the choice {raising[0]!r} is ruled out by "
            "its wording: ask what happens, or whether it prints or raises",
        )
    for choice in step.prediction.choices:
        if choice.text != step.prediction.answer and choice.why is None:
            yield Finding(
                lesson.slug,
                step_label(number, step),
                f"the wrong choice {choice.text!r} has no `why` (what misconception it is)",
            )
        if choice.text == step.prediction.answer and choice.because is not None:
            yield Finding(
                lesson.slug,
                step_label(number, step),
                "the right choice has a `because`: that is for wrong choices that claim to be "
                "what other code gives",
            )


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for name, item in value.__dict__.items():
            if name != "claims":  # for the author: a learner never reads them
                yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def interactive_items(lesson: Lesson) -> int:
    steps = sum(
        (step.prediction is not None) + (step.value_prediction is not None) for step in lesson.steps
    )
    return steps + len(lesson.myths) + len(lesson.pitfalls)


def estimated_minutes(lesson: Lesson) -> float:
    words = sum(len(text.split()) for text in _texts(lesson))
    return words / WORDS_PER_MINUTE + MINUTES_PER_ITEM * interactive_items(lesson)


def _prose(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """Every piece of prose with where it stands (code is not prose)."""
    code_fields = {"code", "output", "because", "diagram", "claims"}

    def walk(value: object, where: str) -> Iterator[tuple[str, str]]:
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, BaseModel):
            for name, item in value.__dict__.items():
                if name not in code_fields:
                    yield from walk(item, f"{where}.{name}" if where else name)
        elif isinstance(value, list):
            for index, item in enumerate(value, start=1):
                yield from walk(item, f"{where}[{index}]")

    yield from walk(lesson, "")


def _level_problems(lesson: Lesson) -> Iterator[Finding]:
    """Step levels climb within a lesson and stretch at most one level above the lesson's."""
    previous = StepLevel.foundation
    for number, step in enumerate(lesson.steps, start=1):
        where = step_label(number, step)
        if rank(step.level) < rank(previous):
            yield Finding(
                lesson.slug,
                where,
                f"level {step.level.value} comes after a {previous.value} step: "
                "levels must not go down within a lesson",
            )
        if rank(step.level) > rank(lesson.level) + STEP_STRETCH:
            yield Finding(
                lesson.slug,
                where,
                f"level {step.level.value} in a {lesson.level.value} lesson: a step may be "
                f"at most {STEP_STRETCH} level above its lesson",
            )
        previous = max(previous, step.level, key=rank)


def lint_lesson(lesson: Lesson, slugs: set[str]) -> list[Finding]:
    """The rules that read one lesson; `slugs` are the lessons a link may point at."""
    findings: list[Finding] = []
    intro = _intro(lesson)
    findings += _level_problems(lesson)
    for number, step in enumerate(lesson.steps, start=1):
        findings += _step_leaks(lesson, number, step, intro)
        findings += [
            Finding(lesson.slug, step_label(number, step), problem)
            for problem in dict.fromkeys(question_leaks(lesson, number, step))  # each once
        ]
        findings += [
            Finding(lesson.slug, step_label(number, step), problem)
            for problem in dict.fromkeys(variant_leaks(step))
        ]
        findings += [
            Finding(lesson.slug, step_label(number, step), problem)
            for problem in repeated_instances(lesson, number, step)
        ]
        findings += _choice_problems(lesson, number, step)
    findings += [
        Finding(lesson.slug, step_label(number, lesson.steps[number - 1]), problem)
        for number, problem in myth_answers(lesson)
    ]
    findings += [
        Finding(
            lesson.slug,
            where if isinstance(where, str) else step_label(where, lesson.steps[where - 1]),
            problem,
        )
        for where, problem in missing_forms(lesson)
    ]
    findings += [Finding(lesson.slug, where, problem) for where, problem in card_problems(lesson)]
    findings += [
        Finding(lesson.slug, where, problem) for where, problem in diagnosis_card_leaks(lesson)
    ]
    answers = {myth.answer for myth in lesson.myths}
    if len(lesson.myths) >= 3 and len(answers) == 1:
        findings.append(
            Finding(
                lesson.slug,
                "myths",
                f"all {len(lesson.myths)} myths answer {answers.pop()!r}: "
                "a learner who always says that scores full marks",
            )
        )
    estimate = estimated_minutes(lesson)
    if lesson.minutes < MINUTES_TOLERANCE * estimate:
        findings.append(
            Finding(
                lesson.slug,
                "minutes",
                f"{lesson.minutes} minutes is far below the reading time, about "
                f"{round(estimate)} minutes ({WORDS_PER_MINUTE} words a minute and "
                f"{MINUTES_PER_ITEM:g} a minute for each of {interactive_items(lesson)} "
                "interactive items)",
            )
        )
    for where, text in _prose(lesson):
        for match in _BARE_REFERENCE.finditer(text):
            findings.append(
                Finding(
                    lesson.slug,
                    where,
                    f"{match.group(0)!r} is not a link: write "
                    "[the lesson's title](/lessons/<slug>)",
                )
            )
        for target in _LESSON_LINK.findall(text):
            if target not in slugs:
                findings.append(
                    Finding(lesson.slug, where, f"links to /lessons/{target}: no such lesson")
                )
        for match in _CONFUSING_WORDS.finditer(text):
            findings.append(
                Finding(
                    lesson.slug,
                    where,
                    f"{match.group(0)!r} means opposite things to different readers: "
                    "say 'toward the loss' or 'toward the leaves'",
                )
            )
    return findings


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", plain(text).lower()).split())


def _similar(first: str, second: str) -> bool:
    a, b = set(first.split()), set(second.split())
    return first == second or (bool(a | b) and len(a & b) / len(a | b) >= SAME_QUESTION)


def _duplicates(lessons: list[Lesson]) -> Iterator[Finding]:
    myths = [
        (lesson.slug, f"myth {number}", _key(myth.question))
        for lesson in lessons
        for number, myth in enumerate(lesson.myths, start=1)
    ]
    for index, (slug, where, question) in enumerate(myths):
        for other_slug, other_where, other in myths[:index]:
            if _similar(question, other):
                yield Finding(
                    slug,
                    where,
                    f"asks the same as {other_slug} {other_where}: one home for each myth, "
                    "link to it from the others",
                )
    seen: dict[tuple[str, str], str] = {}
    for lesson in lessons:
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is None:
                continue
            code = " ".join(step.snippet.code.split()) if step.snippet else ""
            key = (_key(step.prediction.question), code)
            where = f"{lesson.slug} {step_label(number, step)}"
            if key in seen:
                yield Finding(
                    lesson.slug,
                    step_label(number, step),
                    f"the same question on the same code as {seen[key]}",
                )
            else:
                seen[key] = where


def _path(lessons: list[Lesson]) -> Iterator[Finding]:
    by_slug = {lesson.slug: lesson for lesson in lessons}
    ordered = sorted(lessons, key=lambda lesson: lesson.order)
    for before, after in itertools.pairwise(ordered):
        if rank(after.level) < rank(before.level):
            yield Finding(
                after.slug,
                "level",
                f"{after.level.value} comes after {before.slug} ({before.level.value}) "
                "in the path: levels must rise",
            )
    for lesson in lessons:
        for slug in lesson.prerequisites:
            required = by_slug.get(slug)
            if required is not None and required.order >= lesson.order:
                yield Finding(
                    lesson.slug,
                    "prerequisites",
                    f"{slug} comes later in the path (order {required.order} ≥ {lesson.order})",
                )


def lint_catalog(lessons: list[Lesson], only: set[str] | None = None) -> list[Finding]:
    """Every rule over the curriculum. With `only`, findings about other lessons are left out,
    and so is the curriculum-wide myth balance, which needs every lesson."""
    slugs = {lesson.slug for lesson in lessons}
    findings = [
        finding
        for lesson in lessons
        if only is None or lesson.slug in only
        for finding in lint_lesson(lesson, slugs)
    ]
    findings += _duplicates(lessons)
    findings += [Finding(*found) for found in repeated_examples(lessons)]
    findings += [Finding(*found) for found in other_numbers_of_earlier(lessons)]
    findings += _path(lessons)
    if only is None:
        findings += _myth_balance(lessons)
        findings += [Finding("curriculum", "myths", problem) for problem in myth_patterns(lessons)]
    else:
        findings = [finding for finding in findings if finding.lesson in only]
    return findings


def _myth_balance(lessons: list[Lesson]) -> Iterator[Finding]:
    counts: dict[str, int] = defaultdict(int)
    for lesson in lessons:
        for myth in lesson.myths:
            counts[myth.answer] += 1
    total = sum(counts.values())
    if not total:
        return
    share = counts["yes"] / total
    low, high = YES_SHARE
    if not low <= share <= high:
        yield Finding(
            "curriculum",
            "myths",
            f"{counts['yes']} of {total} myths answer yes ({share:.0%}); keep it between "
            f"{low:.0%} and {high:.0%} so that neither 'always yes' nor 'always no' passes",
        )
