"""The cheat sheet: a lesson on one printable page (rules, the API by example, errors and fixes).

Like every page, the sheet states only what the learner has been shown: the steps they have
answered and the reference once it is open (app/lessons/disclosure.py).

The API list is read from the lesson's own snippets: every torch function and every tensor
attribute or method they use, each with the first line that uses it. Nothing is written twice:
when a lesson changes, its cheat sheet follows.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from app.lessons.disclosure import Disclosure
from app.lessons.format import Snippet, Step
from app.modes.pitfalls import first_change

MAX_API_ENTRIES = 24
# Methods of Python's own containers and numbers: `losses.append(...)` is not PyTorch.
_PYTHON_METHODS = {
    name for kind in (list, dict, str, set, tuple, int, float) for name in dir(kind)
} - {"sort", "real", "imag"}


@dataclass(frozen=True)
class ApiEntry:
    name: str  # "torch.no_grad()", ".backward()", ".grad"
    example: str  # the first line of the lesson's code that uses it
    where: str  # "Step 2: backward() writes the slope into .grad"


@dataclass(frozen=True)
class ErrorFix:
    title: str  # Markdown
    symptom: str  # Markdown: the error it raises, or "no error, but ..."
    wrong_line: str | None
    fixed_line: str
    root_cause: str  # Markdown


@dataclass(frozen=True)
class StepError:
    where: str
    error_type: str
    message: str
    lesson_point: str  # Markdown: the step's concept


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _chain(node: ast.Attribute) -> tuple[str | None, list[str]]:
    """`torch.optim.SGD` -> ("torch", ["optim", "SGD"]); `(x * 2).sum` -> (None, ["sum"])."""
    parts: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        parts.append(current.attr)
        current = current.value
    root = current.id if isinstance(current, ast.Name) else None
    return root, list(reversed(parts))


def _api_names(code: str) -> list[tuple[str, int]]:
    """(name, line) for every torch name and tensor attribute the code uses, in order."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    aliases = _module_aliases(tree)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    found: list[tuple[str, int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue  # each chain once, from its outermost attribute
        root, attrs = _chain(node)
        suffix = "()" if id(node) in called else ""
        if root is not None and root in aliases:
            if aliases[root].startswith("torch"):
                name = ".".join([aliases[root], *attrs]) + suffix
                found.append((name, node.lineno, node.col_offset))
            continue
        for position, attr in enumerate(attrs):
            if attr in _PYTHON_METHODS or attr.startswith("_"):
                continue
            last = position == len(attrs) - 1
            found.append(("." + attr + (suffix if last else ""), node.lineno, node.col_offset))
    return [(name, line) for name, line, _ in sorted(found, key=lambda item: item[1:])]


def _labelled_snippets(shown: Disclosure) -> list[tuple[str, Snippet]]:
    found = [
        (f"Step {n}: {step.title}", step.snippet)
        for n, step in shown.open_steps()
        if step.snippet is not None
    ]
    found += [
        (f"Pitfall {n}, corrected: {pitfall.title}", pitfall.correct)
        for n, pitfall in shown.pitfalls()
    ]
    return found


def rules(shown: Disclosure) -> list[Step]:
    """The steps whose concept and insight the sheet may state: those already answered."""
    return [step for _, step in shown.open_steps()]


def api_entries(shown: Disclosure) -> list[ApiEntry]:
    """Only from code whose outcome the learner has seen: the `where` names its step."""
    entries: dict[str, ApiEntry] = {}
    for where, snippet in _labelled_snippets(shown):
        lines = snippet.code.splitlines()
        for name, line in _api_names(snippet.code):
            if name not in entries and len(entries) < MAX_API_ENTRIES:
                entries[name] = ApiEntry(name, lines[line - 1].strip(), where)
    return list(entries.values())


def error_fixes(shown: Disclosure) -> list[ErrorFix]:
    fixes = []
    for _, pitfall in shown.pitfalls():
        wrong = pitfall.wrong
        if wrong.error is not None:
            symptom = f"`{wrong.error.type}`: …{wrong.error.message_contains}…"
        else:
            symptom = "No error, but the result is wrong."
        change = first_change(pitfall)
        fixes.append(
            ErrorFix(
                pitfall.title, symptom, change.wrong_text, change.correct_text, pitfall.root_cause
            )
        )
    return fixes


def step_errors(shown: Disclosure) -> list[StepError]:
    return [
        StepError(
            f"Step {n}: {step.title}",
            step.snippet.error.type,
            step.snippet.error.message_contains,
            step.concept,
        )
        for n, step in shown.open_steps()
        if step.snippet is not None and step.snippet.error is not None
    ]
