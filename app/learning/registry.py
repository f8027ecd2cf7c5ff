"""The learning modes, each one declaration: its URL name, title, blurb, template, the
context its page needs, the question kinds it asks and its script. The switcher, the mode
routes and the review queue read this registry; adding a mode is adding a `Mode`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.learning import mode_pages
from app.learning.mode_pages import ModeRequest

ContextBuilder = Callable[[ModeRequest], dict[str, object]]


@dataclass(frozen=True)
class Mode:
    slug: str
    name: str
    blurb: str
    template: str  # under templates/
    context: ContextBuilder = mode_pages.no_context
    asks: tuple[str, ...] = ()  # kinds: prediction, value, myth, drill, flashcard, fix, exercise
    script: str | None = None  # under static/js/


DEFAULT_MODE = "deep-dive"
MODES: list[Mode] = [
    Mode(
        "deep-dive",
        "Deep dive",
        "The whole lesson: every step, myth and pitfall.",
        "lesson.html",
        mode_pages.deep_dive,
        asks=("prediction", "value", "myth", "exercise"),
        script="pages/deep-dive.js",
    ),
    Mode(
        "quick-read",
        "Quick read",
        "Three minutes: the idea, the picture, the takeaways.",
        "modes/quick_read.html",
        mode_pages.quick_read,
        script="pages/cells.js",
    ),
    Mode(
        "step-by-step",
        "Step by step",
        "One step per screen; predict to unlock the next.",
        "modes/step_by_step.html",
        asks=("prediction", "value"),
        script="pages/step-by-step.js",
    ),
    Mode(
        "code-lab",
        "Code lab",
        "Every snippet as an editable, runnable cell.",
        "modes/code_lab.html",
        mode_pages.code_lab,
        script="pages/cells.js",
    ),
    Mode(
        "myth-busters",
        "Myth busters",
        "A quiz round on the common beliefs, scored.",
        "modes/myth_busters.html",
        mode_pages.myth_busters,
        asks=("myth",),
        script="pages/myth-busters.js",
    ),
    Mode(
        "pitfall-fixer",
        "Pitfall fixer",
        "Fix broken code until it behaves, and write the lines it lacks.",
        "modes/pitfall_fixer.html",
        mode_pages.pitfall_fixer,
        asks=("fix", "exercise"),
        script="pages/pitfall-fixer.js",
    ),
    Mode(
        "flashcards",
        "Flashcards",
        "Takeaways and insights, self-graded.",
        "modes/flashcards.html",
        mode_pages.flashcards,
        asks=("flashcard",),
        script="pages/flashcards.js",
    ),
    Mode(
        "predict-the-gradient",
        "Predict the gradient",
        "Type the .grad values, then run.",
        "modes/predict_the_gradient.html",
        mode_pages.predict_the_gradient,
        asks=("drill",),
        script="pages/drills.js",
    ),
    Mode(
        "cheat-sheet",
        "Cheat sheet",
        "One printable page: rules, API, errors and fixes.",
        "modes/cheat_sheet.html",
        mode_pages.cheat_sheet,
        script="pages/cheat-sheet.js",
    ),
]


def register(mode: Mode) -> Mode:
    """Add a mode (after the others in the switcher); a slug already taken is an error."""
    if find_mode(mode.slug) is not None:
        raise ValueError(f"there is a mode called {mode.slug!r} already")
    MODES.append(mode)
    return mode


def unregister(slug: str) -> None:
    MODES[:] = [mode for mode in MODES if mode.slug != slug]


def find_mode(slug: str) -> Mode | None:
    return next((mode for mode in MODES if mode.slug == slug), None)
