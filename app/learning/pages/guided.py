"""Which page a lesson's address opens: the guided path, where the learner left it.

A lesson's address (`/lessons/<slug>`) opens the guided path (step by step, the mental model
first, the other modes tucked away) on a first visit, and on a return to a begun lesson at its
first unanswered step (a step is answered once its prediction is committed, or, when it asks
none, once its code ran). Once every step is answered it opens where the learner finished: the
guided path's end (the recall, and the whole lesson one link away) for a learner who walked
the guided path or step by step, so that a reload after the last step stays there; the whole
lesson (the deep dive) for one who used another mode last. It opens the whole lesson at once
for a learner who chose it: read it ahead, or opened the deep dive (a mode page remembers
itself when shown, and `/lessons/<slug>/deep-dive` is one of them: one click, and the deep
dive stays the default). All of it is read from what the learner already
did there, so the page that decides writes nothing.
"""

from __future__ import annotations

from app.progress.records import LessonRecords

GUIDED_MODE = "step-by-step"  # the mode the guided path is drawn with
WHOLE_MODE = "deep-dive"  # the whole lesson: once chosen, the address keeps opening it


def first_visit(records: LessonRecords, modes: dict[str, str], slug: str) -> bool:
    """Has this learner done nothing yet in this lesson? From their records of it and the
    last mode they used in each lesson (the page draws with both, so they are read once)."""
    if records.steps or records.myths or records.read_ahead:
        return False
    return slug not in modes


def first_unanswered(total: int, done: set[int]) -> int | None:
    """The number of the first step not done yet, or None when every one is."""
    return next((number for number in range(1, total + 1) if number not in done), None)


def resume_at(records: LessonRecords, modes: dict[str, str], slug: str, total: int) -> int | None:
    """Where the lesson's address opens the guided path for this learner (1 on a first visit,
    `total + 1` for its end once every step is answered), or None when it opens the whole
    lesson. From the records and modes the page reads anyway."""
    if records.read_ahead or modes.get(slug) == WHOLE_MODE:
        return None
    step = first_unanswered(total, {n for n, step in records.steps.items() if step.done})
    if step is not None:
        return step
    return total + 1 if modes.get(slug, GUIDED_MODE) == GUIDED_MODE else None
