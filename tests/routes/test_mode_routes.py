"""The mode pages over HTTP: every mode renders for every lesson, the switcher, the
remembered mode, and no answer in a page before the learner answers."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.learning.pages.registry import MODES
from tests.catalogs import BUNDLED, LESSON, page_text

# --- every mode renders for every lesson -----------------------------------------------------


@pytest.mark.parametrize("mode", [mode.slug for mode in MODES])
@pytest.mark.parametrize("slug", [lesson.slug for lesson in BUNDLED.lessons])
def test_every_mode_renders_for_every_bundled_lesson(
    bundled: TestClient, slug: str, mode: str
) -> None:
    page = bundled.get(f"/lessons/{slug}/{mode}")
    assert page.status_code == 200, page.text[:500]
    assert 'class="mode-switcher"' in page.text
    assert re.search(rf'href="[^"]*/lessons/{slug}/{mode}" [^>]*aria-current="page"', page.text)
    assert "Traceback" not in page.text


@pytest.mark.parametrize("mode", [mode.slug for mode in MODES])
def test_modes_render_for_a_lesson_without_myths_or_pitfalls(client: TestClient, mode: str) -> None:
    assert client.get(f"/lessons/second-steps/{mode}").status_code == 200


def test_an_unknown_mode_is_the_friendly_404(bundled: TestClient) -> None:
    page = bundled.get("/lessons/what-is-grad/speed-reading")
    assert page.status_code == 404
    assert "Page not found" in page.text and "step-by-step" in page.text
    assert bundled.get("/lessons/nope/flashcards").status_code == 404


def test_the_switcher_links_all_nine_modes_from_the_deep_dive(bundled: TestClient) -> None:
    page = bundled.get("/lessons/what-is-grad").text
    for mode in MODES:
        assert f'/lessons/what-is-grad/{mode.slug}"' in page
    assert len(MODES) == 9


def test_the_last_mode_is_remembered_per_lesson(client: TestClient) -> None:
    assert "last used" not in client.get("/lessons/first-steps").text
    client.get("/lessons/first-steps/flashcards")  # a page view writes nothing: the page posts
    assert "last used" not in client.get("/lessons/first-steps").text
    client.post(f"{LESSON}/mode", json={"mode": "flashcards"})
    page = client.get("/lessons/first-steps").text
    assert re.search(
        r'/lessons/first-steps/flashcards"[^>]*>Flashcards<span class="mode-last">', page
    )
    assert "last used" not in client.get("/lessons/second-steps").text  # per lesson
    client.post(f"{LESSON}/mode", json={"mode": "cheat-sheet"})
    assert client.post(f"{LESSON}/mode", json={"mode": "nope"}).status_code == 404
    assert re.search(
        r">Cheat sheet<span class=\"mode-last\">", client.get("/lessons/first-steps").text
    )
    progress = client.get("/progress").text
    assert "last in Cheat sheet" in progress


# --- answers are never in a page before the learner answers ----------------------------------


def test_mode_pages_keep_the_answers_on_the_server(bundled: TestClient) -> None:
    lesson = BUNDLED.get("what-is-grad")
    assert lesson is not None
    pages = {
        mode.slug: page_text(bundled.get(f"/lessons/what-is-grad/{mode.slug}").text)
        for mode in MODES
    }
    for step in lesson.steps:
        asked = step.prediction or step.ordering  # a choice, or lines to put in order
        assert asked is not None
        explanation = page_text(str(asked.explanation)).split(".")[0]
        for mode in ("step-by-step", "code-lab", "predict-the-gradient", "quick-read"):
            assert explanation not in pages[mode]
    for myth in lesson.myths:
        assert myth.reality.split(".")[0] not in pages["myth-busters"]
        assert myth.demo is None or myth.demo.code not in pages["code-lab"]  # not answered yet
    for number, step in enumerate(lesson.steps, start=1):
        assert f"{step.insight[:40]}" not in pages["flashcards"], number
    for pitfall in lesson.pitfalls:
        assert (
            pitfall.correct.code.strip()
            not in bundled.get("/lessons/what-is-grad/pitfall-fixer").text
        )
        assert pitfall.root_cause.split(".")[0] not in pages["pitfall-fixer"]
