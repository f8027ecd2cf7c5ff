"""The inspector names autograd's terms once the path has taught them, in Chromium: lesson 1
shows no is_leaf nor grad_fn column until "Show all columns"; the playground shows them all."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS, LiveServer
from tests.e2e.test_lesson_pages import replace_code

NON_LEAF = (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = x * 3\n"
    "y.sum().backward()\n"
)
HEADERS = ".inspector-table thead th"


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_lesson_one_hides_the_terms_it_has_not_taught(
    page: Page, bundled_server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(f"{bundled_server.url}/lessons/what-is-grad/deep-dive")
    step = page.locator(".step[data-step='1']")
    step.get_by_label("Fairly sure").check()
    step.locator(".choice").first.click()
    expect(step.get_by_role("button", name="Run")).to_be_enabled()
    replace_code(page, ".runnable[data-step='1']", NON_LEAF)
    step.get_by_role("button", name="Run").click()
    inspector = step.locator(".inspector")
    expect(inspector.locator(HEADERS).first).to_be_visible()
    assert "is_leaf" not in inspector.locator(HEADERS).all_text_contents()
    assert "grad_fn" not in inspector.locator(HEADERS).all_text_contents()
    why = inspector.locator("tr", has=page.locator("th code:text-is('y')")).locator(
        ".grad-none-why"
    )
    expect(why).to_have_text(
        "computed from other tensors: autograd keeps .grad only on the tensors you made"
    )
    inspector.screenshot(path=str(SCREENSHOTS / f"inspector-terms-hidden-{scheme}-{width}.png"))

    show = inspector.get_by_role("button", name="Show all columns (is_leaf, grad_fn)")
    show.focus()
    page.keyboard.press("Enter")
    expect(inspector.locator(HEADERS, has_text="is_leaf")).to_be_visible()
    expect(inspector.locator(HEADERS, has_text="grad_fn")).to_have_count(1)
    expect(why).to_have_text("not a leaf: call .retain_grad() before backward()")
    expect(inspector.get_by_role("button", name="Show all columns")).to_have_count(0)
    inspector.screenshot(path=str(SCREENSHOTS / f"inspector-terms-shown-{scheme}-{width}.png"))


def test_the_playground_knows_every_term(page: Page, bundled_server: LiveServer) -> None:
    page.goto(f"{bundled_server.url}/playground")
    replace_code(page, ".runnable", NON_LEAF)
    page.get_by_role("button", name="Run").click()
    expect(page.locator(HEADERS, has_text="is_leaf")).to_be_visible()
    expect(page.locator(HEADERS, has_text="grad_fn")).to_be_visible()
    expect(page.get_by_role("button", name="Show all columns")).to_have_count(0)
