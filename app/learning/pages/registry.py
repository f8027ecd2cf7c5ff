"""The learning modes, each one declaration: its URL name, title, blurb, template, the
context its page needs, the question kinds it asks and its entry script. The switcher, the mode
routes and the mode pages read this registry (the page layout loads the mode's script, and its
header says what the mode asks); adding a mode is adding a `Mode`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.learning.kinds import (
    DRILL,
    EXERCISE,
    FIX,
    FLASHCARD,
    MYTH,
    STEP_KINDS,
    QuestionKind,
)
from app.learning.pages import mode_pages
from app.learning.pages.mode_pages import ModeRequest
from app.lessons.format import Lesson

ContextBuilder = Callable[[ModeRequest], dict[str, object]]


@dataclass(frozen=True)
class Mode:
    slug: str
    name: str
    blurb: str
    template: str  # under templates/
    context: ContextBuilder = mode_pages.no_context
    asks: tuple[QuestionKind, ...] = ()  # the kinds of question its page asks
    script: str = "pages/mode.js"  # its page's entry script, under static/js/
    editor: bool = False  # its page has code cells: it loads the vendored editor too

    def asked_in(self, lesson: Lesson) -> list[QuestionKind]:
        """The kinds of question this mode asks that `lesson` has."""
        return [kind for kind in self.asks if kind.count_in(lesson)]


DEFAULT_MODE = "deep-dive"
MODES: list[Mode] = [
    Mode(
        "deep-dive",
        "Deep dive",
        "The whole lesson: every step, myth and pitfall.",
        "lesson.html",
        mode_pages.deep_dive,
        asks=(*STEP_KINDS, MYTH, EXERCISE),
        script="pages/deep-dive.js",
        editor=True,
    ),
    Mode(
        "quick-read",
        "Quick read",
        "Three minutes: the idea, the picture, the takeaways.",
        "modes/quick_read.html",
        mode_pages.quick_read,
        script="pages/cells.js",
        editor=True,
    ),
    Mode(
        "step-by-step",
        "Step by step",
        "One step per screen; predict to unlock the next.",
        "modes/step_by_step.html",
        mode_pages.deep_dive,  # its exercises, each on the screen of the step it follows
        asks=(*STEP_KINDS, EXERCISE),
        script="pages/step-by-step.js",
        editor=True,
    ),
    Mode(
        "code-lab",
        "Code lab",
        "Every snippet as an editable, runnable cell.",
        "modes/code_lab.html",
        mode_pages.code_lab,
        script="pages/cells.js",
        editor=True,
    ),
    Mode(
        "myth-busters",
        "Myth busters",
        "A quiz round on the common beliefs, scored.",
        "modes/myth_busters.html",
        mode_pages.myth_busters,
        asks=(MYTH,),
        script="pages/myth-busters.js",
    ),
    Mode(
        "pitfall-fixer",
        "Pitfall fixer",
        "Fix broken code until it behaves, and write the lines it lacks.",
        "modes/pitfall_fixer.html",
        mode_pages.pitfall_fixer,
        asks=(FIX, EXERCISE),
        script="pages/pitfall-fixer.js",
        editor=True,
    ),
    Mode(
        "flashcards",
        "Flashcards",
        "Takeaways and insights, self-graded.",
        "modes/flashcards.html",
        mode_pages.flashcards,
        asks=(FLASHCARD,),
        script="pages/flashcards.js",
    ),
    Mode(
        "predict-the-gradient",
        "Predict the gradient",
        "Type the .grad values, then run.",
        "modes/predict_the_gradient.html",
        mode_pages.predict_the_gradient,
        asks=(DRILL,),
        script="pages/drills.js",
        editor=True,
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
