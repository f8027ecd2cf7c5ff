"""A learner's first visit to a lesson, in Chromium: the guided path opens with the mental
model and one step, the other ways to study wait behind one keyboard-reachable control, and
the deep dive is one link away."""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.e2e.conftest import goto_ready, wait_ready
from tests.live import LiveServer

# Words a learner can see in <main> before the first question (a prediction, a typed value or
# a myth), in document order.
WORDS_BEFORE_THE_FIRST_QUESTION = """() => {
  const main = document.querySelector("main");
  const question = [...main.querySelectorAll(
    ".prediction-question, .value-prediction, .myth-question")].find((e) => e.checkVisibility());
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  let words = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (question.contains(node)
        || question.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING) break;
    const parent = node.parentElement;
    if (!parent.checkVisibility() || parent.closest("script, style, textarea")) continue;
    words += node.textContent.split(/\\s+/).filter(Boolean).length;
  }
  return words;
}"""
HEIGHT = "document.documentElement.scrollHeight"


def _editor_scroller(violation: dict[str, Any]) -> bool:
    # A code editor's scroller holds its contenteditable textbox, which takes the focus (and
    # scrolls it); axe counts only tabindex and native controls as focusable inside it.
    return violation["id"] == "scrollable-region-focusable" and all(
        str(node["target"][-1]).endswith(".cm-scroller") for node in violation["nodes"]
    )


def _serious(page: Page) -> list[object]:
    results = Axe().run(page)
    return [
        (v["id"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical") and not _editor_scroller(v)
    ]


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_a_first_visit_opens_the_guided_path(
    page: Page, bundled_server: LiveServer, shot, width: int, scheme: str
) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    goto_ready(page, f"{bundled_server.url}/lessons/what-is-grad")
    model = page.get_by_role("heading", name="Before step 1: the big picture")
    expect(model).to_be_visible()
    expect(page.locator(".step[data-step='1'] .prediction-question")).to_be_visible()
    expect(page.locator(".step[data-step='2']")).to_be_hidden()
    switcher = page.locator("details.mode-switcher")
    expect(switcher.get_by_role("link", name="Flashcards")).to_be_hidden()
    words = page.evaluate(WORDS_BEFORE_THE_FIRST_QUESTION)
    # What the lesson is, its core idea and analogy, then the question: about 300 words, where
    # the deep dive puts over 400 before its first question.
    assert words < 330, words
    shot(f"guided-first-visit-{scheme}-{width}", full_page=False)
    assert not _serious(page)

    # The other ways to study: one Tab from the deep dive's link, opened with Enter.
    page.get_by_role("link", name="Show the whole lesson at once (deep dive)").focus()
    page.keyboard.press("Tab")
    expect(switcher.locator("summary")).to_be_focused()
    page.keyboard.press("Enter")
    expect(switcher.get_by_role("link", name="Flashcards")).to_be_visible()
    page.keyboard.press("Tab")
    expect(switcher.get_by_role("link", name="Deep dive")).to_be_focused()
    shot(f"guided-switcher-open-{scheme}-{width}", full_page=False)
    assert not _serious(page)


def test_the_deep_dive_is_one_click_away_and_much_longer(
    page: Page, bundled_server: LiveServer
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    goto_ready(page, f"{bundled_server.url}/lessons/what-is-grad")
    guided = (page.evaluate(WORDS_BEFORE_THE_FIRST_QUESTION), page.evaluate(HEIGHT))
    page.get_by_role("link", name="Show the whole lesson at once (deep dive)").click()
    expect(page.get_by_role("navigation", name="On this page")).to_be_visible()
    wait_ready(page)
    deep = (page.evaluate(WORDS_BEFORE_THE_FIRST_QUESTION), page.evaluate(HEIGHT))
    assert guided[0] < deep[0] and 2 * guided[1] < deep[1], (guided, deep)
    # The deep dive page remembered itself: the lesson's own address opens it from now on.
    page.goto(f"{bundled_server.url}/lessons/what-is-grad")
    expect(page.get_by_role("navigation", name="On this page")).to_be_visible()
