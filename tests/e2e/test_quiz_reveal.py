"""In Chromium: what explains an answer appears only once it is given (and again after a
reload), a wrong pick shows its why, the choices' DOM order is the visible order, and a run
refused while the server is busy waits out Retry-After with a countdown, then runs; and the
server's refusals (Problem Details) reach the learner in plain words on every kind of page."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, Route, expect

from app.config.paths import BUNDLED_LESSONS
from app.lessons.loader import load_catalog
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS
from tests.live import LiveServer

STEP_1 = ".step[data-step='1']"
LIMITED = json.dumps(
    {
        "type": "/problems/learner-limit",
        "title": "You have as many runs going as you may",
        "status": 429,
        "detail": "You already have 2 runs in progress and 4 waiting; wait for one to finish.",
    }
)
BUSY = json.dumps(
    {
        "type": "/problems/sandbox-busy",
        "title": "Every sandbox worker is busy",
        "status": 503,
        "detail": "every worker is busy and the queue is full",
    }
)


def test_the_reveal_comes_with_the_commit_and_stays_after_a_reload(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(STEP_1)
    expect(step).to_contain_text("runs on a sum of squares")  # the setup
    for hidden in ("d(x²)/dx = 2x", "Backward fills leaves.", "A fresh tensor has no gradient"):
        expect(step).not_to_contain_text(hidden)
    step.get_by_label("Guess").check()
    step.get_by_role("button", name="None", exact=True).click()
    feedback = step.locator(".prediction-feedback")
    expect(feedback).to_contain_text("A fresh tensor has no gradient")  # the wrong pick's why
    reveal = step.locator(".step-reveal")
    expect(reveal).to_be_visible()
    expect(reveal).to_contain_text("d(x²)/dx = 2x")
    expect(reveal).to_contain_text("Backward fills leaves.")
    page.reload()
    expect(page.locator(f"{STEP_1} .step-reveal")).to_contain_text("Backward fills leaves.")
    expect(page.locator(f"{STEP_1} .prediction-feedback")).to_contain_text("A fresh tensor")


def test_the_commit_waits_for_a_chosen_confidence(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(STEP_1)
    radios = step.locator("fieldset.confidence input[type='radio']")
    expect(radios).to_have_count(3)
    for i in range(3):
        expect(radios.nth(i)).not_to_be_checked()  # no default
    none = step.get_by_role("button", name="None", exact=True)
    none.click()
    feedback = step.locator(".prediction-feedback")
    expect(feedback).to_contain_text("First say how sure you are")
    expect(step.get_by_label("Guess")).to_be_focused()
    expect(none).to_be_enabled()  # nothing was committed
    expect(step.locator(".step-reveal")).to_be_hidden()
    page.keyboard.press("ArrowDown")  # the radio group, by keyboard: Fairly sure
    expect(step.get_by_label("Fairly sure")).to_be_checked()
    expect(feedback).to_be_empty()
    none.click()
    expect(feedback).to_contain_text("Not quite.")
    expect(feedback).to_contain_text("(fairly sure)")


def test_keyboard_order_is_the_visible_order(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    buttons = page.locator(f"{STEP_1} .choices .choice")
    boxes = [buttons.nth(i).bounding_box() for i in range(buttons.count())]
    positions = [(round(b["y"]), b["x"]) for b in boxes if b is not None]
    assert positions == sorted(positions)  # DOM order reads top to bottom, left to right
    texts = buttons.all_inner_texts()
    page.reload()
    assert page.locator(f"{STEP_1} .choices .choice").all_inner_texts() == texts  # stable


@pytest.mark.parametrize("status", [503, 429])
def test_a_busy_server_is_waited_out_with_a_countdown(
    page: Page, server: LiveServer, status: int
) -> None:
    # 503: every worker busy; 429: this learner has as many runs going as they may.
    refused = []

    def busy_once(route: Route) -> None:
        if not refused:
            refused.append(True)
            route.fulfill(
                status=status,
                headers={"Retry-After": "2", "Content-Type": "application/problem+json"},
                body=BUSY if status == 503 else LIMITED,
            )
        else:
            route.fulfill(
                status=200,
                headers={"Content-Type": "application/json"},
                body='{"status": "ok", "stdout": "ran after the wait\\n", "stderr": "",'
                ' "truncated": false, "error": null, "tensors": [], "graph": null,'
                ' "duration_ms": 1.0}',
            )

    page.route("**/api/run", busy_once)
    page.goto(f"{server.url}/lessons/second-steps/deep-dive")
    runnable = page.locator(".runnable[data-step='1']")
    runnable.get_by_role("button", name="Run").click()
    countdown = runnable.locator(".retry-wait")
    expect(countdown).to_contain_text("trying again in")
    expect(countdown.get_by_role("button", name="Cancel")).to_be_visible()
    expect(runnable.locator(".run-stdout")).to_have_text("ran after the wait\n", timeout=10_000)
    expect(countdown).to_have_count(0)


def test_cancel_stops_the_wait(page: Page, server: LiveServer) -> None:
    page.route(
        "**/api/run",
        lambda route: route.fulfill(
            status=503,
            headers={"Retry-After": "5", "Content-Type": "application/problem+json"},
            body=BUSY,
        ),
    )
    page.goto(f"{server.url}/lessons/second-steps/deep-dive")
    runnable = page.locator(".runnable[data-step='1']")
    runnable.get_by_role("button", name="Run").click()
    runnable.get_by_role("button", name="Cancel").click()
    expect(runnable.locator(".run-status")).to_contain_text("cancelled")


def answer_the_build_up(page: Page, url: str) -> None:
    """Commit the fixture lesson's one prediction as this page's learner: its cards and
    pitfalls open (docs/quizzes.md)."""
    page.goto(f"{url}/lessons/first-steps/deep-dive")  # the learner's cookie
    body = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
    assert page.request.post(f"{url}/api/lessons/first-steps/steps/1/prediction", data=body).ok


def _altered(body: dict[str, object]) -> object:
    """Send the page's request to the real server with `body` merged into its JSON."""

    def send(route: Route) -> None:
        sent = route.request.post_data_json or {}
        route.continue_(post_data=json.dumps({**sent, **body}))

    return send


