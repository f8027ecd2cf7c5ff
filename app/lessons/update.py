"""`gradlab check --update`: write what the snippets really do into the lesson files.

Every snippet runs in the sandbox; its `output`, the `grads` it already names and its `error`
(type and a stable fragment of the message) are written back with a round-trip YAML library,
so the author's comments, key order, quoting and block style stay. A step's variant instances
are run and written too (app/lessons/variant_update.py). Prose, predictions and
answers are never touched: where a new output contradicts a prediction's answer, or a run
contradicts a value prediction, it is reported for the author to decide.

`grads` lists only the tensors the author chose: the update fills the value of every name the
snippet lists (write `w:` with no value to ask for a new one) and never adds a name itself.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from app.errors import SandboxUnavailable
from app.lessons.check import Failure, Runner, load_selected, with_sandbox
from app.lessons.format import Lesson, Snippet, VariantInstance
from app.lessons.loader import LessonError, parse_yaml
from app.lessons.numeric import compare
from app.lessons.variant_runs import run_instances
from app.lessons.variant_update import write_instances
from app.lessons.yaml_edit import (
    dump,
    error_node,
    grad_node,
    insert_after,
    round_trip_yaml,
    set_text,
    stable_fragment,
    text_node,
    without_null_spelling,
)
from app.sandbox.result import ErrorInfo, RunResult, TensorInfo

Keys = tuple[str | int, ...]


@dataclass(frozen=True)
class Place:
    """A snippet, where it stands in the file (`keys`) and in words (`label`)."""

    keys: Keys
    label: str
    snippet: Snippet


def snippet_places(lesson: Lesson) -> list[Place]:
    places: list[Place] = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.snippet is not None:
            places.append(
                Place(
                    ("steps", number - 1, "snippet"), f"step {number} ({step.title})", step.snippet
                )
            )
    for number, myth in enumerate(lesson.myths, start=1):
        if myth.demo is not None:
            places.append(Place(("myths", number - 1, "demo"), f"myth {number} demo", myth.demo))
        for form_number, form in enumerate(myth.forms, start=1):
            places.append(
                Place(
                    ("myths", number - 1, "forms", form_number - 1, "demo"),
                    f"myth {number} form {form_number} demo",
                    form.demo,
                )
            )
    for number, pitfall in enumerate(lesson.pitfalls, start=1):
        for side in ("wrong", "correct"):
            snippet: Snippet = getattr(pitfall, side)
            places.append(
                Place(("pitfalls", number - 1, side), f"pitfall {number} {side} code", snippet)
            )
    return places


@dataclass
class _Edit:
    """Changes to one snippet's mapping, and what the author must look at."""

    node: CommentedMap
    place: Place
    slug: str
    reports: list[Failure] = field(default_factory=list)

    def report(self, problem: str, where: str | None = None) -> None:
        self.reports.append(Failure(self.slug, where or self.place.label, problem))

    def apply(self, result: RunResult) -> None:
        if result.status in ("timeout", "memory", "killed"):
            self.report(f"the run ended with status {result.status!r}: nothing written")
            return
        if result.truncated:
            self.report("the run printed more than the sandbox keeps: nothing written")
            return
        if result.stdout != self.place.snippet.output:
            if "output" in self.node:
                set_text(self.node, "output", result.stdout)
            else:
                insert_after(self.node, ["code"], "output", text_node(result.stdout))
        self._error(result.error)
        self._grads({tensor.name: tensor for tensor in result.tensors})

    def _error(self, error: ErrorInfo | None) -> None:
        stated = self.place.snippet.error
        if error is None:
            if stated is not None:
                del self.node["error"]
            return
        if (
            stated is not None
            and stated.type.rsplit(".", 1)[-1] == error.type
            and stated.message_contains in error.message
        ):
            return
        fragment = stable_fragment(error.message)
        if not fragment:
            self.report(f"raised {error.type} with no usable message: write `error` by hand")
            return
        if "error" in self.node and isinstance(self.node["error"], CommentedMap):
            self.node["error"]["type"] = error.type
            self.node["error"]["message_contains"] = DoubleQuotedScalarString(fragment)
        else:
            insert_after(self.node, ["output", "code"], "error", error_node(error.type, fragment))

    def _grads(self, tensors: Mapping[str, TensorInfo]) -> None:
        grads = self.node.get("grads")
        for name, stated in self.place.snippet.grads.items():
            tensor = tensors.get(name)
            if tensor is None:
                self.report(f"grads: no tensor named {name!r} after the run: not written")
            elif tensor.preview:
                self.report(f"grads: {name} is too large to write ({tensor.shape}): not written")
            elif not compare(stated, tensor.grad).matches and isinstance(grads, CommentedMap):
                grads[name] = grad_node(tensor.grad)


def _shows(choice: str, output: str) -> bool:
    """Does `output` show this choice (a whole line, or a long enough piece of it)?"""
    text = choice.strip().strip("`").strip()
    lines = [line.strip() for line in output.splitlines()]
    return bool(text) and (text in lines or (len(text) >= 4 and text in output))


