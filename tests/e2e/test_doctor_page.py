"""The gradient doctor in the playground, in headless Chromium: a learner pastes a buggy loop,
presses "Check my gradients" from the keyboard, reads the finding, sees its line marked in the
editor and the parameters' norms drawn, follows the lesson link; axe clean at 390 and 1280 px,
light and dark; a finding that names a backward node opens the backward walk at that node."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.catalogs import BUNDLED
from tests.doctor.corpus import HERE
from tests.e2e.conftest import SCREENSHOTS, goto_ready
from tests.e2e.test_lesson_pages import replace_code
from tests.live import LiveServer

DETACHED = (HERE / "buggy" / "detach_hidden.py").read_text()
CORRECT = (HERE / "correct" / "mlp_sgd.py").read_text()
SOFTMAX_NAN = (HERE / "buggy" / "softmax_by_hand.py").read_text()
GRAPH_REUSED = (HERE / "buggy" / "graph_reused.py").read_text()


def no_serious_violations(page: Page) -> None:
    results = Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in serious
    ]


def check_by_keyboard(page: Page) -> None:
    page.get_by_role("button", name="Check my gradients").focus()
    page.keyboard.press("Enter")


@pytest.mark.parametrize(
    ("width", "scheme"), [(w, s) for w in (1280, 390) for s in ("light", "dark")]
)
def test_a_learner_reads_the_finding_sees_the_line_and_follows_the_lesson(
    page: Page, bundled_server: LiveServer, width: int, scheme: str
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    goto_ready(page, f"{bundled_server.url}/playground")
    replace_code(page, ".runnable", DETACHED)
    check_by_keyboard(page)
    panel = page.get_by_role("region", name="Gradient check")
    expect(panel.get_by_role("heading", name="Gradient check")).to_be_focused()
    first = panel.locator(".doctor-finding").first
    expect(first).to_contain_text("model.fc1.weight never gets a gradient: .detach() on line 15")
    expect(page.locator(".runnable .cm-error-line")).to_have_text("        h = h.detach()")
    # The run itself, as Run shows it, below the findings.
    expect(page.locator(".runnable .run-stdout")).not_to_be_empty()
    rows = panel.locator(".doctor-parameters tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0).get_by_role("img")).to_have_attribute(
        "aria-label", "No gradient in 20 backward calls"
    )
    expect(rows.nth(2).locator("polyline")).to_have_count(1)
    # The page never scrolls sideways; the table does, reachable by keyboard.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    expect(
        panel.get_by_role("region", name="Parameters and their gradient norms")
    ).to_have_attribute("tabindex", "0")
    no_serious_violations(page)
    panel.get_by_role("link", name="Lesson: Turning gradients off").first.click()
    expect(page).to_have_url(f"{bundled_server.url}/lessons/turning-gradients-off")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Turning gradients off")


def test_correct_code_gets_a_clean_bill(page: Page, bundled_server: LiveServer) -> None:
    goto_ready(page, f"{bundled_server.url}/playground")
    replace_code(page, ".runnable", CORRECT)
    check_by_keyboard(page)
    panel = page.get_by_role("region", name="Gradient check")
    expect(panel.locator(".doctor-summary")).to_have_text("No problem found with the gradients.")
    expect(panel.locator(".doctor-finding")).to_have_count(0)
    expect(panel.locator(".doctor-parameters tbody tr")).to_have_count(4)


def test_the_code_lab_checks_a_cell_and_keeps_a_locked_one_locked(
    page: Page, bundled_server: LiveServer
) -> None:
    slug = "grad-in-training-loops"
    lesson = BUNDLED.get(slug)
    assert lesson is not None and lesson.steps[0].prediction is not None
    committed = page.request.post(  # step 1 answered: its cell opens, the others stay locked
        f"{bundled_server.url}/api/lessons/{slug}/steps/1/prediction",
        data={"choice": lesson.steps[0].prediction.texts[0], "confidence": "guess"},
    )
    assert committed.ok, committed.text()
    goto_ready(page, f"{bundled_server.url}/lessons/{slug}/code-lab")
    unlocked = page.locator("section.runnable[data-locked='false']").first
    unlocked.get_by_role("button", name="Check my gradients").click()
    panel = unlocked.get_by_role("region", name="Gradient check")
    expect(panel.get_by_role("heading", level=3, name="Gradient check")).to_be_focused()
    expect(panel.locator(".doctor-summary")).to_contain_text("found with the gradients")
    locked = page.locator("section.runnable[data-locked='true']").first
    locked.get_by_role("button", name="Check my gradients").click()
    expect(locked.locator(".run-status")).to_have_text("Commit your prediction to run this code.")
    expect(locked.locator(".doctor")).to_be_hidden()
    no_serious_violations(page)


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_a_nan_finding_opens_the_backward_walk_at_its_node(
    page: Page,
    bundled_server: LiveServer,
    shot: Callable[..., Path],
    width: int,
    scheme: str,
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    goto_ready(page, f"{bundled_server.url}/playground")
    replace_code(page, ".runnable", SOFTMAX_NAN)
    check_by_keyboard(page)
    panel = page.get_by_role("region", name="Gradient check")
    finding = panel.locator(".doctor-finding[data-finding='non-finite']")
    expect(finding).to_contain_text("The backward node LogBackward0 is where it first appeared")
    walk = page.locator(".runnable .backward-walk")
    # Before the learner asks, the walk stands at its start.
    expect(walk.locator(".bw-counter")).to_have_text(re.compile(r"^Step 0 of \d+$"))
    button = finding.get_by_role("button", name="Show in the backward walk")
    button.focus()
    finding.screenshot(path=str(SCREENSHOTS / f"doctor-finding-{width}-{scheme}.png"))
    page.keyboard.press("Enter")
    stage = walk.locator(".bw-stage")
    expect(stage).to_be_focused()
    marked = walk.locator(".bw-node[data-finding='true']")
    expect(marked).to_have_count(1)
    expect(marked.locator(".bw-node-label")).to_have_text("LogBackward0")
    expect(marked).to_have_attribute("data-state", "current")
    live = walk.locator(".bw-live")
    expect(live).to_contain_text(
        "The gradient check: the first NaN or infinite gradient was sent by LogBackward0"
    )
    expect(live).to_contain_text("LogBackward0 ran. It received")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(f"doctor-walk-{width}-{scheme}", full_page=False)
    no_serious_violations(page)
    counter = walk.locator(".bw-counter").inner_text()
    # The arrow keys step on from there: the walk is where the keyboard is.
    page.keyboard.press("ArrowRight")
    step = int(counter.split()[1])
    expect(walk.locator(".bw-counter")).to_have_text(re.compile(rf"^Step {step + 1} of "))


def test_a_freed_graph_finding_opens_the_call_that_raised(
    page: Page, bundled_server: LiveServer
) -> None:
    goto_ready(page, f"{bundled_server.url}/playground")
    replace_code(page, ".runnable", GRAPH_REUSED)
    check_by_keyboard(page)
    finding = page.locator(".doctor-finding[data-finding='graph-freed']")
    finding.get_by_role("button", name="Show in the backward walk").click()
    walk = page.locator(".runnable .backward-walk")
    expect(walk.locator(".bw-select")).to_have_value("1")  # the run's second backward call
    expect(walk.locator(".bw-stage")).to_be_focused()
    marked = walk.locator(".bw-node[data-finding='true']")
    expect(marked.locator(".bw-node-label")).to_have_text("AddmmBackward0")
    expect(walk.locator(".bw-live")).to_contain_text(
        "The gradient check: the error was raised by AddmmBackward0"
    )
    expect(walk.locator(".bw-step")).to_be_disabled()  # the call's end: nothing ran after it
    # Run again (without checking): the walk is another run's now, and the finding's button
    # says so instead of opening it at a node of a graph it is not about.
    page.get_by_role("button", name="Run", exact=True).click()
    expect(walk.locator(".bw-node[data-finding='true']")).to_have_count(0)
    button = finding.get_by_role("button", name="Show in the backward walk")
    button.click()
    expect(finding.locator(".doctor-walk")).to_have_text(
        "The backward walk now shows another run: check again"
    )
    expect(walk.locator(".bw-node[data-finding='true']")).to_have_count(0)
    # A finding with no node in the walk has no such button.
    replace_code(page, ".runnable", DETACHED)
    check_by_keyboard(page)
    expect(page.locator(".doctor-finding").first).to_contain_text("never gets a gradient")
    expect(page.get_by_role("button", name="Show in the backward walk")).to_have_count(0)
