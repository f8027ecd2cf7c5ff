"""The .grad inspector in Chromium: its `.grad` column is whole at desktop and phone width, its
scrolling region is reachable by keyboard, and each `None` is explained by what really happened."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS, LiveServer
from tests.e2e.test_lesson_pages import replace_code

AFTER_ZERO_GRAD = (
    "import torch\n"
    "w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "unused = torch.tensor([3.0, 4.0, 5.0, 6.0, 7.0, 8.0], requires_grad=True)\n"
    "opt = torch.optim.SGD([w, unused], lr=0.1)\n"
    "loss = (w * w).sum()\n"
    "loss.backward()\n"
    "opt.step()\n"
    "opt.zero_grad()\n"
    "kept = torch.tensor([0.123456, 1.234567, 2.345678, 3.456789], requires_grad=True)\n"
    "(kept * 3).sum().backward()\n"
    "plain = torch.tensor(1.0)\n"
    "print(w.grad)\n"
)


def _row(page: Page, name: str):  # type: ignore[no-untyped-def]
    return page.locator(".inspector-table tbody tr", has=page.locator(f"th code:text-is('{name}')"))


def test_a_none_is_explained_by_what_happened(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", AFTER_ZERO_GRAD)
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .run-stdout")).to_have_text("None\n")
    expect(_row(page, "w").locator(".grad-none-why")).to_have_text(
        "a backward() filled it, then it was cleared (opt.zero_grad() or .grad = None)"
    )
    expect(_row(page, "unused").locator(".grad-none-why")).to_contain_text("not through it")
    expect(_row(page, "plain").locator(".grad-none-why")).to_contain_text("requires_grad is False")
    expect(_row(page, "loss").locator(".grad-none-why")).to_contain_text("not a leaf")
    expect(page.locator(".inspector-table thead th").nth(1)).to_have_text(".grad")


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_the_grad_column_is_whole_and_the_table_reachable_by_keyboard(
    page: Page, server: LiveServer, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", AFTER_ZERO_GRAD)
    page.get_by_role("button", name="Run").click()
    region = page.locator(".inspector-scroll")
    expect(region).to_be_visible()
    box = region.bounding_box()
    assert box is not None
    cells = page.locator(".inspector-table .inspector-grad")
    assert cells.count() >= 5
    for index in range(cells.count()):  # every .grad cell, None or numbers, inside the view
        cell = cells.nth(index).bounding_box()
        assert cell is not None
        assert box["x"] <= cell["x"] and cell["x"] + cell["width"] <= box["x"] + box["width"] + 1
    header = page.locator(".inspector-table thead th", has_text=".grad").bounding_box()
    assert header is not None and header["x"] + header["width"] <= box["x"] + box["width"] + 1
    expect(_row(page, "kept").locator(".inspector-grad")).to_contain_text("[3., 3., 3., 3.]")
    # The region scrolls sideways by keyboard: Tab reaches it, arrows move it.
    page.locator(".runnable .run-stdout").click()
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('inspector-scroll')"):
            break
    expect(region).to_be_focused()
    if width < 600:
        before = region.evaluate("node => node.scrollLeft")
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "before => document.querySelector('.inspector-scroll').scrollLeft > before", arg=before
        )
    region.screenshot(path=str(SCREENSHOTS / f"inspector-{width}.png"))
