"""The backward walk in headless Chromium: a two-call accumulation run stepped by keyboard."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_lesson_pages import replace_code
from tests.live import LiveServer

TWO_CALLS = (
    "import torch\n"
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "for _ in range(2):\n"
    "    loss = (x * x).sum()\n"
    "    loss.backward()\n"
    "print(x.grad)\n"
)


def no_serious_violations(page: Page, context: str | None = None) -> None:
    results = Axe().run(page, context=context)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not serious, [
        (v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in serious
    ]


def run_two_calls(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", TWO_CALLS)
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .run-stdout")).to_have_text("tensor([4., 8.])\n")


def test_step_through_two_accumulating_calls_with_the_keyboard(
    page: Page, server: LiveServer
) -> None:
    run_two_calls(page, server)
    walk = page.locator(".backward-walk")
    expect(walk).to_be_visible()
    picker = walk.get_by_label("Backward call (2 in this run)")
    expect(picker.locator("option")).to_have_text(
        ["1: loss.backward() on line 5", "2: loss.backward() on line 5"]
    )
    grad = walk.locator("tr[data-name='x'] .bw-grad-now")
    live = walk.locator(".bw-live")
    stage = walk.locator(".bw-stage")

    expect(grad).to_have_text("None")
    expect(live).to_contain_text("Before the call: loss starts with gradient 1")
    stage.focus()
    page.keyboard.press("ArrowRight")
    expect(live).to_have_text(
        "Step 1 of 3: SumBackward0 (loss) ran. It received 1. and sent [1., 1.] to MulBackward0."
    )
    expect(walk.locator(".bw-counter")).to_have_text("Step 1 of 3")
    page.keyboard.press("ArrowRight")
    expect(live).to_contain_text("MulBackward0 ran. It received [1., 1.] and sent [1., 2.]")
    expect(grad).to_have_text("None")  # AccumulateGrad has not run yet
    page.keyboard.press("ArrowRight")
    expect(live).to_contain_text("wrote x.grad = [2., 4.]")
    expect(grad).to_have_text("[2., 4.]")
    page.keyboard.press("ArrowLeft")
    expect(grad).to_have_text("None")
    page.keyboard.press("End")
    expect(grad).to_have_text("[2., 4.]")
    expect(live).to_contain_text("The backward call is done.")
    label = walk.locator(".bw-edge-label[data-state='shown']").first
    expect(label).to_have_attribute(
        "aria-label", "Gradient from SumBackward0 (loss) to MulBackward0: [1., 1.]"
    )

    label.focus()
    expect(walk.locator(".bw-detail")).to_have_text(
        "Gradient from SumBackward0 (loss) to MulBackward0: [1., 1.]"
    )

    picker.select_option("1")
    expect(grad).to_have_text("[2., 4.]")  # the second call starts from the first one's sum
    stage.focus()
    page.keyboard.press("End")
    expect(grad).to_have_text("[4., 8.]")
    expect(live).to_contain_text("added it into x.grad: [2., 4.] becomes [4., 8.]")
    page.keyboard.press("Home")
    expect(grad).to_have_text("[2., 4.]")
    no_serious_violations(page)


def test_play_and_buttons(page: Page, server: LiveServer) -> None:
    run_two_calls(page, server)
    walk = page.locator(".backward-walk")
    walk.get_by_role("button", name="Step").click()
    expect(walk.locator(".bw-counter")).to_have_text("Step 1 of 3")
    walk.get_by_role("button", name="Back").click()
    expect(walk.locator(".bw-counter")).to_have_text("Step 0 of 3")
    walk.get_by_role("button", name="Play").click()
    expect(walk.locator(".bw-counter")).to_have_text("Step 3 of 3", timeout=10_000)
    expect(walk.get_by_role("button", name="Play")).to_be_visible()


def test_a_run_without_backward_shows_no_walk(page: Page, server: LiveServer) -> None:
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", "import torch\nprint(torch.ones(2) * 2)\n")
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .run-stdout")).to_have_text("tensor([2., 2.])\n")
    expect(page.locator(".backward-walk")).to_be_hidden()


def test_phone_width_light_and_dark(browser, server: LiveServer) -> None:  # type: ignore[no-untyped-def]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        phone = context.new_page()
        run_two_calls(phone, server)
        walk = phone.locator(".backward-walk")
        walk.locator(".bw-stage").focus()
        phone.keyboard.press("ArrowRight")
        phone.keyboard.press("ArrowRight")
        expect(walk.locator(".bw-counter")).to_have_text("Step 2 of 3")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        walk.scroll_into_view_if_needed()
        suffix = "" if scheme == "light" else "-dark"
        walk.screenshot(path=str(SCREENSHOTS / f"backward-walk-390{suffix}.png"))
        if scheme == "dark":
            # The walk only: at 390 px axe also flags the editor's own scroller (not the walk's).
            no_serious_violations(phone, ".backward-walk")
        context.close()


def test_a_branching_graph_with_named_tensors(page: Page, server: LiveServer, shot) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/playground")
    replace_code(
        page,
        ".runnable",
        "import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "x = torch.tensor([3.0, 4.0])\nb = torch.tensor(0.5, requires_grad=True)\n"
        "z = w * x + b\ny = z.sum()\ny.backward()\n",
    )
    page.get_by_role("button", name="Run").click()
    walk = page.locator(".backward-walk")
    expect(walk.locator(".bw-counter")).to_have_text("Step 0 of 5")
    walk.locator(".bw-stage").focus()
    page.keyboard.press("End")
    expect(walk.locator("tr[data-name='w'] .bw-grad-now")).to_have_text("[3., 4.]")
    expect(walk.locator("tr[data-name='b'] .bw-grad-now")).to_have_text("2.")
    page.keyboard.press("ArrowLeft")
    expect(walk.locator("tr[data-name='w'] .bw-grad-now")).to_have_text("None")
    walk.screenshot(path=str(SCREENSHOTS / "backward-walk-branching.png"))


TWO_HOOKS = (
    "import torch\n"
    "x = torch.tensor(2.0, requires_grad=True)\n"
    "y = x * x\n"
    "y.retain_grad()\n"
    "y.register_hook(lambda g: g + 1)\n"
    "y.register_hook(lambda g: g * 10)\n"
    "def tag(g):\n"
    "    return g\n"
    "tag.__name__ = '<img src=x onerror=\"document.title=1\">' + 'z' * 80\n"
    "x.register_hook(tag)\n"
    "(y * 3).backward()\n"
    "print(y.grad, x.grad)\n"
)


def test_a_hook_that_changes_a_gradient_is_named_with_what_it_did(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.url}/playground")
    replace_code(page, ".runnable", TWO_HOOKS)
    page.get_by_role("button", name="Run").click()
    expect(page.locator(".runnable .run-stdout")).to_have_text("tensor(40.) tensor(160.)\n")
    walk = page.locator(".backward-walk")
    live = walk.locator(".bw-live")
    # The note says at once which hooks changed the gradient into y's node, and how.
    expect(walk.locator(".bw-notes")).to_contain_text(
        "At MulBackward0 (y): Before it ran, the hook <lambda> (line 5) on y changed 3. into 4.; "
        "then the hook <lambda> (line 6) on y changed 4. into 40."
    )
    walk.locator(".bw-stage").focus()
    page.keyboard.press("ArrowRight")
    expect(live).to_contain_text("It received 1. and sent 3. to MulBackward0 (y)")
    page.keyboard.press("ArrowRight")
    expect(live).to_contain_text(
        "MulBackward0 (y) ran. It received 40. and sent 80. + 80. to AccumulateGrad (x). "
        "Before it ran, the hook <lambda> (line 5) on y changed 3. into 4."
    )
    page.keyboard.press("ArrowRight")
    # A hook's name is the snippet's text: shown as text, cut, and never markup.
    expect(live).to_contain_text("Before it ran, the hook <img src=x onerror=")
    expect(live).to_contain_text(" (line 7) on x saw 160. and left it as it was.")
    text = live.text_content() or ""
    assert "z" * 60 not in text and "…" in text
    assert walk.locator("img").count() == 0
    assert page.title() != "1"
