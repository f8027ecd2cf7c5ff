"""A drill on a step with variants, in Chromium: the drills page asks it on an instance of the
step (its `data-form`), sends that instance with the answer and is graded on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.lessons.loader import load_catalog
from app.lessons.variants import instances
from tests.live import LiveServer

FORMS_LESSONS = Path(__file__).parents[1] / "fixtures" / "review-forms"
LESSON = load_catalog([FORMS_LESSONS]).lessons[0]


@pytest.fixture(scope="module")
def forms_server() -> Iterator[LiveServer]:
    live = LiveServer(FORMS_LESSONS)
    yield live
    live.stop()


def test_a_drill_is_sent_and_graded_on_the_instance_the_page_shows(
    page: Page, forms_server: LiveServer
) -> None:
    step = LESSON.steps[0]
    assert step.prediction is not None
    page.goto(f"{forms_server.url}/lessons/{LESSON.slug}/predict-the-gradient")
    api = f"{forms_server.url}/api/lessons/{LESSON.slug}/steps/1/prediction"
    body = {"choice": step.prediction.answer, "confidence": "certain"}
    assert page.request.post(api, data=body, headers={"Origin": forms_server.url}).ok
    page.reload()
    drill = page.locator(".drill[data-drill^='step-1.']").first
    form = int(drill.get_attribute("data-form") or "-1")
    tensor = drill.get_attribute("data-tensor") or ""
    instance = instances(step)[form]
    expect(drill.locator("xpath=ancestor::li[contains(@class,'drill-group')]")).to_contain_text(
        instance.code.strip().splitlines()[1]
    )
    drill.get_by_label(f"After this code runs, what is {tensor}.grad?").fill(
        str(instance.grads[tensor])
    )
    with page.expect_request("**/drills/step-1.*/answer*") as sent:
        drill.get_by_role("button", name="Check").click()
    assert sent.value.url.endswith(f"/answer?form={form}")
    expect(drill.locator(".value-feedback")).to_contain_text("Right.")
