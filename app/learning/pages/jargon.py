"""Which of autograd's terms a learner has been taught, so that the `.grad` inspector (and the
backward walk) name them only once taught.

A term's home is the first step of the path (lessons in order, then steps) whose concept names
it: that step teaches it. On a lesson's pages the learner knows the terms whose home is in an
earlier lesson, and those of this lesson whose step is behind them (answered, or reached with
every step before it answered, or the lesson read ahead). The page passes the known terms to the
browser (`data-known-terms`); a "show all" control there shows the rest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson
from app.lessons.loader import Catalog
from app.lessons.memo import per_object

# The terms the inspector and the backward walk use: a column, a note, a call's argument.
TERMS = ("is_leaf", "grad_fn", "retain_grad", "retain_graph")


@dataclass(frozen=True)
class TermHome:
    """Where a term is taught: a lesson's place in the path and the step's number."""

    order: int
    lesson: str
    step: int


@per_object
def term_homes(catalog: Catalog) -> Mapping[str, TermHome]:
    """Each term's teaching step; a term no concept names has none (it is always shown).
    Computed once per catalog (a reload makes a new one: app/lessons/memo.py)."""
    homes: dict[str, TermHome] = {}
    for lesson in sorted(catalog.lessons, key=lambda lesson: lesson.order):
        for number, step in enumerate(lesson.steps, start=1):
            for term in TERMS:
                if term not in homes and re.search(rf"\b{term}\b", step.concept):
                    homes[term] = TermHome(lesson.order, lesson.slug, number)
    return MappingProxyType(homes)


def known_terms(catalog: Catalog, lesson: Lesson, disclosure: Disclosure) -> list[str]:
    """The terms this learner knows on this lesson's pages."""
    homes = term_homes(catalog)
    behind = disclosure.opened_through
    return [
        term
        for term in TERMS
        if (home := homes.get(term)) is None
        or home.order < lesson.order
        or (home.lesson == lesson.slug and (disclosure.read_ahead or home.step <= behind))
    ]
