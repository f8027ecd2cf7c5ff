"""Routes parse, call the learning core once, and render: none is longer than 25 lines."""

from __future__ import annotations

import ast

from app.config.paths import PROJECT_ROOT

LIMIT = 25


def test_no_function_in_the_routes_is_longer_than_25_lines() -> None:
    long = []
    for path in sorted((PROJECT_ROOT / "app" / "routes").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                length = (node.end_lineno or node.lineno) - first + 1
                if length > LIMIT:
                    long.append(f"{path.name}:{node.name} ({length} lines)")
    assert not long, long
