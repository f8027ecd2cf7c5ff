"""What a client may see of a lesson before answering anything.

Quiz answers (prediction answers, value-prediction values, myth verdicts and everything that
gives them away) stay on the server; they are revealed only by answering.
"""

from __future__ import annotations

from typing import Any

from app.lessons.schema import Lesson

_HIDDEN_STEP_FIELDS = {
    "prediction": {"answer", "explanation"},
    # Named wrong values would narrow the answer down: they come only with a matching answer.
    "value_prediction": {"expected", "explanation", "misconceptions"},
}
# What explains a step's answer (see `Step`): revealed only with the answer.
_REVEALED_STEP_FIELDS = {"concept", "explanation", "insight"}
_HIDDEN_MYTH_FIELDS = {"answer", "belief", "reality", "why_it_matters", "demo"}


def lesson_summary(lesson: Lesson) -> dict[str, Any]:
    return lesson.model_dump(include={"slug", "title", "summary", "level", "minutes"})


def public_lesson(lesson: Lesson) -> dict[str, Any]:
    data = lesson.model_dump(mode="json")
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
