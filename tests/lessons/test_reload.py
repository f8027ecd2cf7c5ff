"""Development mode (`gradlab serve --reload`): the catalog follows the files, a broken lesson
shows its error while the rest serves; production stays strict and adds nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.lessons.loader import LessonError, load_catalog
from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, make_settings, wait_until


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for path in FIXTURE_LESSONS.glob("*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _break(path: Path) -> None:
    path.write_text(path.read_text().replace("level: intermediate", "level: wizard", 1))


def test_keep_broken_sets_a_broken_lesson_aside(folder: Path) -> None:
    _break(folder / "second-steps.yaml")
    with pytest.raises(LessonError, match=r"second-steps\.yaml"):
        load_catalog(folder)
    catalog = load_catalog(folder, keep_broken=True)
    # first-steps links to the broken lesson: the link still resolves.
    assert [lesson.slug for lesson in catalog.lessons] == ["first-steps"]
    (broken,) = catalog.broken
    assert broken.slug == "second-steps" and broken.path == folder / "second-steps.yaml"
    assert str(broken.path) in broken.problem and "level" in broken.problem
    assert catalog.get_broken("second-steps") is broken and catalog.get_broken("x") is None


def test_production_adds_no_reload_script_or_route(folder: Path) -> None:
    with TestClient(create_app(make_settings(lessons_dir=folder))) as client:
        assert "dev-reload.js" not in client.get("/").text
        assert "dev-reload.js" not in client.get("/lessons/first-steps").text
        assert client.get("/dev/catalog-version").status_code == 404
    _break(folder / "second-steps.yaml")
    with pytest.raises(LessonError, match=r"second-steps\.yaml"):
        create_app(make_settings(lessons_dir=folder))


def test_reload_follows_the_files_and_shows_a_broken_lesson(folder: Path) -> None:
    app = create_app(make_settings(lessons_dir=folder), reload=True)
    with TestClient(app) as client:
        page = client.get("/lessons/first-steps").text
        assert '/static/js/dev-reload.js" data-version="0"' in page
        assert "<script>" not in page  # nothing inline: it must run under a strict CSP
        assert client.get("/dev/catalog-version").json() == {"version": 0}

        lesson = folder / "first-steps.yaml"
        lesson.write_text(lesson.read_text().replace("First steps with .grad", "Edited steps"))
        assert wait_until(lambda: client.get("/dev/catalog-version").json()["version"] >= 1)
        assert "Edited steps" in client.get("/lessons/first-steps").text

        _break(folder / "second-steps.yaml")
        assert wait_until(lambda: "does not load" in client.get("/lessons/second-steps").text)
        page = client.get("/lessons/second-steps").text
        assert str(folder / "second-steps.yaml") in page and "level" in page
        assert "Input should be" in page
        catalog = client.get("/")
        assert catalog.status_code == 200
        assert "Edited steps" in catalog.text and "1 lesson does not load" in catalog.text
        assert client.get("/lessons/first-steps").status_code == 200

        # A new file joins, a removed one leaves.
        shutil.copy(FIXTURE_LESSONS / "second-steps.yaml", folder / "second-steps.yaml")
        assert wait_until(lambda: "Second steps" in client.get("/lessons/second-steps").text)
        assert "does not load" not in client.get("/").text
        (folder / "second-steps.yaml").unlink()
        assert wait_until(lambda: "does not load" in client.get("/").text)  # first-steps' next
