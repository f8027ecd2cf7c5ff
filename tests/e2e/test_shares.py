"""Share links in headless Chromium: share from the playground and from a lesson, open the link
in a fresh browser (no cookie), run it and see the `.grad` values, open it in the playground;
screenshots of the share page (desktop, 390 px phone, dark) and axe on it."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import SCREENSHOTS, LiveServer
from tests.e2e.test_lesson_pages import replace_code

pytestmark = pytest.mark.browser

SNIPPET = (
    "import torch\n"
    "w = torch.tensor([1.0, -2.0], requires_grad=True)\n"
    "loss = (w * w * 5).sum()\n"
    "loss.backward()\n"
    "print('shared', w.grad)\n"
)


def no_serious_violations(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in serious
    ]


def share_cell(page: Page, cell: str) -> str:
    """Press the cell's Share button; the link it shows (and says it copied)."""
    page.locator(f"{cell} .btn-share").click()
    expect(page.locator(f"{cell} .share-status")).to_have_text(
        re.compile("Link copied|The link is below")
    )
    link = page.locator(f"{cell} ~ .share-box .share-link, {cell} .share-link").first
    url = link.input_value()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]{16}", url), url
    return url


def open_and_run(browser: Browser, url: str, expected_stdout: str) -> Page:
    """The link in a fresh context: no cookie of the one who shared it."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    expect(page.locator(".shared-code .btn-reset")).to_have_count(0)
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".shared-code .run-stdout")).to_have_text(expected_stdout)
    expect(page.locator(".shared-code .inspector")).to_contain_text("requires_grad")
    assert not errors, errors
    return page


def test_share_from_the_playground_and_open_it_elsewhere(
    page: Page, browser: Browser, server: LiveServer
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", SNIPPET)
    url = share_cell(page, ".runnable")
    expect(page.locator(".runnable .share-status")).to_have_text("Link copied to the clipboard.")
    page.screenshot(path=str(SCREENSHOTS / "share-playground.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SCREENSHOTS / "share-playground-390.png"))
    page.set_viewport_size({"width": 1280, "height": 720})
    assert page.evaluate("navigator.clipboard.readText()") == url

    visitor = open_and_run(browser, url, "shared tensor([ 10., -20.])\n")
    expect(visitor.get_by_role("heading", level=1)).to_have_text("A shared PyTorch snippet")
    grads = visitor.locator(".shared-code .inspector-grad")
    expect(grads.first).to_contain_text("10")
    expect(visitor.locator(".shared-code .graph")).not_to_be_empty()

    visitor.get_by_role("link", name="Open in playground").click()
    expect(visitor).to_have_url(re.compile(r"/playground\?share="))
    editor = visitor.locator(".runnable [aria-label='Code editor']")
    expect(editor).to_contain_text("print('shared', w.grad)")
    replace_code(visitor, ".runnable", SNIPPET.replace("* 5", "* 7"))
    visitor.get_by_role("button", name="Run").click()
    expect(visitor.locator(".runnable .run-stdout")).to_have_text("shared tensor([ 14., -28.])\n")
    visitor.goto(url)  # the share itself never changed
    expect(visitor.locator(".shared-code pre.highlight")).to_contain_text("* 5")
    expect(visitor.locator(".btn-delete-share")).to_have_count(0)  # not theirs

    page.goto(url)  # its author, by cookie, may delete it
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete this share").click()
    expect(page.locator(".share-owner-status")).to_contain_text("Deleted")
    gone = visitor.goto(url)
    assert gone is not None and gone.status == 404
    visitor.context.close()


def test_share_from_a_lesson_links_back_to_it(
    page: Page, browser: Browser, server: LiveServer
) -> None:
    # A browser that refuses the clipboard: the link is shown, selected, to copy by hand.
    page.add_init_script(
        "navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));"
    )
    page.goto(f"{server.url}/lessons/first-steps/deep-dive")
    cell = "#step-1 section.runnable"
    page.locator(f"{cell} .btn-share").click()  # locked until the prediction is committed
    expect(page.locator(f"{cell} .share-status")).to_contain_text("unlocks once you have answered")
    page.locator("#step-1").get_by_label("Fairly sure").check()
    page.locator("#step-1 .choice[data-choice='tensor([4., 6.])']").click()
    expect(page.locator(f"{cell} .btn-run")).to_be_enabled()
    url = share_cell(page, cell)
    expect(page.locator(f"{cell} .share-status")).to_contain_text("The link is below, selected")
    expect(page.locator("#step-1 .share-link")).to_be_focused()
    selected = page.evaluate(
        "() => { const i = document.activeElement; return i.value.slice(i.selectionStart, i.selectionEnd); }"
    )
    assert selected == url
    page.locator("#step-1 section.runnable").screenshot(path=str(SCREENSHOTS / "share-lesson.png"))
    visitor = open_and_run(browser, url, "tensor([4., 6.])\n")
    back = visitor.get_by_role("link", name="First steps with .grad, step 1")
    expect(back).to_have_attribute("href", re.compile(r"/lessons/first-steps#step-1$"))
    visitor.context.close()


def test_the_share_page_looks_right_everywhere(browser: Browser, server: LiveServer) -> None:
    import httpx

    made = httpx.post(
        f"{server.url}/api/shares",
        json={
            "code": SNIPPET + "# </script><img src=x onerror=alert(1)>\n",
            "lesson": "first-steps",
        },
    )
    assert made.status_code == 201
    url = made.json()["url"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, options in (
        ("share-desktop", {"viewport": {"width": 1280, "height": 900}}),
        ("share-phone-390", {"viewport": {"width": 390, "height": 844}}),
        ("share-dark", {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"}),
    ):
        context = browser.new_context(**options)
        page = context.new_page()
        page.goto(url)
        expect(page.locator(".shared-code pre.highlight")).to_contain_text("onerror=alert(1)>")
        assert page.locator("img").count() == 0
        page.get_by_role("button", name="Run").click()
        expect(page.locator(".shared-code .run-stdout")).to_contain_text("shared tensor")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= options["viewport"]["width"], (name, width)  # type: ignore[index]
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
        no_serious_violations(page)
        context.close()
    missing = browser.new_page()
    response = missing.goto(f"{server.url}/s/nothing-here-at-all")
    assert response is not None and response.status == 404
    expect(missing.get_by_role("heading", level=1)).to_have_text("Page not found")
    missing.close()
