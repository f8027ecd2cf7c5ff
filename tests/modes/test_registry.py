"""Modes are a registry: a mode declared here, in a test module alone, appears in every
lesson's switcher and is served."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.learning.pages.mode_pages import ModeRequest
from app.learning.pages.registry import Mode, register, unregister
from app.main import create_app
from tests.catalogs import FIXTURES
from tests.conftest import make_settings


def _context(request: ModeRequest) -> dict[str, object]:
    return {"lesson": request.lesson}


@pytest.fixture
def throwaway() -> Iterator[Mode]:
    mode = register(
        Mode(
            "throwaway",
            "Throwaway",
            "A mode that exists only in this test.",
            "error.html",
            _context,
        )
    )
    yield mode
    unregister(mode.slug)


def test_a_mode_declared_alone_is_in_the_switcher_and_served(throwaway: Mode) -> None:
    with TestClient(create_app(make_settings())) as client:
        deep_dive = client.get("/lessons/first-steps").text
        assert '/lessons/first-steps/throwaway"' in deep_dive and "Throwaway" in deep_dive
        page = client.get("/lessons/first-steps/throwaway")
        assert page.status_code == 200
        assert client.post("/api/lessons/first-steps/mode", json={"mode": "throwaway"}).is_success
    with pytest.raises(ValueError, match="already"):
        register(throwaway)


def test_every_mode_names_its_template_and_script() -> None:
    from app.config.paths import STATIC_DIR, TEMPLATES_DIR
    from app.learning.pages.registry import MODES

    for mode in MODES:
        assert (TEMPLATES_DIR / mode.template).is_file(), mode.slug
        assert (STATIC_DIR / "js" / mode.script).is_file(), mode.slug


def test_a_mode_page_loads_the_script_its_mode_declares(throwaway: Mode) -> None:
    from app.learning.pages.registry import MODES

    lesson = FIXTURES.lessons[0]
    with TestClient(create_app(make_settings())) as client:
        for mode in MODES:
            page = client.get(f"/lessons/{lesson.slug}/{mode.slug}").text
            assert page.count(f'/static/js/{mode.script}"') == 1, mode.slug
            assert ("/static/vendor/codemirror.js" in page) == mode.editor, mode.slug
            for kind in mode.asks:  # and its header says what it asks of this lesson
                header = page.split('class="lesson-header"')[1].split("</header>")[0]
                asked = kind.count_in(lesson) > 0
                assert (kind.plural in header) == asked, (mode.slug, kind.name)
