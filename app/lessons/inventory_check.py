"""`gradlab check` for the concept inventory: every item tells the truth, and none repeats an
example a lesson showed.

Truth, as for a step: each item's snippet runs in the real sandbox and must print exactly its
declared output and raise exactly its declared error (`app.lessons.behaviour.snippet_problems`,
the checker's own comparison). Then the prediction's answer must be what the run did: the
printed output (white space aside, as torch pads what it prints) or, for a snippet that raises,
a choice that names the error's type; no wrong choice may be what the run printed.

Not a memory test: the post-test must measure understanding, so an item may not be a lesson's
example asked again. An item repeats an example when its code is the same as the code of a
lesson's step, myth demo or pitfall (white space folded), or when it does the same operations
on the same numbers: the same set of numeric literals (signs dropped, 2 and 2.0 alike) and the
same set of operations (the calls it makes, `torch.tensor`, `.backward`, `print`..., and its
arithmetic operators), with at least one number.

Pattern lints: at least MIN_CONCEPTS concepts and MIN_PER_FORM items per concept in each form;
every item of a concept offers as many choices; no item uses a private attribute (`_version`);
no concept's summary (what a learner reads after a test) holds one of its items' answers;
every wrong choice has a `why` and states the belief behind it (`misconception`; the right
choice has none: app/lessons/lint_beliefs.py); no position among the choices, and not "the
longest choice", holds the answer in more than half the items.
"""

from __future__ import annotations

import ast
import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator

from app.lessons.behaviour import snippet_problems
from app.lessons.format import Lesson
from app.lessons.inventory import FORMS, INVENTORY_FILE, Inventory, Item
from app.lessons.lint import Finding
from app.lessons.lint_beliefs import belief_problems, right_choice_problems
from app.lessons.lint_text import plain
from app.sandbox.result import RunResult

MIN_CONCEPTS = 10
MIN_PER_FORM = 2
# No position (nor "the longest choice") may hold the answer in more than this share of items.
PATTERN_SHARE = 0.5
WHERE = INVENTORY_FILE

ExampleKey = tuple[frozenset[float], frozenset[str]]
Failure = Finding  # as the lessons' checker reports: file, where, problem
Runner = Callable[[str], Awaitable[RunResult]]


def _squeezed(text: str) -> str:
    return "".join(plain(text).split())


def answer_problems(item: Item, result: RunResult) -> list[str]:
    """How the item's answer (or a wrong choice) disagrees with what the run did."""
    prediction = item.prediction
    if result.error is not None:
        if result.error.type not in prediction.answer:
            return [
                f"the code raises {result.error.type}, but the answer {prediction.answer!r} "
                "does not say so"
            ]
        return []
    printed = "".join(result.stdout.split())
    problems = []
    if _squeezed(prediction.answer) != printed:
        problems.append(
            f"the answer {prediction.answer!r} is not what the code prints: "
            f"{result.stdout.strip()!r}"
        )
    problems += [
        f"the wrong choice {choice.text!r} is what the code prints"
        for choice in prediction.choices
        if choice.text != prediction.answer and _squeezed(choice.text) == printed
    ]
    return problems


async def inventory_failures(inventory: Inventory, run: Runner) -> list[Failure]:
    """Run every item and compare the run with its snippet's claims and its answer."""
    results = await asyncio.gather(*(run(item.snippet.code) for item in inventory.items))
    failures = []
    for item, result in zip(inventory.items, results, strict=True):
        where = f"item {item.id} (form {item.form})"
        problems = snippet_problems(item.snippet, result)
        if not problems:  # a run that already contradicts the snippet says it all
            problems = answer_problems(item, result)
        failures += [Failure(WHERE, where, problem) for problem in problems]
    return failures


# --- not a lesson's example asked again -----------------------------------------------------------
def _call_name(node: ast.expr) -> str:
    """`torch.autograd.grad` for a call on the torch module, `.backward` for a method."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        parts = [node.attr]
        base: ast.expr = node.value
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id == "torch":
            return ".".join(["torch", *reversed(parts)])
        return "." + node.attr
    return "?"


def example_key(code: str) -> ExampleKey | None:
    """The numbers a snippet uses and the operations it does (None when it does not parse)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    numbers: set[float] = set()
    operations: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            value: float = node.value  # type: ignore[assignment]  # an int or float, just checked
            numbers.add(round(abs(float(value)), 6))
        elif isinstance(node, ast.Call):
            operations.add(_call_name(node.func))
        elif isinstance(node, ast.BinOp | ast.AugAssign):
            operations.add(type(node.op).__name__)
    return frozenset(numbers), frozenset(operations)


def lesson_examples(lessons: Iterable[Lesson]) -> Iterator[tuple[str, str]]:
    """(where, code) of every example a lesson shows: steps, myth demos, pitfalls, and each
    instance of a step's variants (review and practice show those)."""
    for lesson in lessons:
        for label, snippet in lesson.snippets():
            yield f"{lesson.slug} {label}", snippet.code
        for number, step in enumerate(lesson.steps, start=1):
            if step.variants is not None:
                for index in range(len(step.variants.instances)):
                    code = step.variants.code_of(index)
                    yield f"{lesson.slug} step {number} variant {index + 1}", code


