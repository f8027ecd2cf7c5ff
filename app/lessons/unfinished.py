"""Find the `TODO` markers a lesson still holds (left by `gradlab new`, or by an author)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.lessons.loader import parse_yaml

TODO = re.compile(r"\bTODO\b")


def _walk(node: Any, path: str) -> Iterator[str]:
    if isinstance(node, str):
        if TODO.search(node):
            yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for number, item in enumerate(node, start=1):
            yield from _walk(item, f"{path}[{number}]")


def unfinished_fields(path: Path) -> list[str]:
    """The field paths (`steps[1].prediction.choices[2].why`, 1-based) holding a `TODO`."""
    return list(_walk(parse_yaml(path.read_text(encoding="utf-8")), ""))
