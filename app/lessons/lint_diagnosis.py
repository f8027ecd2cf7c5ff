"""An exercise that asks a diagnosis shows its card (title and task) before the diagnosis is
committed: neither may hold a distinctive word of the answer.

A distinctive word is a word of the answer (letters only, at least four, not a common function
word, a plural or possessive read as its singular, code spans left out) that no wrong choice
has: a word the choices share tells nothing, one only the answer has points at it ("A running
total that trains on every loss so far" points at "every step sends the gradients of all the
earlier losses").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.lessons.format import Lesson

# A code span: code, not words of the answer.
_SPAN = re.compile(r"`([^`\n]+)`")
# Words too common to point at any choice.
_COMMON = frozenset(
    {
        "that",
        "this",
        "with",
        "from",
        "into",
        "their",
        "there",
        "they",
        "what",
        "when",
        "which",
        "where",
        "have",
        "does",
        "were",
        "been",
        "will",
        "would",
        "also",
        "some",
        "then",
        "them",
        "these",
        "those",
        "your",
        "about",
        "because",
        "while",
        "each",
        "than",
    }
)
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _stem(word: str) -> str:
    word = word.lower().removesuffix("'s").removesuffix("'")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("ss", "sh", "ch", "x")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def content_words(text: str) -> set[str]:
    """The words of a text that could point at an answer, stemmed; code spans left out."""
    prose = _SPAN.sub(" ", text)
    return {
        stem
        for word in _WORD.findall(prose)
        if len(stem := _stem(word)) >= 4 and stem not in _COMMON
    }


def diagnosis_card_leaks(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """(where, problem) for each exercise card whose title or task holds a word only the
    diagnosis's answer has."""
    for number, exercise in enumerate(lesson.exercises, start=1):
        diagnosis = exercise.diagnosis
        if diagnosis is None:
            continue
        others: set[str] = set()
        for text in diagnosis.texts:
            if text != diagnosis.answer:
                others |= content_words(text)
        distinctive = content_words(diagnosis.answer) - others
        for field, text in (("title", exercise.title), ("task", exercise.task)):
            found = sorted(content_words(text) & distinctive)
            if found:
                yield (
                    f"exercise {number} ({exercise.title})",
                    f"its {field} names the diagnosis's answer before it is committed: "
                    f"{', '.join(repr(word) for word in found)} "
                    "(words of the answer that no wrong choice has)",
                )