def repeated_examples(inventory: Inventory, lessons: Iterable[Lesson]) -> list[Failure]:
    examples = list(lesson_examples(lessons))
    by_code = {" ".join(code.split()): where for where, code in examples}
    by_key: dict[ExampleKey, str] = {}
    for where, code in examples:
        key = example_key(code)
        if key is not None and key[0]:
            by_key.setdefault(key, where)
    failures = []
    for item in inventory.items:
        code = item.snippet.code
        same = by_code.get(" ".join(code.split()))
        key = example_key(code)
        reason = "the same code"
        if same is None and key is not None:
            same, reason = by_key.get(key), "the same operations on the same numbers"
        if same is not None:
            failures.append(
                Failure(
                    WHERE,
                    f"item {item.id} (form {item.form})",
                    f"repeats a lesson's example ({reason} as {same}): the post-test would "
                    "measure memory; change the example",
                )
            )
    return failures


# --- the inventory's shape and patterns -----------------------------------------------------------
def inventory_lints(inventory: Inventory) -> list[Failure]:
    failures = []
    if len(inventory.concepts) < MIN_CONCEPTS:
        failures.append(
            Failure(
                WHERE,
                "concepts",
                f"{len(inventory.concepts)} concepts; an inventory asks at least {MIN_CONCEPTS}",
            )
        )
    for concept in inventory.concepts:
        for form in FORMS:
            count = len(inventory.asking(concept.id, form))
            if count < MIN_PER_FORM:
                failures.append(
                    Failure(
                        WHERE,
                        f"concept {concept.id}",
                        f"{count} item(s) in form {form}; at least {MIN_PER_FORM} per form",
                    )
                )
    for item in inventory.items:
        failures += [
            Failure(WHERE, f"item {item.id}", f"the wrong choice {c.text!r} has no `why`")
            for c in item.prediction.choices
            if c.text != item.prediction.answer and c.why is None
        ]
        failures += [
            Failure(WHERE, f"item {item.id}", problem)
            for problem in [
                *belief_problems(item.prediction),
                *right_choice_problems(item.prediction),
            ]
        ]
        failures += [
            Failure(WHERE, f"item {item.id}", f"uses the private `{name}`: ask about public API")
            for name in private_names(item.snippet.code)
        ]
    failures += list(_summaries_with_a_key(inventory))
    return failures + list(_unequal_choices(inventory)) + list(_answer_patterns(inventory))


def _summaries_with_a_key(inventory: Inventory) -> Iterator[Failure]:
    """A concept's summary is what a learner reads after a test instead of the answers: it may
    not hold an item's answer (one longer than a word: `None` is plain prose)."""
    for concept in inventory.concepts:
        summary = _squeezed(concept.summary)
        for item in inventory.items:
            answer = item.prediction.answer
            telling = len(answer.split()) > 1 or "(" in answer
            if item.concept == concept.id and telling and _squeezed(answer) in summary:
                yield Failure(
                    WHERE,
                    f"concept {concept.id}",
                    f"its summary gives away the answer of {item.id} ({answer!r})",
                )


def private_names(code: str) -> list[str]:
    """Attributes whose name starts with one underscore (`t._version`): torch's private API,
    which an item may not lean on (dunders such as `__init__` are not private)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    return sorted(
        {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        }
    )


def _unequal_choices(inventory: Inventory) -> Iterator[Failure]:
    """Parallel forms: every item of a concept offers as many choices (a 3-choice item is
    easier to guess than its 4-choice twin)."""
    for concept in inventory.concepts:
        counts = {
            item.id: len(item.prediction.choices)
            for form in FORMS
            for item in inventory.asking(concept.id, form)
        }
        if len(set(counts.values())) > 1:
            shown = ", ".join(f"{item} {n}" for item, n in counts.items())
            yield Failure(
                WHERE, f"concept {concept.id}", f"items offer unequal numbers of choices: {shown}"
            )


def _answer_patterns(inventory: Inventory) -> Iterator[Failure]:
    total = len(inventory.items)
    positions = Counter(
        item.prediction.texts.index(item.prediction.answer) for item in inventory.items
    )
    longest = sum(
        1
        for item in inventory.items
        if len(item.prediction.answer)
        > max(len(t) for t in item.prediction.texts if t != item.prediction.answer)
    )
    for position, count in sorted(positions.items()):
        if count > PATTERN_SHARE * total:
            yield Failure(
                WHERE, "items", f"choice {position + 1} is the answer in {count} of {total} items"
            )
    if longest > PATTERN_SHARE * total:
        yield Failure(
            WHERE, "items", f"the longest choice is the answer in {longest} of {total} items"
        )


def summary(inventory: Inventory) -> list[str]:
    """What `gradlab check` prints about the inventory once it is true."""
    lines = [f"inventory: {len(inventory.concepts)} concepts"]
    for concept in inventory.concepts:
        counts = ", ".join(f"{f} {len(inventory.asking(concept.id, f))}" for f in FORMS)
        lines.append(f"  {concept.id}: {counts} (taught in {', '.join(concept.lessons)})")
    per_form = ", ".join(f"form {f}: {len(inventory.form(f))} items" for f in FORMS)
    lines.append(f"inventory: {per_form}; no item repeats a lesson's example")
    return lines


async def check_inventory(
    inventory: Inventory, lessons: Iterable[Lesson], run: Runner
) -> list[Failure]:
    """Everything `gradlab check` proves about the inventory."""
    failures = inventory_lints(inventory) + repeated_examples(inventory, lessons)
    return failures + await inventory_failures(inventory, run)
