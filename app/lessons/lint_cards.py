"""Pedagogy lints for the flashcards a lesson makes (app/modes/flashcards.py): a card that
answers itself, or one with nothing to recall.

A takeaway, or an insight without an `insight_question`, becomes a cloze card; its blank is
placed by app/lessons/cloze.py, which refuses a common name (`.grad`, `None`) and an answer the
card shows elsewhere. A sentence with no other place for a blank is reported, to be rephrased
(or, for an insight, given a question). An authored question must be a question, and must not
say what the insight says.
"""

from __future__ import annotations

from collections.abc import Iterator

from app.lessons.cloze import blank, states_answer
from app.lessons.format import Lesson

NO_BLANK = (
    "no place for a blank that tests the idea (a code span other than `.grad`, `None` or "
    "`backward()` that shows nowhere else in it, or a clause to complete)"
)


def card_problems(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """(where, problem) for every card that answers itself or asks nothing."""
    for number, text in enumerate(lesson.takeaways, start=1):
        if blank(text) is None:
            yield f"takeaways[{number}]", f"its flashcard has {NO_BLANK}"
    for number, step in enumerate(lesson.steps, start=1):
        where = f"steps[{number}].insight_question"
        question = step.insight_question
        if question is None:
            if blank(step.insight, context=step.title) is None:
                yield (
                    f"steps[{number}].insight",
                    f"its flashcard has {NO_BLANK}: give the step an insight_question",
                )
        elif not question.rstrip().endswith("?"):
            yield where, "an insight question must be a question (end it with '?')"
        elif states_answer(f"{step.title} {question}", step.insight):
            yield where, "the flashcard answers itself: the question says what the insight says"