def _contradictions(
    lesson: Lesson, results: Mapping[Keys, RunResult], places: list[Place]
) -> list[Failure]:
    """Predictions the new runs contradict; reported, never rewritten."""
    by_keys = {place.keys: place for place in places}
    found: list[Failure] = []
    for number, step in enumerate(lesson.steps, start=1):
        keys: Keys = ("steps", number - 1, "snippet")
        if step.snippet is None or keys not in results:
            continue
        result, old = results[keys], by_keys[keys].snippet.output
        where = f"step {number} ({step.title})"
        guess = step.prediction
        if (
            guess is not None
            and _shows(guess.answer, old)
            and not _shows(guess.answer, result.stdout)
        ):
            found.append(
                Failure(
                    lesson.slug,
                    f"{where} prediction",
                    f"the answer {guess.answer!r} showed in the old output but not in the new "
                    "one: check the answer (not rewritten)",
                )
            )
        value = step.value_prediction
        if value is not None:
            tensors = {tensor.name: tensor for tensor in result.tensors}
            actual = tensors[value.tensor].grad if value.tensor in tensors else None
            if value.tensor not in tensors or not compare(value.expected, actual).matches:
                found.append(
                    Failure(
                        lesson.slug,
                        f"{where} value prediction",
                        f"the answer {value.expected!r} contradicts the run: {value.tensor}.grad "
                        f"is {actual!r} (not rewritten)",
                    )
                )
    return found


Instances = Mapping[int, list[VariantInstance | ValueError]]


def update_text(
    text: str, lesson: Lesson, results: Mapping[Keys, RunResult], computed: Instances | None = None
) -> tuple[str, list[Failure]]:
    """The lesson file `text` with the runs' outputs, grads and errors written in, and the
    problems to report. `lesson` is `text` validated; `results` are the runs by place;
    `computed` the variant instances by step number."""
    yaml = round_trip_yaml(text)
    document = yaml.load(text)
    places = snippet_places(lesson)
    reports: list[Failure] = []
    for place in places:
        if place.keys not in results:
            continue
        node = document
        for key in place.keys:
            node = node[key]
        edit = _Edit(node, place, lesson.slug)
        edit.apply(results[place.keys])
        reports += edit.reports
    reports += _contradictions(lesson, results, places)
    reports += write_instances(document, lesson, computed or {})
    new = dump(yaml, document)
    if new == text:
        return text, reports
    if without_null_spelling(dump(yaml, yaml.load(text))) != without_null_spelling(text):
        reports.append(
            Failure(
                lesson.slug,
                "layout",
                "this file's layout cannot be kept byte for byte: the diff shows every change",
            )
        )
    _verify(new, lesson.slug, places, results)
    return new, reports


def _verify(new: str, slug: str, places: list[Place], results: Mapping[Keys, RunResult]) -> None:
    """The written file must load and say exactly what the runs printed."""
    try:
        written = Lesson.model_validate(parse_yaml(new))
    except ValidationError as exc:
        raise LessonError(f"{slug}: the updated file would not validate: {exc}") from exc
    for place in snippet_places(written):
        result = results.get(place.keys)
        if (
            result is not None
            and result.status in ("ok", "error")
            and place.snippet.output != result.stdout
        ):
            raise LessonError(f"{slug}: {place.label}: the output could not be written exactly")


def unified_diff(path: Path, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), str(path), str(path)
        )
    )


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.gradlab-update")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


async def _run_all(
    lessons: list[Lesson], run: Runner
) -> tuple[dict[str, dict[Keys, RunResult]], dict[str, Instances]]:
    jobs = [(lesson.slug, place) for lesson in lessons for place in snippet_places(lesson)]
    results = await asyncio.gather(*(run(place.snippet.code) for _, place in jobs))
    by_lesson: dict[str, dict[Keys, RunResult]] = {lesson.slug: {} for lesson in lessons}
    for (slug, place), result in zip(jobs, results, strict=True):
        by_lesson[slug][place.keys] = result
    computed = await asyncio.gather(*(run_instances(lesson, run) for lesson in lessons))
    return by_lesson, {lesson.slug: made for lesson, made in zip(lessons, computed, strict=True)}


def run_update(
    lessons_dir: str | None = None, only: list[str] | None = None, started: Runner | None = None
) -> int:
    """Run every snippet of the lessons `only` names (all without it) in a sandbox started
    for it, or through `started` (see `with_sandbox`), and write what they did."""
    loaded = load_selected(lessons_dir, only, advice=" (fix these first)")
    if loaded is None:
        return 1
    settings, catalog, lessons = loaded
    texts = {
        lesson.slug: catalog.paths[lesson.slug].read_text(encoding="utf-8") for lesson in lessons
    }
    try:
        results, computed = asyncio.run(
            with_sandbox(settings, lambda run: _run_all(lessons, run), started)
        )
    except SandboxUnavailable as exc:
        print(f"FAIL: the sandbox cannot run snippets: {exc}", file=sys.stderr)
        return 1
    reports: list[Failure] = []
    changed = 0
    for lesson in lessons:
        path = catalog.paths[lesson.slug]
        try:
            new, found = update_text(
                texts[lesson.slug], lesson, results[lesson.slug], computed[lesson.slug]
            )
        except LessonError as exc:
            reports.append(Failure(lesson.slug, str(path), f"not written: {exc}"))
            continue
        reports += found
        if new == texts[lesson.slug]:
            continue
        if path.read_text(encoding="utf-8") != texts[lesson.slug]:
            reports.append(
                Failure(lesson.slug, str(path), "the file changed while its code ran: run again")
            )
            continue
        print(unified_diff(path, texts[lesson.slug], new), end="")
        _write_atomically(path, new)
        changed += 1
    for report in reports:
        print(f"CHECK {report}", file=sys.stderr)
    print(
        f"{len(lessons)} lessons: {changed} updated, "
        f"{len(reports)} {'thing' if len(reports) == 1 else 'things'} for the author to decide"
    )
    return 1 if reports else 0
