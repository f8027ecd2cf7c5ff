"""Where the backward walk opens: collapsed in lesson steps unless the step asks for it."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.lessons.format import Snippet


def test_a_step_may_ask_for_the_walk_open() -> None:
    assert Snippet(code="print(1)\n").walk is False
    assert Snippet(code="print(1)\n", walk=True).walk is True


def test_lesson_steps_collapse_it_and_the_playground_opens_it(sqlite_client: TestClient) -> None:
    lesson = sqlite_client.get("/lessons/first-steps").text
    walks = re.findall(r'<div class="backward-walk"[^>]*>', lesson)
    assert walks and all('data-open="false"' in tag for tag in walks)
    playground = sqlite_client.get("/playground").text
    (tag,) = re.findall(r'<div class="backward-walk"[^>]*>', playground)
    assert "data-open" not in tag
