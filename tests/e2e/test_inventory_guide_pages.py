"""The pre-test as a learner who skips a confidence meets it, in headless Chromium against a
real server on the real curriculum: sent with two questions answered but not rated, the
page says so beside each of them (read by their radios, marked invalid), puts the focus on
the first, and sends nothing; rated, the message goes. The result and the catalog afterwards
name lessons by title, mark the lessons whose ideas were answered right and suggest where to
start; /progress links each idea missed to its lessons. At 1280 px light and 390 px dark, each
screenshot checked with axe."""

from __future__ import annotations

import re
from typing import Literal

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from app.config.paths import BUNDLED_LESSONS
from app.lessons.inventory import Inventory
from app.lessons.loader import load_catalog
from tests.e2e.conftest import SCREENSHOTS, serious_violations, wait_ready
from tests.live import LiveServer

pytestmark = pytest.mark.browser

CATALOG = load_catalog(BUNDLED_LESSONS)
INVENTORY: Inventory = CATALOG.inventory  # type: ignore[assignment]
SLUGS = {lesson.slug for lesson in CATALOG.lessons}
TITLE = {lesson.slug: lesson.title for lesson in CATALOG.lessons}
KNOWN = {"what-grad-holds", "leaves-and-requires-grad"}  # answered right on the page
SHOTS = SCREENSHOTS / "inventory"
LOOKS: dict[str, tuple[int, Literal["light", "dark"]]] = {
    "wide-light": (1280, "light"),
    "phone-dark": (390, "dark"),
}


def _shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))  # what one sees
    assert serious_violations(page) == []


def _choose(item: Locator) -> None:
    """Click the item's right choice (from the inventory file) if its concept is in KNOWN,
    else a wrong one."""
    asked = INVENTORY.item(item.get_attribute("data-item") or "")
    assert asked is not None
    wanted = asked.prediction.answer
    if asked.concept not in KNOWN:
        wanted = next(t for t in asked.prediction.texts if t != asked.prediction.answer)
    choices = item.locator(".choice")
    for index in range(choices.count()):
        if choices.nth(index).get_attribute("data-choice") == wanted:
            choices.nth(index).click()
            return
    raise AssertionError(f"no choice {wanted!r}")


def _no_slug_as_text(scope: Locator) -> None:
    links = scope.locator("a[href*='/lessons/']")
    for index in range(links.count()):
        text = links.nth(index).inner_text().strip()
        assert text not in SLUGS, text


def _send_with_two_unrated(page: Page, look: str) -> None:
    """Every question answered, the 3rd and 7th without a confidence; sent: refused beside
    each, focus on the first, nothing sent; rated, each message goes."""
    items = page.locator(".inventory-item")
    for index in range(items.count()):
        item = items.nth(index)
        if index not in (2, 6):
            item.get_by_label("Fairly sure").check()
        _choose(item)
    page.get_by_role("button", name="Send my answers").click()
    third, seventh = items.nth(2), items.nth(6)
    for item in (third, seventh):
        note = item.locator(".confidence-problem")
        expect(note).to_contain_text("Say how sure you are for this question")
        radios = item.locator("fieldset.confidence input[type='radio']")
        for n in range(3):
            expect(radios.nth(n)).to_have_attribute("aria-invalid", "true")
            expect(radios.nth(n)).to_have_attribute(
                "aria-describedby", note.get_attribute("id") or ""
            )
        expect(radios.first).to_have_accessible_description(re.compile("Say how sure you are"))
    expect(items.nth(0).locator(".confidence-problem")).to_have_count(0)
    expect(page.locator(".confidence-problem")).to_have_count(2)
    expect(third.locator("fieldset.confidence input").first).to_be_focused()
    expect(page.locator(".inventory-result")).to_contain_text("for 2 questions you answered")
    third.scroll_into_view_if_needed()
    _shoot(page, f"pre-test-confidence-{look}")
    third.get_by_label("Guess").check()  # rated: its message goes, the other stays
    expect(third.locator(".confidence-problem")).to_have_count(0)
    expect(third.locator("fieldset.confidence input").first).not_to_have_attribute(
        "aria-invalid", "true"
    )
    expect(seventh.locator(".confidence-problem")).to_have_count(1)
    seventh.get_by_label("Certain").check()
    expect(page.locator(".confidence-problem")).to_have_count(0)


def _result_names_titles(page: Page, look: str) -> None:
    result = page.locator(".inventory-result")
    expect(result).to_contain_text("of 20 right")
    skip = result.locator(".inventory-skip-list")
    for slug in ("what-is-grad", "requires-grad-and-leaves", "reading-leaf-gradients"):
        expect(skip.get_by_role("link", name=TITLE[slug], exact=True)).to_be_visible()
    start = result.locator(".inventory-start").get_by_role("link")
    expect(start).to_have_text(TITLE["gradients-accumulate"])
    _no_slug_as_text(result)
    result.scroll_into_view_if_needed()
    _shoot(page, f"pre-result-guide-{look}")


def _catalog_and_progress(page: Page, url: str, look: str) -> None:
    page.goto(url + "/")
    wait_ready(page)
    cards = page.locator(".lesson-card")
    expect(cards.nth(0).locator(".lesson-known")).to_have_text(
        "You answered both pre-test questions on this lesson's idea right"
    )
    expect(cards.nth(2).locator(".lesson-known")).to_contain_text("all 4 pre-test questions")
    expect(cards.nth(3).locator(".lesson-start")).to_have_text("Start here")
    expect(page.locator(".lesson-known")).to_have_count(3)
    expect(page.locator(".inventory-guide")).to_contain_text("a hint, not proof")
    page.locator(".inventory-guide").scroll_into_view_if_needed()
    _shoot(page, f"catalog-guide-{look}")
    cards.nth(2).scroll_into_view_if_needed()
    _shoot(page, f"catalog-marks-{look}")
    page.goto(url + "/progress")
    wait_ready(page)
    weak = page.locator(".inventory-weak")
    expect(weak.locator("li")).to_have_count(len(INVENTORY.concepts) - len(KNOWN))
    expect(weak.get_by_role("link", name=TITLE["non-scalar-backward"])).to_have_attribute(
        "href", re.compile("/lessons/non-scalar-backward$")
    )
    _no_slug_as_text(page.locator(".inventory-progress"))
    page.locator("#inventory-title").scroll_into_view_if_needed()
    _shoot(page, f"progress-weak-{look}")


@pytest.mark.parametrize("look", list(LOOKS))
def test_a_missing_confidence_is_said_beside_its_question(
    browser: Browser, bundled_server: LiveServer, look: str
) -> None:
    width, scheme = LOOKS[look]
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(bundled_server.url + "/inventory/pre")
    wait_ready(page)
    _send_with_two_unrated(page, look)
    progress = page.request.get(bundled_server.url + "/api/progress/inventory").json()
    assert progress["next"] == "pre"  # refused on the page: nothing was sent
    page.get_by_role("button", name="Send my answers").click()
    _result_names_titles(page, look)
    _catalog_and_progress(page, bundled_server.url, look)
    assert errors == []
    context.close()
