"""Flashcards made from a lesson's takeaways and its steps' key insights. Self-graded.

A takeaway becomes a cloze card: one of its code spans is blanked (the last one that occurs only
once in the sentence, which is usually the point being made); a takeaway without such a span is
cut at its first ';' or ',' and the learner completes it. An insight card shows the step's title
and setup (its concept, for a step that asks nothing) and asks for the insight.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.lessons.disclosure import Disclosure
from app.lessons.schema import Lesson, Step

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_CUT = re.compile(r"[;,]\s")


@dataclass(frozen=True)
class Flashcard:
    id: str  # "takeaway-2", "insight-5" (the step number)
    kind: str  # "takeaway" | "insight"
    prompt: str  # Markdown: the line that says what to recall
    cloze: tuple[str, str] | None  # Markdown before and after the blank, for a cloze card
    back: str  # Markdown: the whole takeaway or insight
    answer: str | None  # Markdown: what the blank hides, for a cloze card


def _takeaway_card(number: int, text: str) -> Flashcard:
    spans = [m for m in _CODE_SPAN.finditer(text) if text.count(m.group(1)) == 1]
    card_id = f"takeaway-{number}"
    if spans:
        hidden = spans[-1]
        return Flashcard(
            card_id,
            "takeaway",
            "Fill in the blank.",
            (text[: hidden.start()], text[hidden.end() :]),
            text,
            hidden.group(0),
        )
    cut = next((m for m in _CUT.finditer(text) if len(text[: m.start()].split()) >= 3), None)
    if cut is not None:
        return Flashcard(
            card_id, "takeaway", "Complete the sentence.", (text[: cut.end()], ""), text, None
        )
    return Flashcard(card_id, "takeaway", "Recall this takeaway of the lesson.", None, text, None)


def _insight_prompt(step: Step) -> str:
    # A step that asks a question keeps its concept for after the answer; its setup is
    # what the front of the card may show.
    if step.prediction is None and step.value_prediction is None:
        return f"**{step.title}**: {step.concept} What is the key insight?"
    if step.setup:
        return f"**{step.title}**: {step.setup} What is the key insight?"
    return f"**{step.title}**: what is the key insight?"


def lesson_flashcards(lesson: Lesson) -> list[Flashcard]:
    """The takeaways first (the lesson's summary), then each step's insight."""
    cards = [_takeaway_card(n, text) for n, text in enumerate(lesson.takeaways, start=1)]
    for number, step in enumerate(lesson.steps, start=1):
        cards.append(
            Flashcard(
                f"insight-{number}",
                "insight",
                _insight_prompt(step),
                None,
                step.insight,
                None,
            )
        )
    return cards


def card_open(card: Flashcard, disclosure: Disclosure) -> bool:
    """A takeaway belongs to the reference; an insight explains its step's answer."""
    if card.kind == "takeaway":
        return disclosure.reference
    return disclosure.step_open(int(card.id.removeprefix("insight-")))


def find_flashcard(lesson: Lesson, card_id: str) -> Flashcard | None:
    return next((card for card in lesson_flashcards(lesson) if card.id == card_id), None)
