"""Progressive disclosure: which parts of a lesson a learner may be sent, given which of its
questions they have committed.

A lesson has three kinds of text. The introduction (summary, overview, mental model and its
diagram) is always sent: it teaches without stating any step's outcome (`gradlab check` holds
it to that). A step's own reveal (concept, explanation, insight, output, the answer) is sent
once that step's question is committed; so is its typed-value question when the step also
asks a choice (`value_open`). The reference (under the hood, why designed, expert
zone, when not to use, production, connections, pitfalls with their outputs, takeaways) is
sent only once every question of the build-up is committed: it is written for someone who has
been through the steps, and nothing in it is checked against them. A pitfall may open earlier
with `after_step: N`, once the steps up to N are committed; so may an exercise (code to write).

A learner who asks to read ahead is sent everything; their later answers in that lesson are
recorded as given after seeing the answers.

The pages (app/learning) and the lint (app/lessons/lint.py) both read this module, so the lint
checks exactly what a page sends.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.lessons.format import Exercise, Lesson, Pitfall, Question, Step

# What a page says where the reference is withheld.
REFERENCE_NOTICE = (
    "The reference (under the hood, expert notes, pitfalls and takeaways) opens when you have "
    "answered the build-up, or read ahead: it states the answers, so it waits until you have "
    "made your own predictions."
)


def asks(step: Step) -> bool:
    """A step that asks something (any of `Step.QUESTIONS`) keeps what explains its answer
    until it is answered."""
    return bool(step.questions())


@dataclass(frozen=True)
class Disclosure:
    """What one learner may be sent of one lesson."""

    lesson: Lesson
    answered: frozenset[int]  # step numbers whose question is committed
    read_ahead: bool = False

    @classmethod
    def before_step(cls, lesson: Lesson, number: int) -> Disclosure:
        """What a learner going through in order sees before committing step `number`."""
        return cls(lesson, frozenset(range(1, number)))

    @classmethod
    def everything(cls, lesson: Lesson) -> Disclosure:
        return cls(lesson, frozenset(range(1, len(lesson.steps) + 1)), read_ahead=True)

    def step_open(self, number: int) -> bool:
        """May the step's reveal (concept, explanation, insight, output, answer) be sent?"""
        if self.read_ahead or number in self.answered:
            return True
        return 1 <= number <= len(self.lesson.steps) and not asks(self.lesson.steps[number - 1])

    def question_open(self, number: int, question: Question) -> bool:
        """May this question of step `number` (its text and its form) be sent? A question that
        waits (`waits`) is sent once the step is open; any other at once."""
        return not waits(self.lesson.steps[number - 1], question) or self.step_open(number)

    def value_open(self, number: int) -> bool:
        """May the step's typed-value question (its text and its form) be sent? On a step that
        also asks a choice, only once that choice is committed: a step whose code raises has no
        value to type, so the form's mere presence would say it does not raise, and the
        question's wording may hint at the choice's answer. A step that asks only the value
        asks it at once. (The questions that wait so are those declaring `after_others`.)"""
        if not 1 <= number <= len(self.lesson.steps):
            return False
        step = self.lesson.steps[number - 1]
        waiting = [q for _, q in step.questions() if q.after_others]
        return bool(waiting) and all(self.question_open(number, q) for q in waiting)

    @property
    def opened_through(self) -> int:
        """The last step N such that steps 1..N are all open (answered or asking nothing)."""
        last = 0
        for number in range(1, len(self.lesson.steps) + 1):
            if not self.step_open(number):
                break
            last = number
        return last

    @property
    def reference(self) -> bool:
        """Is the reference (every section after the build-up) sent?"""
        return self.opened_through == len(self.lesson.steps)

    def pitfall_open(self, pitfall: Pitfall) -> bool:
        if self.reference:
            return True
        return pitfall.after_step is not None and pitfall.after_step <= self.opened_through

    def pitfalls(self) -> list[tuple[int, Pitfall]]:
        """(number, pitfall) for each pitfall that may be sent, numbered as in the lesson."""
        return [
            (number, pitfall)
            for number, pitfall in enumerate(self.lesson.pitfalls, start=1)
            if self.pitfall_open(pitfall)
        ]

    def exercise_open(self, exercise: Exercise) -> bool:
        """An exercise opens after the step it follows (`after_step`), or with the reference:
        its code and goal may state what that step's question asks."""
        if self.reference:
            return True
        return exercise.after_step is not None and exercise.after_step <= self.opened_through

    def exercises(self) -> list[tuple[int, Exercise]]:
        """(number, exercise) for each exercise that may be sent, numbered as in the lesson."""
        return [
            (number, exercise)
            for number, exercise in enumerate(self.lesson.exercises, start=1)
            if self.exercise_open(exercise)
        ]

    def open_steps(self) -> list[tuple[int, Step]]:
        return [
            (number, step)
            for number, step in enumerate(self.lesson.steps, start=1)
            if self.step_open(number)
        ]

    def withheld(self) -> bool:
        """Is anything of the lesson's reference held back?"""
        return not self.reference


