"""A return to a begun lesson, in Chromium: the catalog's card says where to continue, and the
lesson opens on the guided path at its first unanswered step, the whole lesson one link away."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.catalogs import BUNDLED
from tests.live import LiveServer

SLUG = "what-is-grad"


def test_returning_to_a_begun_lesson_opens_at_its_first_unanswered_step(
    page: Page, bundled_server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{bundled_server.url}/lessons/{SLUG}")  # the first visit: step 1
    expect(page.locator(".step[data-step='1'] .prediction-question")).to_be_visible()
    lesson = BUNDLED.get(SLUG)
    assert lesson is not None
    for number in (1, 2):  # answered elsewhere (another tab, another day)
        prediction = lesson.steps[number - 1].prediction
        assert prediction is not None
        body = {"choice": prediction.texts[0], "confidence": "fairly_sure"}
        answered = page.request.post(
            f"{bundled_server.url}/api/lessons/{SLUG}/steps/{number}/prediction", data=body
        )
        assert answered.ok, answered.text()

    page.goto(bundled_server.url)
    card = page.locator(".lesson-card", has_text=lesson.title)
    expect(card.locator(".lesson-resume")).to_have_text("Continue at step 3")
    card.scroll_into_view_if_needed()
    shot("catalog-continue", full_page=False)
    card.get_by_role("link").click()
    step = page.locator(".step[data-step='3']")
    expect(step).to_be_visible()
    expect(step.locator(".prediction-question")).to_be_visible()
    expect(page.locator(".step[data-step='1']")).to_be_hidden()
    expect(page.locator(".sbs-current")).to_have_text("3")
    expect(page.get_by_text("Welcome back: you continue at step 3")).to_be_visible()
    shot("guided-resume", full_page=False)

    # The lesson's own address, without the card's anchor, opens there too.
    page.goto(f"{bundled_server.url}/lessons/{SLUG}")
    expect(page.locator(".step[data-step='3']")).to_be_visible()
    expect(page.locator(".step[data-step='2']")).to_be_hidden()
    page.get_by_role("link", name="Show the whole lesson at once (deep dive)").click()
    expect(page.get_by_role("navigation", name="On this page")).to_be_visible()


def test_a_reload_after_the_last_step_stays_at_the_guided_path_s_end(
    page: Page, bundled_server: LiveServer, shot
) -> None:  # type: ignore[no-untyped-def]
    slug = "reading-leaf-gradients"  # every step asks a choice
    lesson = BUNDLED.get(slug)
    assert lesson is not None
    for number, step in enumerate(lesson.steps, start=1):
        assert step.prediction is not None
        body = {"choice": step.prediction.texts[0], "confidence": "guess"}
        answered = page.request.post(
            f"{bundled_server.url}/api/lessons/{slug}/steps/{number}/prediction", data=body
        )
        assert answered.ok, answered.text()
    page.goto(f"{bundled_server.url}/lessons/{slug}")
    done = page.locator(".sbs-done")
    expect(done).to_be_visible()
    expect(done.get_by_role("heading", name=f"You made it through all {len(lesson.steps)} steps"))
    expect(page.get_by_text("Welcome back: you have answered every step.")).to_be_visible()
    expect(page.locator(".sbs-steps > .step").first).to_be_hidden()
    shot("guided-finished", full_page=False)
    page.reload()
    expect(done).to_be_visible()
    done.get_by_role("button", name="Back to step 1").click()
    expect(page.locator(".step[data-step='1']")).to_be_visible()
