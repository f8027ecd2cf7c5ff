"""The concept inventory in headless Chromium against a real server on the real curriculum: the
catalog's offer, a pre-test, the teacher opening the post-test from the dashboard, the
post-test answered with the page's own buttons (its result by concept, never a question's
answer), and the class's gain on its dashboard, too few to say for two learners; at 1280 and
390 px, light and dark, each checked with axe."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import SCREENSHOTS, wait_ready
from tests.live import LiveServer, create_class

pytestmark = pytest.mark.browser

# GRADLAB_INVENTORY_SHOTS=/some/folder keeps them elsewhere.
SHOTS = Path(os.environ.get("GRADLAB_INVENTORY_SHOTS", SCREENSHOTS / "inventory"))
SIZES = {"wide": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def _no_serious_violations(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in serious]


def _shoot(page: Page, name: str) -> None:
    """A screenshot in light and in dark, each checked with axe."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=str(SHOTS / f"{name}-{scheme}.png"), full_page=True)
        page.screenshot(path=str(SHOTS / f"{name}-{scheme}-screen.png"))  # what one sees
        _no_serious_violations(page)
    page.emulate_media(color_scheme="light")


def _make_class(server: LiveServer) -> tuple[str, str]:
    return create_class(server, "Autograd, inventory")


def _answer_every_item(page: Page, sure: str, pick: int) -> None:
    items = page.locator(".inventory-item")
    for index in range(items.count()):
        item = items.nth(index)
        item.get_by_label(sure).check()
        choices = item.locator(".choice")
        choices.nth(pick % choices.count()).click()
    expect(page.locator(".inventory-count")).to_contain_text("20 of 20 questions answered")


def _pre_test(learner: Page, url: str, size: str) -> None:
    learner.goto(url + "/")
    offer = learner.locator(".inventory-offer")
    expect(offer).to_contain_text("20 questions, about 10 minutes")
    _shoot(learner, f"catalog-offer-{size}")
    offer.get_by_role("link", name="Take the pre-test").click()
    expect(learner.get_by_role("heading", level=1)).to_contain_text("the pre-test")
    wait_ready(learner)  # the page's script listens to the choices before one is clicked
    # Sending with a choice but no confidence is refused on the page, nothing sent.
    first = learner.locator(".inventory-item").first
    first.locator(".choice").first.click()
    learner.get_by_role("button", name="Send my answers").click()
    expect(learner.locator(".inventory-result")).to_contain_text("Say how sure you are")
    _answer_every_item(learner, "Guess", pick=0)
    first.scroll_into_view_if_needed()
    _shoot(learner, f"pre-test-{size}")
    learner.get_by_role("button", name="Send my answers").click()
    result = learner.locator(".inventory-result")
    expect(result).to_contain_text("of 20 right")
    expect(result.locator(".inventory-concepts")).to_contain_text("Custom autograd Functions")
    expect(learner.locator(".inventory-form")).to_be_hidden()
    assert not result.locator(".inventory-reveals").count()  # no answers after the pre-test
    _shoot(learner, f"pre-result-{size}")


def _post_test(learner: Page, url: str, size: str) -> None:
    learner.goto(url + "/")
    offer = learner.locator(".inventory-offer")
    expect(offer).to_contain_text("The post-test is open")  # the teacher opened it
    learner.goto(url + "/progress")
    learner.locator(".inventory-progress").get_by_role("link", name="take the post-test").click()
    expect(learner.get_by_role("heading", level=1)).to_contain_text("the post-test")
    wait_ready(learner)
    _answer_every_item(learner, "Certain", pick=1)
    _shoot(learner, f"post-test-{size}")
    learner.get_by_role("button", name="Send my answers").click()
    result = learner.locator(".inventory-result")
    expect(result).to_contain_text("of 20 right")
    assert not result.locator(".inventory-reveal").count()  # no answer after the post-test
    expect(result).not_to_contain_text("The answer:")
    revisit = result.locator(".inventory-revisit li")
    if revisit.count():  # what was missed: the idea explained, and its lessons by title
        expect(revisit.first.get_by_role("link").first).to_have_attribute(
            "href", re.compile("/lessons/")
        )
        revisit.first.scroll_into_view_if_needed()
    _shoot(learner, f"post-result-{size}")
    learner.goto(url + "/progress")
    mine = learner.locator(".inventory-progress")
    expect(mine.locator(".inventory-gain tbody tr")).to_have_count(10)
    expect(mine.locator(".inventory-gain tbody tr").first).to_contain_text("too few to say")
    mine.scroll_into_view_if_needed()
    _shoot(learner, f"progress-gain-{size}")


def _open_post_test(teacher: Page, teach: str) -> None:
    """The teacher's button on the dashboard: a POST the page makes."""
    teacher.goto(teach)
    teacher.get_by_role("button", name="Open the post-test for the class now").click()
    expect(teacher.locator(".post-test-open")).to_contain_text("The post-test is open")


def _join(page: Page, join: str, name: str) -> None:
    page.goto(join)
    page.get_by_label("Display name").fill(name)
    page.get_by_role("button", name="Join the class").click()
    expect(page.get_by_role("status")).to_contain_text("You are in")


def _both_tests_by_api(page: Page, url: str) -> None:
    for phase, take in (("pre", 3), ("post", 15)):
        test = page.request.get(f"{url}/api/inventory/{phase}").json()
        answers = [
            {"item": item["id"], "choice": item["choices"][0], "confidence": "fairly_sure"}
            for item in test["items"][:take]
        ]
        sent = page.request.post(f"{url}/api/inventory/{phase}", data={"answers": answers})
        assert sent.ok, sent.text()


@pytest.mark.parametrize("size", list(SIZES))
def test_pre_test_post_test_and_the_class_gain(
    browser: Browser, bundled_server: LiveServer, size: str
) -> None:
    join, teach = _make_class(bundled_server)
    learner = browser.new_context(viewport=SIZES[size]).new_page()
    _join(learner, join, "Grace")
    _pre_test(learner, bundled_server.url, size)
    teacher = browser.new_context(viewport=SIZES[size]).new_page()
    _open_post_test(teacher, teach)
    _post_test(learner, bundled_server.url, size)
    # A second learner, by the API, so the class has two learners with both tests.
    other = browser.new_context().new_page()
    _join(other, join, "Alan")
    _both_tests_by_api(other, bundled_server.url)

    teacher.goto(teach)
    gain = teacher.locator("section[aria-labelledby='gain']")
    expect(gain).to_contain_text("From the 2 learners (of 2) who took both tests")
    expect(gain.locator(".gain-concepts tbody tr")).to_have_count(10)
    expect(gain.locator(".gain-value")).to_contain_text("too few to say")
    expect(gain.locator(".gain-value")).to_contain_text("n = 2")
    gain.scroll_into_view_if_needed()
    _shoot(teacher, f"class-gain-{size}")
    with teacher.expect_download() as download:
        gain.get_by_role("link", name="Download the gain (CSV)").click()
    rows = download.value.path().read_text().splitlines()
    assert rows[0] == "scope,name,learners,pre,post,gain,low,high,note"
    assert rows[1].startswith("class,,2,") and "too few to say (n = 2, fewer than 5)" in rows[1]
