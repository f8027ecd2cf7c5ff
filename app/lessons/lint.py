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
This module reads a step's own question and choices and runs every rule: the others are each in
a module of their own (`lint_levels`, `lint_minutes`, `lint_prose`, `lint_duplicates`,
`lint_cards`, `lint_examples`, `lint_variants`, `lint_beliefs`), and return what they find for
this one to name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from app.lessons.format import Lesson, Step
from app.lessons.lint_beliefs import belief_problems, right_choice_problems
from app.lessons.lint_cards import card_problems
from app.lessons.lint_diagnosis import diagnosis_card_leaks
from app.lessons.lint_disclosure import question_leaks, repeated_examples
from app.lessons.lint_duplicates import duplicates
from app.lessons.lint_examples import myth_answers, other_numbers_of_earlier
from app.lessons.lint_levels import path_problems, step_level_problems
from app.lessons.lint_minutes import minutes_problem
from app.lessons.lint_myth_patterns import myth_balance, myth_patterns, one_answer
from app.lessons.lint_prose import prose_problems
from app.lessons.lint_text import mentions, numbers, plain
from app.lessons.lint_variants import missing_forms, repeated_instances, variant_leaks

# Below this length an answer ("None", "True") is too common a word to count as given away by
# the lesson's introduction; the step's own title, setup and question are still checked.
MIN_INTRO_ANSWER = 6
# A question that asks what the code prints presumes it runs: a choice that it raises is then
# ruled out by the wording alone, unless the question names that outcome too.
_ASKS_PRINTED = re.compile(r"\bwhat (?:does|do|will)\b[^?]*\b(?:print|prints|show|shows)\b", re.I)
_NAMES_RAISING = re.compile(r"\brais|\berror\b", re.I)
_RAISES = re.compile(r"\braises?\b|\b[A-Z]\w*Error\b")


@dataclass(frozen=True)
class Finding:
    lesson: str
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.lesson}: {self.where}: {self.problem}"


def _flat_numbers(value: object) -> set[float]:
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int | float):
        return {round(abs(float(value)), 6)}
    if isinstance(value, list):
        return set().union(*(_flat_numbers(item) for item in value)) if value else set()
    return set()


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
    for _, asked in step.questions():
        for problem in belief_problems(asked):
            yield Finding(lesson.slug, step_label(number, step), problem)
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
    for problem in right_choice_problems(step.prediction):
        yield Finding(lesson.slug, step_label(number, step), problem)


def lint_lesson(lesson: Lesson, slugs: set[str]) -> list[Finding]:
    """The rules that read one lesson; `slugs` are the lessons a link may point at."""
    findings: list[Finding] = []
    intro = _intro(lesson)
    findings += [
        Finding(lesson.slug, step_label(number, lesson.steps[number - 1]), problem)
        for number, problem in step_level_problems(lesson)
    ]
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
    if (problem := one_answer(lesson)) is not None:
        findings.append(Finding(lesson.slug, "myths", problem))
    if (problem := minutes_problem(lesson)) is not None:
        findings.append(Finding(lesson.slug, "minutes", problem))
    findings += [
        Finding(lesson.slug, where, problem) for where, problem in prose_problems(lesson, slugs)
    ]
    return findings


def lint_catalog(lessons: list[Lesson], only: set[str] | None = None) -> list[Finding]:
    """Every rule over the curriculum. With `only`, findings about other lessons are left out,
    and so are the curriculum-wide myth balance and patterns, which need every lesson."""
    slugs = {lesson.slug for lesson in lessons}
    findings = [
        finding
        for lesson in lessons
        if only is None or lesson.slug in only
        for finding in lint_lesson(lesson, slugs)
    ]
    findings += [Finding(*found) for found in duplicates(lessons)]
    findings += [Finding(*found) for found in repeated_examples(lessons)]
    findings += [Finding(*found) for found in other_numbers_of_earlier(lessons)]
    findings += [Finding(*found) for found in path_problems(lessons)]
    if only is None:
        findings += [Finding("curriculum", "myths", problem) for problem in myth_balance(lessons)]
        findings += [Finding("curriculum", "myths", problem) for problem in myth_patterns(lessons)]
    else:
        findings = [finding for finding in findings if finding.lesson in only]
    return findings
