"""A pitfall fix: the learner edits broken code until it behaves, judged by running it and
comparing what it does with what the corrected code is declared to do (never its text). It is
practice with hints, not a question to remember, so it never enters the review queue."""

from __future__ import annotations

from app.learning.kinds.kind import QuestionKind

FIX = QuestionKind(
    name="fix",
    label="Pitfall fix",
    plural="broken code to fix",
    page="pitfall-fixer",
    widget="code",
    confidence=False,
    count_in=lambda lesson: len(lesson.pitfalls),
)
