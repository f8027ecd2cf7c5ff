"""What a learner going in order is sent before a step's commit (app/lessons/disclosure.py
decides which), as the texts the leak lints read.

Before step N's commit a learner going through in order has the introduction, every step's
title, setup and the text of its questions (`Question.asked`; a question that waits for the
step's other one, a typed value beside a choice, only on steps 1..N-1), the myths' questions
and their reveals (a myth may be answered at any time, so its belief, reality and why it
matters, and its demo's output on the same computation, may come before any step), the
reveals of steps 1..N-1 (concept, explanation, insight, each question's explanation and
answer as it declares them, what the code printed or raised), the text of steps that ask
nothing, and the pitfalls opened by `after_step` < N. The reference is never among it: it
opens after the build-up. Each step question is read through its declaration
(`Step.questions`), never by its field's name.
"""

from __future__ import annotations

from typing import NamedTuple

from app.lessons.disclosure import Disclosure, asks, exercise_texts, pitfall_texts, reference_texts
from app.lessons.format import Lesson, Step


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
    for _, question in step.questions():
        if shown.question_open(number, question):
            found += [Visible(f"{where}'s {question.called}", t) for t in question.asked_texts()]
    return found


def _step_reveal(number: int, step: Step) -> list[Visible]:
    """The step's prose, and its outcomes: those answer only a question on the same
    computation (another example may well give the same value)."""
    where = f"step {number}'s " + ("reveal" if asks(step) else "text")
    prose = [step.concept, step.explanation, step.insight, step.insight_question or ""]
    questions = [question for _, question in step.questions()]
    found = [Visible(where, " ".join(prose + [t for q in questions for t in q.explanations()]))]
    if step.snippet is not None:
        if step.snippet.output:
            found.append(Visible(f"{where} (its output)", step.snippet.output, number))
        if step.snippet.error is not None:
            error = f"{step.snippet.error.type} {step.snippet.error.message_contains}"
            found.append(Visible(f"{where} (its error)", error, number))
    for question in questions:
        if (outcome := question.outcome()) is not None:
            found.append(Visible(f"{where} ({outcome[0]})", outcome[1], number))
    return found


def _statements(code: str) -> set[str]:
    """The lines that compute (imports and prints aside), spaces folded."""
    lines = {" ".join(line.split()) for line in code.splitlines()}
    return {line for line in lines if line and not line.startswith(("import ", "print(", "#"))}


def same_computation(earlier: str, later: str) -> bool:
    """Does the later code redo the earlier computation (every computing line of it)?"""
    done = _statements(earlier)
    return len(done) >= 2 and done <= _statements(later)
