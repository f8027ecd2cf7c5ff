"""A learner's first visit to a lesson: the guided path instead of the deep dive.

A lesson's address (`/lessons/<slug>`) opens the whole lesson (the deep dive) for a learner who
has begun it, and the guided path (step by step, the mental model first, the other modes tucked
away) for one who has not. "Has begun" is read from what the learner already did there, so the
page that decides writes nothing: an answer or a run in one of its steps, a myth answered, the
lesson read ahead, or a mode of it opened (a mode page remembers itself when shown, and
`/lessons/<slug>/deep-dive` is one of them: one click, and the deep dive stays the default).
"""

from __future__ import annotations

from app.progress.records import LessonRecords

GUIDED_MODE = "step-by-step"  # the mode the guided path is drawn with


def first_visit(records: LessonRecords, modes: dict[str, str], slug: str) -> bool:
    """Has this learner done nothing yet in this lesson? From their records of it and the
    last mode they used in each lesson (the page draws with both, so they are read once)."""
    if records.steps or records.myths or records.read_ahead:
        return False
    return slug not in modes
