"""Code to write: the verdict on a learner's filled blanks, the hint that follows a miss, and
the diagnosis of a buggy snippet.

The filled code is graded as a pitfall fix is (app/lessons/behaviour.py `judge`): by what it
does when run, never by its text, so any line that behaves right passes. A miss says what
differs (the error, the output beside the goal's, the `.grad` that is not the goal's) and
brings the next of the exercise's hints, which lead to the line without writing it.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.lessons.behaviour import Verdict, judge
from app.lessons.exercises import goal
from app.lessons.schema import Exercise
from app.sandbox.result import RunResult

# Hints are titled as the pitfall fixer's are: by what each one makes you look at.
HINT_TITLES = ("Where to start", "Look closer", "Why it matters")
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


def judge_exercise(exercise: Exercise, result: RunResult) -> Verdict:
    """Does the filled code do what the goal says? Reasons say how it does not."""
    verdict = judge(goal(exercise), result)
    finding = _gradcheck_reason(result) if exercise.gradcheck is not None else None
    if verdict.passed or finding is None:
        return verdict
    return Verdict(False, [finding, *verdict.reasons])


def hint_after(exercise: Exercise, misses: int) -> ExerciseHint | None:
    """The hint a learner gets with their `misses`-th miss (the last one again after that)."""
    if misses < 1:
        return None
    level = min(misses, len(exercise.hints))
    return ExerciseHint(level, HINT_TITLES[level - 1], exercise.hints[level - 1])


def grade_diagnosis(exercise: Exercise, choice: str) -> bool | None:
    """Right or not; None when `choice` is not one of the diagnoses (graded by its text)."""
    diagnosis = exercise.diagnosis
    if diagnosis is None or diagnosis.choice(choice) is None:
        return None
    return choice == diagnosis.answer
