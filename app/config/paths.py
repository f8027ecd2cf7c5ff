"""Where gradlab's files are: the package, the checkout (or site-packages) that holds it, and the
folders it cannot run without (pages, browser files, bundled lessons and their schema)."""

from __future__ import annotations

import importlib.resources
from pathlib import Path


def _package_dir() -> Path:
    """The `app` package's folder. Jinja, the static files, the lesson loader and the sandbox
    read its files from disk, so it must be a folder, not a zip archive."""
    package = importlib.resources.files("app")
    if not isinstance(package, Path):
        raise RuntimeError(f"gradlab must be installed as files on disk, not in {package}")
    return package.resolve()


PACKAGE_DIR = _package_dir()
# The folder that holds the package: the checkout, or site-packages when installed.
PROJECT_ROOT = PACKAGE_DIR.parent


def _shipped(folder: str, installed: str) -> Path:
    """A folder of the checkout's top level that gradlab cannot run without. A wheel carries it
    inside the package as `installed` (pyproject.toml maps it there), so that an installed
    gradlab finds it from whatever directory it is started; in a checkout, or an editable
    install of one, it is the top-level folder itself."""
    inside = PACKAGE_DIR / installed
    return inside if inside.is_dir() else PROJECT_ROOT / folder


TEMPLATES_DIR = _shipped("templates", "templates")
STATIC_DIR = _shipped("static", "static")
BUNDLED_LESSONS = _shipped("lessons", "bundled_lessons")  # the lessons gradlab comes with
LESSON_SCHEMA = BUNDLED_LESSONS / "lesson.schema.json"  # what `gradlab schema` prints
