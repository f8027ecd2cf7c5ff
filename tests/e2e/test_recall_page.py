"""A learner completes a small lesson step by step in Chromium and answers its recall: the
questions arrive at the path's end without a reload, each answer is graded and revealed, its
code runs once answered, and on return the answers are drawn again. The recall is axe clean
and fits 390 px, light and dark (screenshots: recall-*.png)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from app.lessons.loader import load_catalog
from tests.e2e.conftest import SCREENSHOTS, serious_violations
from tests.live import LiveServer

FORMS = Path(__file__).parents[1] / "fixtures" / "review-forms"
LESSON = load_catalog([FORMS]).get("forms-one")
assert LESSON is not None


@pytest.fixture(scope="module")
def recall_server() -> Iterator[LiveServer]:
    live = LiveServer(FORMS)
    yield live
    live.stop()


def _complete_step_by_step(page: Page, base: str) -> None:
    page.goto(f"{base}/lessons/forms-one")  # a first visit: the guided path
    for number, step in enumerate(LESSON.steps, start=1):
        shown = page.locator(f".sbs-steps > .step[data-step='{number}']")
        expect(shown).to_be_visible()
        shown.locator(".prediction fieldset.confidence").get_by_label("Fairly sure").check()
        assert step.prediction is not None
        shown.locator(f".choice[data-choice='{step.prediction.answer}']").click()
        expect(shown.locator(".prediction-feedback")).to_contain_text("Right.")
        page.locator(".sbs-next").click()


def test_the_path_ends_on_a_recall_answered_and_drawn_again(
    page: Page, recall_server: LiveServer
) -> None:
    base = recall_server.url
    page.goto(f"{base}/lessons/forms-one")
    expect(page.locator(".sbs-done .recall-item")).to_have_count(0)  # not sent yet
    _complete_step_by_step(page, base)
    done = page.locator(".sbs-done")
    expect(done).to_be_visible()
    items = done.locator(".recall-item")
    expect(items).to_have_count(3)  # read again at the end, no reload
    expect(done.locator(".takeaways")).to_have_count(0)  # a list to read no more
    expect(done.locator(".recall-waiting")).to_have_count(0)

    first = items.first
    code = first.locator("section.runnable")
    expect(code.locator(".btn-run")).to_be_disabled()  # its output would answer it
    choices = first.locator(".choice")
    texts = [choices.nth(i).get_attribute("data-choice") for i in range(choices.count())]
    first.get_by_role("button", name=texts[0] or "", exact=True).click()
    feedback = first.locator(".recall-feedback")
    expect(feedback).to_contain_text("First say how sure you are")  # asked like any question
    first.get_by_label("Certain").check()
    with page.expect_response("**/api/lessons/forms-one/recall/*?form=*") as sent:
        first.get_by_role("button", name=texts[0] or "", exact=True).click()
    answer = sent.value.json()
    verdict = "Right." if answer["correct"] else "Not quite."
    expect(feedback).to_contain_text(verdict)
    expect(feedback).to_contain_text(answer["reveal"]["answer"])
    if not answer["correct"]:
        expect(feedback).to_contain_text("It comes back in your review in 10 minutes.")
    expect(code.locator(".btn-run")).to_be_enabled()

    page.reload()  # a completed lesson's address: the whole lesson, the recall drawn answered
    again = page.locator("section.recall .recall-item").first
    expect(again.locator(".recall-feedback")).to_contain_text(verdict)
    expect(again.locator(".recall-feedback")).to_contain_text("Your committed answer")
    expect(again.locator(".choice").first).to_be_disabled()
    page.goto(f"{base}/lessons/forms-one/step-by-step#done")
    expect(
        page.locator(".sbs-done .recall-item").first.locator(".recall-feedback")
    ).to_contain_text(verdict)


def test_the_recall_is_axe_clean_and_fits_a_phone_in_both_schemes(
    browser: Browser, recall_server: LiveServer
) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found: list[tuple[str, list[Any]]] = []
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = context.new_page()
        _complete_step_by_step(page, recall_server.url)
        recall = page.locator(".sbs-done section.recall")
        expect(recall.locator(".recall-item")).to_have_count(3)
        item = recall.locator(".recall-item").nth(1)
        item.get_by_label("Fairly sure").check()
        item.locator(".choice").first.click()
        expect(item.locator(".recall-feedback .feedback-title")).to_be_visible()
        found += serious_violations(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator(".sbs-done").screenshot(path=str(SCREENSHOTS / f"recall-390-{scheme}.png"))
        page.goto(f"{recall_server.url}/lessons/forms-one/deep-dive#recall")
        expect(page.locator("section.recall .recall-item")).to_have_count(3)
        found += serious_violations(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator("section.recall").screenshot(
            path=str(SCREENSHOTS / f"recall-deep-dive-390-{scheme}.png")
        )
        context.close()
    assert not found, found


def test_the_whole_lesson_opens_its_recall_once_the_last_step_is_committed(
    page: Page, recall_server: LiveServer
) -> None:
    page.goto(f"{recall_server.url}/lessons/forms-one/deep-dive")
    recall = page.locator("section.recall")
    expect(recall.locator(".recall-waiting")).to_be_visible()
    for number, step in enumerate(LESSON.steps, start=1):
        shown = page.locator(f".steps > .step[data-step='{number}']")
        shown.locator(".prediction fieldset.confidence").get_by_label("Guess").check()
        assert step.prediction is not None
        shown.locator(f".choice[data-choice='{step.prediction.answer}']").click()
        expect(shown.locator(".prediction-feedback")).to_contain_text("Right.")
    expect(recall.locator(".recall-item")).to_have_count(3)  # no reload
    expect(recall.locator(".recall-waiting")).to_have_count(0)
    item = recall.locator(".recall-item").last
    item.get_by_label("Guess").check()
    item.locator(".choice").first.click()
    expect(item.locator(".recall-feedback .feedback-title")).to_be_visible()