def test_a_choice_the_step_does_not_have_is_refused_in_words(
    page: Page, server: LiveServer
) -> None:
    page.route("**/steps/1/prediction", _altered({"choice": "a choice it does not have"}))
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    step = page.locator(STEP_1)
    step.get_by_label("Fairly sure").check()
    step.get_by_role("button", name="None", exact=True).click()
    feedback = step.locator(".prediction-feedback")
    expect(feedback).to_contain_text("That is not one of the choices.")
    expect(feedback).not_to_contain_text("{")
    expect(step.locator(".step-reveal")).to_be_hidden()


def test_code_over_the_limit_is_refused_in_words(page: Page, server: LiveServer) -> None:
    page.route("**/api/run", _altered({"code": "x = 1\n" * 4000}))
    page.goto(f"{server.url}/playground")
    page.get_by_role("button", name="Run").click()
    status = page.locator(".runnable .run-status")
    expect(status).to_contain_text("This code is too long to run.")
    expect(status).to_contain_text("larger than")


def test_an_unknown_flashcard_is_refused_in_words(page: Page, server: LiveServer) -> None:
    page.route(
        "**/flashcards/takeaway-1",
        lambda route: route.continue_(url=route.request.url.replace("takeaway-1", "no-such-card")),
    )
    answer_the_build_up(page, server.url)
    page.goto(f"{server.url}/lessons/first-steps/flashcards")
    card = page.locator(".flashcard[data-card='takeaway-1']")
    card.get_by_role("button", name="Show answer").click()
    back = card.locator(".flashcard-back")
    expect(back).to_contain_text("Turning the card over failed: not found.")
    expect(back).to_contain_text("has no flashcard 'no-such-card'")


def test_a_hint_past_the_last_is_refused_in_words(page: Page, server: LiveServer) -> None:
    page.route(
        "**/pitfalls/1/hints/1",
        lambda route: route.continue_(url=route.request.url.replace("/hints/1", "/hints/9")),
    )
    answer_the_build_up(page, server.url)
    page.goto(f"{server.url}/lessons/first-steps/pitfall-fixer")
    fixer = page.locator("#pitfall-1")
    fixer.get_by_role("button", name="Hint 1 of 3").click()
    verdict = fixer.locator(".fixer-verdict")
    expect(verdict).to_contain_text("Fetching the hint failed: not found. Hints go from 1 to 3.")


def test_a_myth_answer_that_is_not_yes_or_no_is_refused_in_words(
    page: Page, server: LiveServer
) -> None:
    page.route("**/myths/1/answer", _altered({"answer": "maybe"}))
    page.goto(f"{server.url}/lessons/first-steps/myth-busters")
    myth = page.locator(".quiz-myth[data-myth='1']")
    myth.get_by_role("button", name="Yes", exact=True).click()
    feedback = myth.locator(".quiz-feedback")
    expect(feedback).to_contain_text("was refused. answer: Input should be 'yes' or 'no'.")


def test_a_review_item_answered_twice_is_refused_in_words(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/lessons/first-steps/myth-busters")
    myth = page.locator(".quiz-myth[data-myth='1']")
    myth.get_by_role("button", name="Yes", exact=True).click()
    expect(myth.locator(".quiz-feedback")).to_contain_text("Not quite.")
    time_passes(server.database_url)  # a miss comes back after its learning step

    def answered_elsewhere_first(route: Route) -> None:
        route.fetch()  # the same answer from another tab lands first
        route.continue_()

    page.route("**/api/review/*/answer", answered_elsewhere_first)
    page.goto(f"{server.url}/review")
    item = page.locator(".review-item").first
    item.get_by_label("Fairly sure").check()
    item.get_by_role("button", name="No", exact=True).click()
    feedback = item.locator(".review-feedback")
    expect(feedback).to_contain_text("You answered this one already.")


def test_a_named_wrong_value_gets_its_why(page: Page, bundled_server: LiveServer) -> None:
    lesson = load_catalog(BUNDLED_LESSONS).get("what-is-grad")
    assert lesson is not None and lesson.steps[1].prediction is not None
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
        step = page.locator(".step[data-step='2']")
        if width == 1280:  # committed once; the reload restores it
            step.get_by_label("Fairly sure").check()
            answer = lesson.steps[1].prediction.answer
            step.get_by_role("button", name=answer, exact=True).click()
        form = step.locator("form.value-prediction")
        # The value is asked on a variant, `y = h * h` through `h = x * x`: y's value for the
        # numbers of its code.
        shown = form.locator(".value-code").inner_text()
        x = float(shown.split("tensor(")[1].split(",")[0])
        form.get_by_role("textbox").fill(str(x**4))
        form.get_by_role("button", name="Check").click()
        feedback = form.locator(".value-feedback")
        expect(feedback).to_contain_text("Why not that value: That is the value of y itself")
        expect(feedback).not_to_contain_text("Answer:")  # the answer still waits
        form.screenshot(path=str(SCREENSHOTS / f"value-misconception-{width}.png"))
