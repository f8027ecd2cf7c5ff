"""What a client may see of a lesson before answering anything.

Quiz answers (prediction answers, value-prediction values, myth verdicts and everything that
gives them away) stay on the server; they are revealed only by answering.
"""

from __future__ import annotations

from typing import Any

from app.lessons.disclosure import Disclosure
from app.lessons.schema import Lesson

_HIDDEN_STEP_FIELDS = {
    "prediction": {"answer", "explanation"},
    "value_prediction": {"expected", "explanation"},
}
# What explains a step's answer (see `Step`): revealed only with the answer.
_REVEALED_STEP_FIELDS = {"concept", "explanation", "insight"}
_HIDDEN_MYTH_FIELDS = {"answer", "belief", "reality", "why_it_matters", "demo"}
# The reference: sent once the build-up is answered or read ahead (app/lessons/disclosure.py).
_REFERENCE_FIELDS: dict[str, list[object] | None] = {
    "under_the_hood": None,
    "why_designed": None,
    "expert_zone": [],
    "when_not_to_use": None,
    "production_patterns": None,
    "connections": [],
    "takeaways": [],
}


def lesson_summary(lesson: Lesson) -> dict[str, Any]:
    return lesson.model_dump(include={"slug", "title", "summary", "level", "minutes"})


def public_lesson(lesson: Lesson, disclosure: Disclosure | None = None) -> dict[str, Any]:
    """The lesson as a learner with this disclosure may see it (by default, a new one)."""
    shown = disclosure or Disclosure(lesson, frozenset())
    data = lesson.model_dump(mode="json")
    if not shown.reference:
        data.update({field: empty for field, empty in _REFERENCE_FIELDS.items()})
        data["reference_withheld"] = True
    opened = {number for number, _ in shown.pitfalls()}
    data["pitfalls"] = [
        {**pitfall, "number": number}
        for number, pitfall in enumerate(data["pitfalls"], start=1)
        if number in opened
    ]
    for raw_step, step in zip(data["steps"], lesson.steps, strict=True):
        for field, hidden in _HIDDEN_STEP_FIELDS.items():
            if raw_step.get(field) is not None:
                raw_step[field] = {k: v for k, v in raw_step[field].items() if k not in hidden}
        if step.prediction is not None:
            # A wrong choice's `why` and `because` would say it is wrong: only its text shows.
            raw_step["prediction"]["choices"] = step.prediction.texts
        # A step that asks for a prediction keeps its output, grads and the text explaining
        # them until it is answered.
        if step.prediction or step.value_prediction:
            for field in _REVEALED_STEP_FIELDS:
                raw_step.pop(field, None)
            if raw_step.get("snippet") is not None:
                raw_step["snippet"] = {"code": raw_step["snippet"]["code"]}
    data["myths"] = [
        {k: v for k, v in myth.items() if k not in _HIDDEN_MYTH_FIELDS} for myth in data["myths"]
    ]
    return data
