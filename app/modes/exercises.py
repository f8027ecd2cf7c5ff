"""Code to write: the verdict on a learner's filled blanks, the hint that follows a miss, and
the diagnosis of a buggy snippet.

The filled code is graded as a pitfall fix is (app/lessons/behaviour.py `judge`): by what it
does when run, never by its text, so any line that behaves right passes; with the exercise's
rerun and probe (app/lessons/exercises.py `judge_runs`), only by the mechanism it is about. A
miss says what differs (the error, the output beside the goal's, the `.grad` that is not the
goal's) and brings a hint chosen by what the run did, which leads to the line without writing
it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.lessons.behaviour import STOPPED, Goal, Verdict, judge
from app.lessons.exercises import goal, judge_runs
from app.lessons.format import Exercise, HintCase
from app.sandbox.result import RunResult

# Hints are titled as the pitfall fixer's are: by what each one makes you look at.
HINT_TITLES = ("Where to start", "Look closer", "Why it matters")
# A hint for one kind of miss is titled by what it is about.
CASE_TITLES: dict[HintCase, str] = {
    "error": "About the error",
    "output": "About the output",
    "grads": "About the gradient",
}
GRADCHECK_FAILED = "gradcheck: failed"


@dataclass(frozen=True)
class ExerciseHint:
    level: int
    title: str
    text: str  # Markdown


def _gradcheck_reason(result: RunResult) -> str | None:
    """gradcheck's finding, first and in words: it names the input whose gradient is wrong."""
    if GRADCHECK_FAILED not in result.stdout:
        return None
    found = result.stdout[result.stdout.index(GRADCHECK_FAILED) :].rstrip("\n")
    return (
        "`torch.autograd.gradcheck` compared your `backward` with finite differences "
        f"(nudging each input a little and watching the output):\n\n```\n{found}\n```"
    )


def judge_exercise(exercise: Exercise, results: list[RunResult]) -> Verdict:
    """Do the filled code's runs (app/lessons/exercises.py `graded_programs`) do what the goal
    says, by the mechanism it is about? Reasons say how they do not."""
    verdict = judge_runs(exercise, results)
    finding = _gradcheck_reason(results[0]) if exercise.gradcheck is not None else None
    if verdict.passed or finding is None:
        return verdict
    return Verdict(False, [finding, *verdict.reasons])


def miss_case(exercise: Exercise, result: RunResult) -> HintCase:
    """What a miss is about, read from the learner's run: an error; an output that differs
    while every `.grad` is the goal's; otherwise a `.grad` (a wrong one, gradcheck's finding, a
    gradient that does not follow other values, a mechanism avoided)."""
    if result.status in STOPPED or result.error is not None:
        return "error"
    wanted = goal(exercise)
    if exercise.gradcheck is not None and _gradcheck_reason(result) is not None:
        return "grads"
    if (
        result.stdout != wanted.output
        and judge(
            Goal("", wanted.grads, wanted.none_matters), result.model_copy(update={"stdout": ""})
        ).passed
    ):
        return "output"
    return "grads"


def hint_after(exercise: Exercise, misses: int, case: HintCase) -> ExerciseHint | None:
    """The hint for a learner's `misses`-th miss of this kind (`case`: what the run did): the
    hints for that case and the plain ones, in order (the last one again after that). Its
    level is its place among all the exercise's hints, so each hint has its own."""
    if misses < 1:
        return None
    hints = exercise.hint_list
    fitting = [n for n, hint in enumerate(hints, 1) if hint.when in (case, None)] or [
        n for n in range(1, len(hints) + 1)
    ]
    place = min(misses, len(fitting))
    level = fitting[place - 1]
    hint = hints[level - 1]
    title = CASE_TITLES[hint.when] if hint.when else HINT_TITLES[min(place, len(HINT_TITLES)) - 1]
    return ExerciseHint(level, title, hint.text)


def grade_diagnosis(exercise: Exercise, choice: str) -> bool | None:
    """Right or not; None when `choice` is not one of the diagnoses (graded by its text)."""
    diagnosis = exercise.diagnosis
    if diagnosis is None or diagnosis.choice(choice) is None:
        return None
    return choice == diagnosis.answer
