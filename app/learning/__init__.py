"""The learning core: what a learner sees of a lesson, a mode and the review queue, and how
every answer is graded and revealed. Routes call one function here per request.

This package is the core's one door: the routes import what they need of it from here (and
the HTTP models from its `*schemas` modules), never a feature's module; an import-linter
contract holds it. Each name is loaded when first asked for, so that a command that needs
one corner of the core does not load the whole of it.

No web framework here (an import-linter contract holds it): app/routes is the HTTP side.
See docs/architecture.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

# name -> the module that defines it
_DOOR = {
    "Learning": "app.learning.service",
    "Page": "app.learning.service",
    "Writer": "app.learning.service",
    "LessonAnswers": "app.learning.answers.lesson_answers",
    "Practice": "app.learning.practice.practice",
    "ExercisePractice": "app.learning.practice.exercises",
    "Who": "app.learning.running.runs",
    "SKIPPED": "app.learning.inventory.inventory_tests",
    "Launched": "app.learning.lti.messages",
    "ShareNotFound": "app.learning.shares",
    "TooManyShares": "app.learning.shares",
}

__all__ = [
    "SKIPPED",
    "ExercisePractice",
    "Launched",
    "Learning",
    "LessonAnswers",
    "Page",
    "Practice",
    "ShareNotFound",
    "TooManyShares",
    "Who",
    "Writer",
]

if TYPE_CHECKING:
    from app.learning.answers.lesson_answers import LessonAnswers
    from app.learning.inventory.inventory_tests import SKIPPED
    from app.learning.lti.messages import Launched
    from app.learning.practice.exercises import ExercisePractice
    from app.learning.practice.practice import Practice
    from app.learning.running.runs import Who
    from app.learning.service import Learning, Page, Writer
    from app.learning.shares import ShareNotFound, TooManyShares


def __getattr__(name: str) -> object:
    if name not in _DOOR:
        raise AttributeError(f"module 'app.learning' has no attribute {name!r}")
    return getattr(import_module(_DOOR[name]), name)
