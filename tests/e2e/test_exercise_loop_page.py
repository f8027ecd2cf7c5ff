"""Code to write in the loop, in Chromium: step by step shows an exercise on its step's screen
once that step is committed, and a missed exercise comes back on /review, written again and
checked by a run there."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.clock import time_passes
from tests.e2e.test_exercises import read_ahead, write
from tests.live import LiveServer


def test_step_by_step_opens_the_exercise_on_the_screen_of_its_step(
    page: Page, bundled_server: LiveServer
) -> None:
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/step-by-step")
    for number in (1, 2):
        step = page.locator(f".step[data-step='{number}']")
        expect(step).to_be_visible()
        step.get_by_label("Fairly sure").check()
        step.locator(".choices button").first.click()
        expect(step.locator(".prediction-feedback")).not_to_be_empty()
        if number == 1:
            page.get_by_role("button", name="Next step").click()
    exercise = page.locator(".step[data-step='2'] #exercise-1")
    expect(exercise).to_be_visible()  # the commit opened it, in place of its note
    write(page, ".step[data-step='2'] #exercise-1", "loss.backward()")
    exercise.get_by_role("button", name="Check my code").click()
    expect(exercise.locator(".exercise-verdict")).to_contain_text("Right!")


def test_a_missed_exercise_is_written_again_in_review(
    page: Page, bundled_server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    read_ahead(page, f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
    write(page, "#exercise-1", "loss.backward")
    page.locator("#exercise-1").get_by_role("button", name="Check my code").click()
    expect(page.locator("#exercise-1 .exercise-verdict")).to_contain_text("Not yet.")
    time_passes(bundled_server.database_url)
    page.goto(f"{bundled_server.url}/review")
    item = page.locator(".review-item[data-widget='code']")
    expect(item).to_be_visible()
    expect(item.locator(".review-heading")).to_contain_text("Code to write")
    write(page, ".review-item[data-widget='code']", "loss.backward()")
    item.get_by_role("button", name="Check my code").click()
    expect(item.locator(".exercise-verdict")).to_contain_text("Right!")
    expect(item.locator(".review-when")).to_contain_text("Well done: it comes back")
    expect(item.locator(".review-next")).to_be_visible()
    shot("review-code-exercise")
