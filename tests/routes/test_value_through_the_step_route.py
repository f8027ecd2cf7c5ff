"""The typed value answers through the one step route and commit path, as its kind declares
(`VALUE.step`, a question tried until right or revealed): read as its own body, refused where
it waits for the choice, graded against the step's run (the lesson's value without a
sandbox), kept as the step's latest try, a miss queued as the step's drill, never through
review's `form`."""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from app.learning.kinds import KINDS, VALUE
from app.learning.kinds.kind import StepSide
from app.learning.schemas import SavedStep
from tests.clock import time_passes
from tests.routes.test_lesson_api import LESSON, commit

URL = f"{LESSON}/steps/1/value"


def test_a_value_reads_its_own_body_and_refuses_what_does_not_fit(client: TestClient) -> None:
    commit(client)
    refused = client.post(URL, json={"choice": "None", "confidence": "certain"})
    assert refused.status_code == 422 and "`value`" in refused.json()["detail"]
    assert client.post(URL, json={"value": "1" * 2001}).status_code == 422  # too long
    # The choice's body is not a value's; nor is a value sent as another form of it.
    assert client.post(f"{URL}?form=0", json={"value": "[4, 6]"}).status_code == 422
    assert client.post(URL, json={"value": "[4, 6]"}).json()["correct"] is True


def test_an_unreadable_try_keeps_nothing_and_a_wrong_one_is_queued_as_its_drill(
    client: TestClient,
) -> None:
    commit(client)
    unreadable = client.post(URL, json={"value": "four and six"}).json()
    assert unreadable["parsed"] is False and unreadable["problem"]
    assert client.get(f"{LESSON}/progress").json()["steps"]["1"]["value"] is None
    wrong = client.post(URL, json={"value": "[4, 5]"}).json()
    assert wrong["correct"] is False and wrong["expected"] is None  # no answer on a miss
    kept = client.get(f"{LESSON}/progress").json()["steps"]["1"]["value"]
    assert kept == {"value": "[4, 5]", "correct": False, "revealed": False, "step": None}
    time_passes(client)
    due = client.get("/api/review").json()["due"]
    assert ("drill", "step-1.x") in [(item["kind"], item["key"]) for item in due]
    shown = client.post(URL, json={"value": "", "reveal": True}).json()
    assert shown["expected"] == [4.0, 6.0]
    kept = client.get(f"{LESSON}/progress").json()["steps"]["1"]["value"]
    assert kept["revealed"] is True and kept["correct"] is False


def test_every_step_side_reveals_or_replies_and_restores_from_a_saved_field() -> None:
    sides = [kind.step for kind in KINDS if kind.step is not None]
    assert VALUE.step in sides and VALUE.step is not None and VALUE.step.tried is not None
    for side in sides:
        assert side.saved in SavedStep.model_fields
    with pytest.raises(ValueError, match="one"):
        dataclasses.replace(VALUE.step, reveal=lambda *_: None)  # both
    with pytest.raises(ValueError, match="one"):
        StepSide(keep=str, sent=dict, grade=lambda *_: True)  # neither


def test_after_a_reset_the_value_waits_for_the_choice_again(client: TestClient) -> None:
    """A learner who resets and sends the same value again is refused as a fresh learner is:
    the committed choice went with the progress, so the value would answer it."""
    commit(client)
    assert client.post(URL, json={"value": "[4, 6]"}).json()["correct"] is True
    assert client.post("/api/progress/reset").status_code == 204
    again = client.post(URL, json={"value": "[4, 6]"})
    assert again.status_code == 409 and set(again.json()) <= {"type", "title", "status", "detail"}
    assert client.get(f"{LESSON}/progress").json()["steps"] == {}
