"""axe finds no serious or critical violation on the pages a learner and a teacher meet, at
1280 and 390 px, light and dark: every mode of one lesson, review, progress, the playground, a
share page and a class dashboard with learners, a misconception and a reported problem. One
browser context per (width, scheme) visits them all. Screenshots: the dashboard at 390 px
(light and dark) and a lesson page with its lock icon, drawn as inline SVG."""

from __future__ import annotations

from typing import Any

import httpx
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from app.config.paths import BUNDLED_LESSONS
from app.learning.pages.registry import MODES
from app.lessons.loader import load_catalog
from tests.clock import time_passes
from tests.e2e.conftest import SCREENSHOTS, goto_ready
from tests.live import LiveServer, create_class

SLUG = "what-is-grad"
LESSON = load_catalog(BUNDLED_LESSONS).get(SLUG)
assert LESSON is not None and LESSON.steps[0].prediction is not None
FIRST = LESSON.steps[0].prediction
WRONG = next(text for text in FIRST.texts if text != FIRST.answer)
PREDICTION = f"/api/lessons/{SLUG}/steps/1/prediction"
MATRIX = [(width, scheme) for width in (1280, 390) for scheme in ("light", "dark")]


def _class_with_learners(server: LiveServer) -> str:
    """A class whose learners answered (one wrong while certain) and reported a problem; the
    instructor link."""
    join_link, teach = create_class(server, "Autograd, Thursday")
    join = join_link.split("/join/", 1)[1]
    for n, choice in enumerate((WRONG, WRONG, FIRST.answer)):
        with httpx.Client(base_url=server.url) as learner:
            joined = learner.post(f"/api/join/{join}", json={"display_name": f"Learner {n}"})
            assert joined.status_code == 200
            body = {"choice": choice, "confidence": "certain"}
            assert learner.post(PREDICTION, json=body).status_code == 200
            if n == 0:
                report = {"kind": "prediction", "number": 1, "text": "Two choices look alike"}
                assert learner.post(f"/api/lessons/{SLUG}/report", json=report).status_code == 204
    return teach


def _share(server: LiveServer) -> str:
    with httpx.Client(base_url=server.url) as author:
        code = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n" + (
            "y = (x * x).sum()  # a long line that scrolls sideways on a phone screen\n"
        )
        made = author.post("/api/shares", json={"code": code})
        assert made.status_code == 201, made.text
        url: str = made.json()["url"]
        return url


def _serious(page: Page) -> list[tuple[str, str, list[Any]]]:
    results = Axe().run(page)
    return [
        (page.url, v["id"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def _visit(page: Page, url: str) -> None:
    goto_ready(page, url)


def test_no_serious_violation_at_either_width_in_either_scheme(
    browser: Browser, bundled_server: LiveServer
) -> None:
    base = bundled_server.url
    teach = _class_with_learners(bundled_server)
    share = _share(bundled_server)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found: list[tuple[str, str, list[Any]]] = []
    for width, scheme in MATRIX:
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        # This context's learner misses a question, so review has an item once it is due.
        _visit(page, f"{base}/lessons/{SLUG}")
        found += _serious(page)
        assert page.request.post(
            f"{base}{PREDICTION}", data={"choice": WRONG, "confidence": "fairly_sure"}
        ).ok
        time_passes(bundled_server.database_url)
        for mode in MODES:
            _visit(page, f"{base}/lessons/{SLUG}/{mode.slug}")
            found += _serious(page)
        for path in ("/review", "/progress", "/playground"):
            _visit(page, base + path)
            found += _serious(page)
        _visit(page, share)
        found += _serious(page)
        _visit(page, teach)  # the instructor link opens the dashboard
        expect(page.locator(".item-reports")).to_contain_text("Two choices look alike")
        found += _serious(page)
        if width == 390:
            # Every column of the misconceptions table is on screen: nothing scrolls sideways.
            # (The dashboard's next step comes first, so the table may start below the fold:
            # what matters is that its last column is within the screen's width.)
            weight = page.locator("#misconceptions ~ .table-scroll td[data-label='Weight']")
            box = weight.first.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
            _save(page, f"class-dashboard-390-{scheme}")
        if (width, scheme) == (1280, "light"):
            _visit(page, f"{base}/lessons/{SLUG}/step-by-step")
            expect(page.locator(".sbs-lock svg.icon-lock")).to_have_count(1)
            _visit(page, f"{base}/lessons/{SLUG}/code-lab")  # step 1 is answered, step 2 not
            cell = page.locator("section.runnable[data-locked='true']").first
            cell.scroll_into_view_if_needed()  # a cell mounts its editor when it comes into view
            expect(cell.locator(".run-lock-note svg.icon-lock")).to_be_visible()
            _save(page, "lesson-lock-icon", full_page=False)
        context.close()
        assert not errors, f"JavaScript errors at {width}px, {scheme}: {errors}"
    assert not found, found


def _save(page: Page, name: str, full_page: bool = True) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page)
