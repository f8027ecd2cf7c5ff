"""The gradient doctor's words (app/learning/doctor.py): every kind has them, every lesson a
finding links to is a bundled lesson, and the learner's text in them is escaped."""

from __future__ import annotations

import typing

from app.config.paths import BUNDLED_LESSONS
from app.learning.doctor import LESSONS, WORDS, finding
from app.lessons.loader import load_catalog
from app.sandbox.doctor_result import Kind, RawFinding

HOSTILE = "<img src=x onerror=alert(1)>"


def test_every_kind_has_words_and_every_lesson_exists() -> None:
    assert set(WORDS) == set(typing.get_args(Kind))
    slugs = {lesson.slug for lesson in load_catalog(BUNDLED_LESSONS).lessons}
    assert set(LESSONS.values()) <= slugs


def test_every_kind_and_cause_escapes_the_learner_s_text() -> None:
    causes = [None, "cut", "no_grad", "inference_mode", "frozen", "non-leaf", "unused"]
    causes += ["lr-zero", "no-step", "unchanged", "forward", "backward", "layers", "steps"]
    for kind in typing.get_args(Kind):
        for cause in causes:
            raw = RawFinding(
                kind=kind,
                tensor=HOSTILE,
                line=3,
                cause=cause,
                facts={"op": HOSTILE, "node": HOSTILE, "largest_tensor": HOSTILE, "count": 2},
            )
            said = finding(raw)
            assert "<img" not in said.message_html, (kind, cause)
            assert "&lt;img" in said.message_html, (kind, cause)
            assert said.message_html.count("<") == said.message_html.count("<code>") * 2
