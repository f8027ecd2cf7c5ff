"""A missed myth comes back on /review as one of its other forms, in Chromium: the page asks
the form's question, sends the form it showed with the answer, and reveals that form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.lessons.loader import load_catalog
from tests.clock import time_passes
from tests.live import LiveServer

FORMS_LESSONS = Path(__file__).parents[1] / "fixtures" / "review-forms"
MYTH = load_catalog([FORMS_LESSONS]).lessons[0].myths[0]


@pytest.fixture(scope="module")
def forms_server() -> Iterator[LiveServer]:
    live = LiveServer(FORMS_LESSONS)
    yield live
    live.stop()


def test_a_missed_myth_is_asked_and_revealed_as_another_form(
    page: Page, forms_server: LiveServer
) -> None:
    page.goto(f"{forms_server.url}/lessons/forms-one/deep-dive")
    myth = page.locator(".myth[data-myth='1']")
    myth.get_by_role("button", name="Yes", exact=True).click()  # the myth's answer is no
    expect(myth.locator(".myth-feedback")).to_have_attribute("data-result", "wrong")
    time_passes(forms_server.database_url)
    page.goto(f"{forms_server.url}/review")
    item = page.locator(".review-item").first
    shown = int(item.get_attribute("data-form") or "-1")
    form = MYTH.forms[shown]
    question = form.question.split("`")[0].strip()
    expect(item.locator(".review-question")).to_contain_text(question)
    expect(item.locator(".review-question")).not_to_contain_text(MYTH.question.split("`")[0])
    item.get_by_label("Fairly sure").check()
    with page.expect_request("**/api/review/*/answer*") as sent:
        item.get_by_role("button", name=form.answer.capitalize(), exact=True).click()
    assert sent.value.url.endswith(f"/answer?form={shown}")
    feedback = item.locator(".review-feedback")
    expect(feedback).to_contain_text("Right.")
    expect(feedback).to_contain_text(form.reality.replace("`", "").split(";")[0])
    expect(feedback).to_contain_text(form.demo.output.strip())
