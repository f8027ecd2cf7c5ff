"""A step's questions are read through their declaration (`Step.questions()` and what each
`Question` declares), not field by field: outside the lesson format (app/lessons/format*.py)
and the kinds (app/learning/kinds/), code that reads a step question's field by name
(`step.ordering`, `raw["prediction"]`, `getattr(step, "value_prediction")`, `.get(...)`)
fails here, but for the modules of `ALLOWED`, each with why it still names one. The reads are
found in the syntax tree, so a comment or a docstring naming a field is no read."""

from __future__ import annotations

import ast
from pathlib import Path

from app.config.paths import PROJECT_ROOT
from app.lessons.format import Step

APP = PROJECT_ROOT / "app"
FIELDS = frozenset(Step.QUESTIONS)

# Where the format's fields are declared, and the kinds that declare what reads them.
OWNERS = ("app/lessons/format*.py", "app/learning/kinds/*.py")

# Modules that still name a field today, and why. Shorten it by moving what the module
# reads into the declaration (format_questions.Question, kinds/kind.QuestionKind).
ALLOWED: dict[str, str] = {
    # The grader's entry points and the saved value's restoring, which the kinds' step sides
    # (kinds/) call: each grades or restores one kind's own fields.
    "app/learning/answers/grader.py": "grades a choice, a typed value and an order, each its own way",
    "app/learning/pages/lesson_page.py": "restores a choice, a typed value and an order",
    "app/learning/practice/recall.py": "asks a choice again on a variant instance",
    "app/modes/drills.py": "a drill is made from a step's typed value",
    # The lesson tools: each checks what one kind's own fields say.
    "app/lessons/check.py": "runs a choice's `because` and checks a typed value",
    "app/lessons/lint.py": "lints a choice's and a typed value's own wording",
    "app/lessons/lint_disclosure.py": "matches a choice's answer and a typed value's numbers",
    "app/lessons/lint_duplicates.py": "compares choice questions across lessons",
    "app/lessons/lint_examples.py": "reads a choice's and a typed value's numbers",
    "app/lessons/lint_variants.py": "checks the variant rules of a choice and a typed value",
    "app/lessons/variants.py": "makes a choice's, a typed value's and an order's instances",
    "app/lessons/variant_runs.py": "runs a choice's and an order's instances",
    "app/lessons/update.py": "rewrites a choice's answer and a typed value from a run",
    "app/lessons/prose_check.py": "names the choice a prose number belongs to",
    # Not a step's question: the same word for something else.
    "app/lessons/inventory.py": "an inventory item's own `prediction`, not a step's",
    "app/lessons/inventory_check.py": "an inventory item's own `prediction`, not a step's",
    "app/learning/inventory/inventory_tests.py": "an inventory item's own `prediction`, not a step's",
    "app/learning/inventory/inventory_gain.py": "an inventory item's own `prediction`, not a step's",
}


def _named(node: ast.expr) -> str | None:
    """The field a string constant names, if it is one of the questions'."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FIELDS:
        return node.value
    return None


def _called_with(call: ast.Call) -> str | None:
    """The field `getattr(x, "field")` (hasattr, setattr) or `x.get("field")` (pop,
    setdefault) names."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr", "setattr"):
        return _named(call.args[1]) if len(call.args) >= 2 else None
    if isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault"):
        return _named(call.args[0]) if call.args else None
    return None


def field_reads(source: str) -> list[tuple[int, str]]:
    """(line, field) for each read of a step question's field by name in `source`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        name: str | None = None
        if isinstance(node, ast.Attribute) and node.attr in FIELDS:
            name = node.attr
        elif isinstance(node, ast.Subscript):
            name = _named(node.slice)
        elif isinstance(node, ast.Call):
            name = _called_with(node)
        if name is not None:
            found.append((getattr(node, "lineno", 0), name))
    return found


def _owned(relative: str) -> bool:
    return any(Path(relative).match(pattern) for pattern in OWNERS)


def readers(root: Path, allowed: dict[str, str]) -> list[str]:
    """Every read by name under `root`/app outside the owners and `allowed`, as path:line."""
    found = []
    for path in sorted((root / "app").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if _owned(relative) or relative in allowed:
            continue
        found += [f"{relative}:{line} .{name}" for line, name in field_reads(path.read_text())]
    return found


def test_no_module_outside_the_declarations_reads_a_question_field_by_name() -> None:
    assert readers(PROJECT_ROOT, ALLOWED) == [], (
        "loop over Step.questions() and read what each Question declares (or what its kind "
        "declares in app/learning/kinds/); if a module really must name a field, add it to "
        "ALLOWED with why"
    )


def test_every_allowed_module_still_reads_a_field() -> None:
    """A module converted to the declaration leaves the list, so that it stays short."""
    for relative in ALLOWED:
        path = PROJECT_ROOT / relative
        assert path.is_file(), f"{relative} is gone: take it out of ALLOWED"
        assert field_reads(path.read_text()), f"{relative} reads no field: take it out of ALLOWED"


def test_the_converted_readers_stay_converted() -> None:
    """The readers that loop over the declaration are not allowed to name a field again."""
    converted = [
        "app/lessons/lint_minutes.py",
        "app/lessons/lint_visible.py",
        "app/lessons/disclosure.py",
        "app/lessons/public.py",
        "app/learning/classes/first_attempts.py",
    ]
    for relative in converted:
        assert relative not in ALLOWED
        assert field_reads((PROJECT_ROOT / relative).read_text()) == [], relative


def test_a_planted_read_fails_the_test(tmp_path: Path) -> None:
    planted = tmp_path / "app" / "learning" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        '"""Names .ordering in a docstring, which is no read."""\n'
        "def order_of(step, raw):\n"
        "    # step.prediction in a comment is no read either\n"
        "    lines = step.ordering.lines\n"
        '    asked = raw["value_prediction"]\n'
        '    return lines, asked, getattr(step, "prediction"), raw.get("ordering")\n'
    )
    owner = tmp_path / "app" / "lessons" / "format_planted.py"
    owner.parent.mkdir(parents=True)
    owner.write_text("def own(step):\n    return step.prediction\n")
    expected = [
        "app/learning/planted.py:4 .ordering",
        "app/learning/planted.py:5 .value_prediction",
        "app/learning/planted.py:6 .ordering",
        "app/learning/planted.py:6 .prediction",
    ]
    assert sorted(readers(tmp_path, {})) == expected
    assert readers(tmp_path, {"app/learning/planted.py": "planted"}) == []
