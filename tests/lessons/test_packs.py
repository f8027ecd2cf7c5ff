"""Lesson packs: several folders in GRADLAB_LESSONS_DIR serve and check together."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config.settings import Settings
from app.lessons.loader import LessonError, load_catalog
from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, SandboxHarness, make_settings
from tests.lessons.test_check import check_in_thread


@pytest.fixture
def packs(tmp_path: Path) -> tuple[Path, Path]:
    """first-steps in one pack; second-steps, which requires it, in another."""
    one, two = tmp_path / "core", tmp_path / "extra"
    one.mkdir()
    two.mkdir()
    shutil.copy(FIXTURE_LESSONS / "first-steps.yaml", one)
    shutil.copy(FIXTURE_LESSONS / "second-steps.yaml", two)
    return one, two


def test_the_variable_takes_several_folders(packs: tuple[Path, Path], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    one, two = packs
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", f"{one}{os.pathsep}{two}{os.pathsep}")
    assert Settings().lessons_dir == (one.resolve(), two.resolve())
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", f"{one}{os.pathsep}{one.parent / 'nowhere'}")
    with pytest.raises(ValueError, match="nowhere is not a directory"):
        Settings()


def test_two_packs_serve_together_and_links_cross_them(packs: tuple[Path, Path]) -> None:
    one, two = packs
    # Alone, the second pack's prerequisite does not resolve.
    with pytest.raises(LessonError, match="second-steps: prerequisites: no lesson 'first-steps'"):
        load_catalog(two)
    catalog = load_catalog([one, two])
    assert [lesson.slug for lesson in catalog.lessons] == ["first-steps", "second-steps"]
    assert catalog.paths["second-steps"] == two / "second-steps.yaml"
    with TestClient(create_app(make_settings(lessons_dir=f"{one}{os.pathsep}{two}"))) as client:
        assert [item["slug"] for item in client.get("/api/lessons").json()] == [
            "first-steps",
            "second-steps",
        ]
        page = client.get("/lessons/second-steps")
        assert page.status_code == 200 and "Second steps" in page.text
        assert client.get("/lessons/first-steps").status_code == 200


def test_a_slug_in_two_packs_is_an_error_naming_both_files(packs: tuple[Path, Path]) -> None:
    one, two = packs
    shutil.copy(FIXTURE_LESSONS / "first-steps.yaml", two)
    with pytest.raises(LessonError) as caught:
        load_catalog([one, two])
    message = str(caught.value)
    assert str(one / "first-steps.yaml") in message and str(two / "first-steps.yaml") in message
    assert "'first-steps' is also the slug of" in message
    with pytest.raises(LessonError, match="is also the slug of"):
        create_app(make_settings(lessons_dir=(one, two)))


def test_check_checks_every_pack(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, packs: tuple[Path, Path], capsys
) -> None:
    one, two = packs
    second = two / "second-steps.yaml"
    second.write_text(second.read_text().replace("tensor(6.)", "tensor(7.)"))
    assert check_in_thread(check_sandbox, lessons_dir=f"{one}{os.pathsep}{two}") == 1
    out, err = capsys.readouterr()
    assert "FAIL second-steps: step 1 (Twice): stdout differs" in err
    assert "2 lessons, " in out
