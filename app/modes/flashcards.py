"""Flashcards made from a lesson's takeaways and its steps' key insights. Self-graded.

A takeaway becomes a cloze card, its blank on the sentence's idea (app/lessons/cloze.py: never
a name every lesson repeats, never an answer the card shows elsewhere). An insight card asks
the step's authored `insight_question`; a step without one gets a cloze of its insight.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.lessons.cloze import blank
from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson, Step
from app.lessons.memo import per_object


@dataclass(frozen=True)
class Flashcard:
    id: str  # "takeaway-2", "insight-5" (the step number)
    origin: str  # what of the lesson it is made from: "takeaway" | "insight"
    prompt: str  # Markdown: the line that says what to recall
    cloze: tuple[str, str] | None  # Markdown before and after the blank, for a cloze card
    back: str  # Markdown: the whole takeaway or insight
    answer: str | None  # Markdown: what the blank hides, for a cloze card


def _cloze_card(card_id: str, origin: str, lead: str, text: str) -> Flashcard:
    hole = blank(text, context=lead)
    if hole is None:  # `gradlab check` reports such a sentence
        return Flashcard(card_id, origin, f"{lead}Recall it.", None, text, None)
    prompt = f"{lead}Complete the sentence." if not hole.after else f"{lead}Fill in the blank."
    return Flashcard(card_id, origin, prompt, (hole.before, hole.after), text, hole.answer)


def _insight_card(number: int, step: Step) -> Flashcard:
    card_id = f"insight-{number}"
    if step.insight_question:
        prompt = f"**{step.title}**: {step.insight_question}"
        return Flashcard(card_id, "insight", prompt, None, step.insight, None)
    return _cloze_card(card_id, "insight", f"**{step.title}**: ", step.insight)


@per_object
def lesson_flashcards(lesson: Lesson) -> tuple[Flashcard, ...]:
    """The takeaways first (the lesson's summary), then each step's insight (once per loaded
    lesson: app/lessons/memo.py)."""
    cards = [
        _cloze_card(f"takeaway-{number}", "takeaway", "", text)
        for number, text in enumerate(lesson.takeaways, start=1)
    ]
    cards += [_insight_card(number, step) for number, step in enumerate(lesson.steps, start=1)]
    return tuple(cards)


def card_open(card: Flashcard, disclosure: Disclosure) -> bool:
    """A takeaway belongs to the reference; an insight explains its step's answer."""
    if card.origin == "takeaway":
        return disclosure.reference
    return disclosure.step_open(int(card.id.removeprefix("insight-")))


def find_flashcard(lesson: Lesson, card_id: str) -> Flashcard | None:
    return next((card for card in lesson_flashcards(lesson) if card.id == card_id), None)
