"""A fresh round of myth busters, in Chromium: once a round was played, the page asks a myth
as one of its other forms, sends that form with the answer and grades it as that form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app.lessons.loader import load_catalog
from tests.live import LiveServer

FORMS_LESSONS = Path(__file__).parents[1] / "fixtures" / "review-forms"
LESSON = load_catalog([FORMS_LESSONS]).lessons[0]


@pytest.fixture(scope="module")
def forms_server() -> Iterator[LiveServer]:
    live = LiveServer(FORMS_LESSONS)
    yield live
    live.stop()


def test_a_fresh_round_asks_and_grades_another_form(page: Page, forms_server: LiveServer) -> None:
    url = f"{forms_server.url}/lessons/{LESSON.slug}/myth-busters"
    page.goto(url)
    for number, myth in enumerate(LESSON.myths, start=1):  # the first round, as played
        api = f"{forms_server.url}/api/lessons/{LESSON.slug}/myths/{number}/answer"
        body = {"answer": myth.answer, "confidence": "certain"}
        assert page.request.post(api, data=body, headers={"Origin": forms_server.url}).ok
    page.goto(url)
    expect(page.locator(".quiz-saved")).to_contain_text("This is a fresh round.")
    item = page.locator(".quiz-myth[data-myth='1']")
    shown = int(item.get_attribute("data-form") or "-1")
    form, myth = LESSON.myths[0].forms[shown], LESSON.myths[0]
    expect(item.locator(".myth-question")).to_contain_text(form.question.split("`")[0].strip())
    expect(item.locator(".myth-question")).not_to_contain_text(myth.question.split("`")[0])
    sure = item.get_by_label("Fairly sure")
    if sure.count():
        sure.check()
    with page.expect_request("**/myths/1/answer*") as sent:
        item.get_by_role("button", name=form.answer.capitalize(), exact=True).click()
    assert sent.value.url.endswith(f"/answer?form={shown}")
    expect(item.locator(".quiz-feedback")).to_contain_text("Right")
