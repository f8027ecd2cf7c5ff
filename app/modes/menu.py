"""The nine ways through a lesson: their URL names, titles and one-line descriptions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    slug: str
    name: str
    blurb: str


MODES: tuple[Mode, ...] = (
    Mode("deep-dive", "Deep dive", "The whole lesson: every step, myth and pitfall."),
    Mode("quick-read", "Quick read", "Three minutes: the idea, the picture, the takeaways."),
    Mode("step-by-step", "Step by step", "One step per screen; predict to unlock the next."),
    Mode("code-lab", "Code lab", "Every snippet as an editable, runnable cell."),
    Mode("myth-busters", "Myth busters", "A quiz round on the common beliefs, scored."),
    Mode("pitfall-fixer", "Pitfall fixer", "Fix broken code until it behaves."),
    Mode("flashcards", "Flashcards", "Takeaways and insights, self-graded."),
    Mode("predict-the-gradient", "Predict the gradient", "Type the .grad values, then run."),
    Mode("cheat-sheet", "Cheat sheet", "One printable page: rules, API, errors and fixes."),
)
DEFAULT_MODE = "deep-dive"
_BY_SLUG = {mode.slug: mode for mode in MODES}


def find_mode(slug: str) -> Mode | None:
    return _BY_SLUG.get(slug)
