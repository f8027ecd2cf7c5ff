"""A flashcard: a takeaway or key insight to recall, turned over and rated by the learner
(again, hard, good, easy); a rating says how sure, so no confidence is asked."""

from __future__ import annotations

from app.errors import AnswerError
from app.learning.answers import grader
from app.learning.answers.grader import Graded
from app.learning.kinds.kind import Prompt, QuestionKind, Review, ReviewAnswer
from app.lessons.format import Lesson
from app.lessons.memo import per_object
from app.modes.flashcards import Flashcard, find_flashcard, lesson_flashcards
from app.pedagogy.scheduler import Grade


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def flashcard_fingerprint(card: Flashcard) -> str:
    return FLASHCARD.fingerprint(card.prompt, card.back)


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    if (card := find_flashcard(lesson, key)) is None:
        return None
    source = "Key insight" if card.origin == "insight" else "Takeaway"
    return Prompt(
        lesson, FLASHCARD, key, source, card.prompt, flashcard_fingerprint(card), flashcard=card
    )


class RatingAnswer(ReviewAnswer):
    """A flashcard answered in review: the learner's own rating."""

    rating: Grade


def _grade(prompt: Prompt, answer: RatingAnswer) -> Graded:
    if prompt.flashcard is None:
        raise AnswerError("Rate the card: again, hard, good or easy")
    return grader.grade_rating(prompt.flashcard, answer.rating)


FLASHCARD = QuestionKind(
    name="flashcard",
    label="Flashcard",
    plural="flashcards",
    page="flashcards",
    widget="card",
    confidence=False,
    count_in=lambda lesson: len(lesson_flashcards(lesson)),
    review=Review(_prompt, RatingAnswer, _grade),
)
