"""The typed value after a reveal asks a variant: the instance's code and numbers are drawn
under the step's code at once, checked against that instance's answer, and drawn the same by
the server after a reload."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from app.lessons.loader import load_catalog
from app.lessons.variants import instances
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_disclosure import FORM_MARKUP
from tests.live import LiveServer

VARIANT_LESSONS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"
STEP = load_catalog([VARIANT_LESSONS]).lessons[0].steps[0]


@pytest.fixture(scope="module")
def variant_server() -> Iterator[LiveServer]:
    live = LiveServer(VARIANT_LESSONS)
    yield live
    live.stop()


@pytest.mark.parametrize(
    ("width", "scheme"), [(1280, "light"), (390, "dark"), (390, "light"), (1280, "dark")]
)
def test_the_typed_value_after_the_reveal_shows_the_variants_code_and_numbers(
    page: Page, variant_server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    page.goto(f"{variant_server.url}/lessons/other-numbers")
    step = page.locator(".step[data-step='1']")
    form = step.locator("form.value-prediction")
    expect(form).to_have_count(0)
    step.get_by_label("Fairly sure").check()
    step.get_by_role("button", name="tensor(6.)", exact=True).click()
    expect(form).to_be_visible()
    code = form.locator(".value-code")
    expect(form.locator(".value-variant-lead")).to_have_text("The same idea with other numbers:")
    shown = code.inner_text()
    (instance,) = [i for i in instances(STEP) if i.code.strip() == shown.strip()]
    assert "tensor(3.0" not in shown  # not the step's own code, whose answer was just shown
    drawn_here = form.evaluate(FORM_MARKUP)

    field = step.get_by_role("textbox", name="Your turn: Type x.grad.")
    field.fill("6")  # the number the reveal showed: wrong on other numbers
    field.press("Enter")
    feedback = form.locator(".value-feedback")
    expect(feedback).to_contain_text("Not yet.")
    field.fill(str(instance.misconceptions[0].value))
    field.press("Enter")
    x = shown.split("tensor(")[1].split(",")[0]
    if instance.misconceptions[0].value == -instance.grads["x"]:  # x = -2: y is the turned sign
        expect(feedback).to_contain_text("the sign is not")
    else:
        expect(feedback).to_contain_text(f"That is the value of y, {x} · {x}.")
    field.fill(str(instance.grads["x"]))
    field.press("Enter")
    expect(feedback).to_contain_text("Right.")
    step.screenshot(path=str(SCREENSHOTS / f"variant-value-{width}-{scheme}.png"))
    # The variant's form and code (the lesson page's own editors are tested elsewhere).
    found = [
        (v["id"], target)
        for v in Axe().run(page).response["violations"]
        for node in v["nodes"]
        if "value" in (target := str(node["target"]))
    ]
    assert not found, found

    page.reload()  # a committed step: the server draws the same form, the same instance
    expect(form).to_have_count(1)
    expect(form.locator(".value-feedback")).to_contain_text("Correct.")
    expect(form.locator(".value-feedback")).to_have_attribute("aria-live", "polite")  # restored
    assert code.inner_text().strip() == shown.strip()
    assert form.evaluate(FORM_MARKUP) == drawn_here
