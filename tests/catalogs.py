"""The lesson catalogs, a lesson's API path and a page's text, shared by the tests of the
learning core, the modes and the routes (their clients are fixtures in conftest.py)."""

from __future__ import annotations

import re

from app.config.paths import BUNDLED_LESSONS
from app.lessons.loader import load_catalog
from tests.conftest import FIXTURE_LESSONS

BUNDLED = load_catalog(BUNDLED_LESSONS)
FIXTURES = load_catalog(FIXTURE_LESSONS)
LESSON = "/api/lessons/first-steps"


def page_text(html: str) -> str:
    """A page's text as a reader sees it: tags dropped, white space folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
