"""Practice on variants: the typed value after a reveal, and the review queue, ask an instance
with other numbers, graded against the answer the sandbox computed for it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.lessons.loader import load_catalog
from app.lessons.variants import instances
from app.main import create_app
from tests.clock import time_passes
from tests.conftest import SandboxHarness, make_settings

VARIANT_LESSONS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"
LESSON = "/api/lessons/other-numbers"
STEP = load_catalog([VARIANT_LESSONS]).lessons[0].steps[0]


@pytest.fixture
def variant_client(migrated_url: str) -> Iterator[TestClient]:
    """A learner on the variant lesson, on SQLite and on PostgreSQL, without a sandbox (an
    instance's answer is stored: checking a typed value runs nothing)."""
    settings = make_settings(lessons_dir=VARIANT_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _instance_of(code: str) -> int:
    (found,) = [i for i in instances(STEP) if i.code == code]
    return found.index


def test_the_typed_value_after_the_reveal_asks_a_variant(variant_client: TestClient) -> None:
    committed = variant_client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor(6.)", "confidence": "fairly_sure"}
    )
    question = committed.json()["value"]
    code = question["code"]
    assert code is not None and "tensor(3.0" not in code  # not the code just answered
    instance = instances(STEP)[_instance_of(code)]
    slope, value_of_y = instance.grads["x"], instance.misconceptions[0].value
    url = f"{LESSON}/steps/1/value"
    # The number the reveal just showed is wrong here.
    assert variant_client.post(url, json={"value": "6"}).json()["correct"] is False
    missed = variant_client.post(url, json={"value": str(value_of_y)}).json()
    assert missed["correct"] is False
    x = instance.code.split("tensor(")[1].split(",")[0]
    if value_of_y == -slope:  # x = -2: 4 is the slope with its sign turned, told as such
        assert missed["why_html"].startswith("The size is right but the sign is not")
    else:
        assert missed["why_html"] == f"That is the value of <code>y</code>, <code>{x} · {x}</code>."
    right = variant_client.post(url, json={"value": str(slope)}).json()
    assert right["correct"] is True and right["expected"] == slope
    assert right["explanation_html"] == f"<p>2x at {x}.</p>\n"
    # The page drawn again asks the same instance.
    page = variant_client.get("/lessons/other-numbers").text
    assert "The same idea with other numbers:" in page
    assert f"x = torch.tensor({x}, requires_grad=True)" in page


def test_the_value_of_a_variant_waits_for_the_choice(variant_client: TestClient) -> None:
    refused = variant_client.post(f"{LESSON}/steps/1/value", json={"value": "1", "reveal": True})
    assert refused.status_code == 409
    assert "value-variant" not in variant_client.get("/lessons/other-numbers").text


def test_a_reasked_prediction_shows_a_variant_the_sandbox_computed(
    sandbox: SandboxHarness,
) -> None:
    with TestClient(create_app(make_settings(lessons_dir=VARIANT_LESSONS))) as client:
        client.post(
            f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"}
        )
        value_code = client.get(f"{LESSON}/progress").json()["steps"]["1"]["answer"]["reveal"][
            "value"
        ]["code"]
        time_passes(client)
        (item,) = client.get("/api/review").json()["due"]
        assert item["kind"] == "prediction"
        assert item["code"] not in (STEP.snippet.code if STEP.snippet else "", value_code)
        instance = instances(STEP)[_instance_of(item["code"])]
        assert sorted(item["choices"]) == sorted(instance.texts)
        # What the instance's code prints, in a real run, is the choice graded right.
        printed = sandbox.run(item["code"]).stdout.strip()
        assert printed in item["choices"] and printed != "tensor(6.)"
        wrong = next(text for text in item["choices"] if text not in (printed, "None"))
        url = f"/api/review/{item['id']}/answer"
        missed = client.post(url, json={"choice": wrong, "confidence": "certain"}).json()
        assert missed["correct"] is False and missed["reveal"]["answer"] == printed
        assert missed["reveal"]["output"].strip() == printed
        assert missed["reveal"]["why_html"] == "That is the value of <code>y</code>, not its slope."
        time_passes(client)
        (again,) = client.get("/api/review").json()["due"]
        url = f"/api/review/{again['id']}/answer"
        rerun = sandbox.run(again["code"]).stdout.strip()
        right = client.post(url, json={"choice": rerun, "confidence": "certain"}).json()
        assert right["correct"] is True


def test_a_drill_on_a_variant_may_have_none_as_its_answer(variant_client: TestClient) -> None:
    variant_client.post(
        f"{LESSON}/steps/2/prediction",
        json={"choice": "tensor(3.) tensor(1.)", "confidence": "fairly_sure"},
    )
    page = variant_client.get("/lessons/other-numbers/predict-the-gradient").text
    assert "is never the answer" not in page
    used = re.search(r"y = (w(?:\.detach\(\))?) \* ([0-9.]+) \+ b", page)
    assert used is not None
    expected = "None" if used.group(1) == "w.detach()" else used.group(2)
    answered = variant_client.post(
        f"{LESSON}/drills/step-2.w/answer", json={"value": expected}
    ).json()
    assert answered["correct"] is True