def reference_texts(lesson: Lesson) -> list[tuple[str, str]]:
    """(where, text) for every piece of reference text, as sent once open (pitfalls apart)."""
    found: list[tuple[str, str]] = []
    if lesson.under_the_hood is not None:
        found.append(("under the hood", lesson.under_the_hood.text))
        if lesson.under_the_hood.diagram:
            found.append(("under the hood diagram", lesson.under_the_hood.diagram))
    for where, text in (
        ("why designed", lesson.why_designed),
        ("when not to use", lesson.when_not_to_use),
        ("production patterns", lesson.production_patterns),
    ):
        if text:
            found.append((where, text))
    found += [(f"expert zone {n}", text) for n, text in enumerate(lesson.expert_zone, start=1)]
    for n, connection in enumerate(lesson.connections, start=1):
        found.append((f"connection {n}", f"{connection.relation} {connection.insight}"))
    found += [(f"takeaway {n}", text) for n, text in enumerate(lesson.takeaways, start=1)]
    return found


def pitfall_texts(number: int, pitfall: Pitfall) -> list[tuple[str, str]]:
    """(where, text) for what a page sends of one pitfall once it is open."""
    where = f"pitfall {number}"
    found = [(where, f"{pitfall.title} {pitfall.root_cause}")]
    for side, snippet in (("wrong", pitfall.wrong), ("fixed", pitfall.correct)):
        found.append((f"{where} {side} code", snippet.code))
        if snippet.output:
            found.append((f"{where} {side} output", snippet.output))
        if snippet.error is not None:
            found.append(
                (f"{where} {side} error", f"{snippet.error.type} {snippet.error.message_contains}")
            )
    return found


def exercise_texts(number: int, exercise: Exercise) -> list[tuple[str, str]]:
    """(where, text) for what a page sends of one exercise once it is open (its solution and
    its diagnosis's answer apart: they come only with a verdict)."""
    where = f"exercise {number}"
    found = [(where, f"{exercise.title} {exercise.task}"), (f"{where} code", exercise.code)]
    if exercise.output:
        found.append((f"{where} goal output", exercise.output))
    found += [(f"{where} hint {n}", h.text) for n, h in enumerate(exercise.hint_list, start=1)]
    if exercise.diagnosis is not None:
        choices = " ".join(exercise.diagnosis.texts)
        found.append((f"{where} diagnosis", f"{exercise.diagnosis.question} {choices}"))
    return found


def waits(step: Step, question: Question) -> bool:
    """Does this question of `step` wait for the commit of the step's other question? One
    that comes after the others (`Question.after_others`, a typed value) does, where the step
    has another; any other is asked at once."""
    others = [q for _, q in step.questions() if q is not question]
    return question.after_others and bool(others)
