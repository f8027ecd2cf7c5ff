"""Modes are a registry: a mode declared here, in a test module alone, appears in every
lesson's switcher and is served."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.learning.mode_pages import ModeRequest
from app.learning.registry import Mode, register, unregister
from app.main import create_app
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
    from app.config import STATIC_DIR, TEMPLATES_DIR
    from app.learning.registry import MODES

    for mode in MODES:
        assert (TEMPLATES_DIR / mode.template).is_file(), mode.slug
        assert mode.script is None or (STATIC_DIR / "js" / mode.script).is_file()
