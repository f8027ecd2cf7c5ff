"""Code to write: the learner fills the blank lines of a snippet (or writes a custom
`backward`), judged by running it and comparing what it does with the exercise's goal, as a
pitfall fix is. It is practice with hints, not a question to remember, so it never enters the
review queue; a capstone's diagnosis before its fix is part of the same exercise."""

from __future__ import annotations

from app.learning.kinds.kind import QuestionKind

EXERCISE = QuestionKind(
    name="exercise",
    label="Code to write",
    plural="code to write",
    page="pitfall-fixer",
    widget="code",
    confidence=False,
    count_in=lambda lesson: len(lesson.exercises),
)
