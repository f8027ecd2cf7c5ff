"""Read lesson files into validated `Lesson` objects, once, at start-up.

A broken file fails with a message naming the file, the field and the problem, so that an
author can fix it without reading a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from app.lessons.format import Lesson
from app.lessons.inventory import INVENTORY_FILE, Inventory

MAX_LESSON_BYTES = 1_000_000


class LessonError(Exception):
    """A lesson file that cannot be used; the message says where and why."""


class _LessonYamlLoader(yaml.SafeLoader):
    """YAML 1.2-like scalars (only true/false are booleans) and no duplicate keys."""


# PyYAML follows YAML 1.1, where `yes`, `no`, `on` and `off` are booleans. A myth's answer
# is literally "yes" or "no", so only true/false may become booleans here.
_LessonYamlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_LessonYamlLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def _construct_mapping_without_duplicates(
    loader: _LessonYamlLoader, node: yaml.MappingNode
) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_LessonYamlLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping_without_duplicates
)


try:
    from yaml import CSafeLoader as _QuickBase
except ImportError:  # PyYAML built without libyaml: the pure-Python parser alone
    from yaml import SafeLoader as _QuickBase  # type: ignore[assignment]


class _QuickLessonYamlLoader(_QuickBase):
    """The same rules on libyaml's parser, about six times quicker than the pure-Python one
    (seconds for the bundled lessons, at every start); both resolve and construct in Python."""

    yaml_implicit_resolvers = _LessonYamlLoader.yaml_implicit_resolvers
    yaml_constructors = _LessonYamlLoader.yaml_constructors


def parse_yaml(text: str) -> Any:
    """Parse lesson YAML: only true/false are booleans, duplicate keys are errors. A text
    libyaml refuses is parsed again by the pure-Python parser, whose errors say where better."""
    try:
        return yaml.load(text, Loader=_QuickLessonYamlLoader)  # noqa: S506 - SafeLoader rules
    except yaml.YAMLError:
        return yaml.load(text, Loader=_LessonYamlLoader)  # noqa: S506 - a SafeLoader subclass


def _describe_location(location: Iterable[int | str], data: Any) -> str:
    """Turn pydantic's ('steps', 2, 'prediction', 'answer') into 'steps[3] "Title" > ...'."""
    parts: list[str] = []
    node = data
    for item in location:
        if isinstance(item, int):
            label = f"[{item + 1}]"
            if isinstance(node, list) and 0 <= item < len(node):
                node = node[item]
                if isinstance(node, Mapping) and isinstance(node.get("title"), str):
                    label += f' "{node["title"]}"'
            else:
                node = None
            if parts:
                parts[-1] += label
            else:
                parts.append(label)
        else:
            parts.append(item)
            node = node.get(item) if isinstance(node, Mapping) else None
    return " > ".join(parts) or "(top level)"


def _format_validation_error(path: Path, error: ValidationError, data: Any) -> str:
    lines = [f"{path}: invalid lesson"]
    for problem in error.errors():
        # Union members add their type name to the location; it only confuses authors.
        location = [part for part in problem["loc"] if part not in ("Snippet", "none")]
        where = _describe_location(location, data)
        message = problem["msg"].removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def load_lesson(path: Path) -> Lesson:
    """Parse and validate one lesson file."""
    data = _read_mapping(path, "a lesson file")
    if data.get("format") not in (None, 1):
        raise LessonError(
            f"{path}: format: this gradlab reads lesson format 1, the file says {data['format']!r}"
        )
    try:
        lesson = Lesson.model_validate(data)
    except ValidationError as exc:
        raise LessonError(_format_validation_error(path, exc, data)) from exc
    if lesson.slug != path.stem:
        raise LessonError(f"{path}: slug: {lesson.slug!r} must match the file name {path.stem!r}")
    return lesson


@dataclass(frozen=True)
class BrokenLesson:
    """A lesson file that failed to load, kept (in development only) to show its error."""

    slug: str
    path: Path
    problem: str


@dataclass(frozen=True)
class Catalog:
    """Every lesson, in learning-path order, looked up by slug.

    `paths` says which file each lesson came from. `broken` is empty unless the catalog was
    loaded for development (`keep_broken`), where a broken file is shown instead of stopping
    everything.
    """

    lessons: tuple[Lesson, ...]
    paths: Mapping[str, Path] = field(default_factory=dict)
    broken: tuple[BrokenLesson, ...] = ()
    # The concept inventory (app/lessons/inventory.py), when a lessons folder has one.
    inventory: Inventory | None = None

    def get(self, slug: str) -> Lesson | None:
        return next((lesson for lesson in self.lessons if lesson.slug == slug), None)

    def get_broken(self, slug: str) -> BrokenLesson | None:
        return next((broken for broken in self.broken if broken.slug == slug), None)

    def neighbours(self, slug: str) -> tuple[Lesson | None, Lesson | None]:
        """The lessons before and after `slug` in the learning path."""
        slugs = [lesson.slug for lesson in self.lessons]
        index = slugs.index(slug)
        before = self.lessons[index - 1] if index > 0 else None
        after = self.lessons[index + 1] if index + 1 < len(self.lessons) else None
        return before, after

    def __len__(self) -> int:
        return len(self.lessons)


def _link_problems(lessons: Iterable[Lesson], slugs: set[str]) -> dict[str, list[str]]:
    """Per lesson, the links (prerequisites, next, an exercise's source) to no lesson. Links
    may cross packs."""
    problems: dict[str, list[str]] = {}
    for lesson in lessons:
        for required in lesson.prerequisites:
            if required not in slugs:
                problems.setdefault(lesson.slug, []).append(
                    f"{lesson.slug}: prerequisites: no lesson {required!r}"
                )
        if lesson.next is not None and lesson.next not in slugs:
            problems.setdefault(lesson.slug, []).append(
                f"{lesson.slug}: next: no lesson {lesson.next!r}"
            )
        for number, exercise in enumerate(lesson.exercises, start=1):
            if exercise.source is not None and exercise.source not in slugs:
                problems.setdefault(lesson.slug, []).append(
                    f"{lesson.slug}: exercises[{number}].source: no lesson {exercise.source!r}"
                )
    return problems


def _folders(directories: Path | Sequence[Path]) -> list[Path]:
    return [directories] if isinstance(directories, Path) else list(directories)


def lesson_files(directories: Path | Sequence[Path]) -> list[Path]:
    """Every `*.yaml` lesson file in the folders (lesson packs), pack by pack; the concept
    inventory (`inventory.yaml`) beside them is not a lesson."""
    files: list[Path] = []
    for folder in _folders(directories):
        if not folder.is_dir():
            raise LessonError(f"{folder}: the lessons directory does not exist")
        files.extend(path for path in sorted(folder.glob("*.yaml")) if path.name != INVENTORY_FILE)
    return files


def inventory_file(directories: Path | Sequence[Path]) -> Path | None:
    """The concept inventory: `inventory.yaml` in the first lessons folder that has one."""
    return next(
        (
            folder / INVENTORY_FILE
            for folder in _folders(directories)
            if (folder / INVENTORY_FILE).is_file()
        ),
        None,
    )


def _read_mapping(path: Path, what: str) -> dict[Any, Any]:
    """A YAML file of at most MAX_LESSON_BYTES that holds a mapping, or LessonError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LessonError(f"{path}: cannot read the file: {exc.strerror}") from exc
    if len(raw) > MAX_LESSON_BYTES:
        raise LessonError(f"{path}: the file is larger than {MAX_LESSON_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise LessonError(f"{path}: not valid YAML{where}: {problem}") from exc
    if not isinstance(data, dict):
        raise LessonError(f"{path}: {what} must be a mapping of fields, not {type(data).__name__}")
    return data


def load_inventory(path: Path, slugs: set[str] | None = None) -> Inventory:
    """Parse and validate the concept inventory; with `slugs`, every concept's lessons must
    be among them."""
    data = _read_mapping(path, "the concept inventory")
    try:
        inventory = Inventory.model_validate(data)
    except ValidationError as exc:
        message = _format_validation_error(path, exc, data)
        raise LessonError(message.replace("invalid lesson", "invalid concept inventory")) from exc
    missing = [
        f"{path}: concepts: {concept.id}: no lesson {slug!r}"
        for concept in inventory.concepts
        for slug in concept.lessons
        if slugs is not None and slug not in slugs
    ]
    if missing:
        raise LessonError("\n".join(missing))
    return inventory


def load_catalog(directories: Path | Sequence[Path], *, keep_broken: bool = False) -> Catalog:
    """Load every lesson of every folder; all problems are reported together.

    Two files with the same slug (in different packs) are an error naming both. With
    `keep_broken` (development), a lesson that fails is kept aside with its problem and the
    others load; otherwise any problem raises `LessonError`.
    """
    lessons: dict[str, Lesson] = {}
    paths: dict[str, Path] = {}
    broken: dict[str, BrokenLesson] = {}
    for path in lesson_files(directories):
        slug = path.stem
        if slug in paths or slug in broken:
            first = paths[slug] if slug in paths else broken[slug].path
            problem = f"{path}: slug: {slug!r} is also the slug of {first}"
            broken[slug] = BrokenLesson(slug, path, problem)
            lessons.pop(slug, None)
            paths.pop(slug, None)
            continue
        try:
            lessons[slug] = load_lesson(path)
            paths[slug] = path
        except LessonError as exc:
            broken[slug] = BrokenLesson(slug, path, str(exc))
    for slug, problems in _link_problems(lessons.values(), set(lessons) | set(broken)).items():
        broken[slug] = BrokenLesson(slug, paths.pop(slug), "\n".join(problems))
        del lessons[slug]
    inventory = None
    found = inventory_file(directories)
    if found is not None:
        try:
            inventory = load_inventory(found, set(lessons) | set(broken))
        except LessonError as exc:
            broken[INVENTORY_FILE] = BrokenLesson(found.stem, found, str(exc))
    if broken and not keep_broken:
        raise LessonError("\n".join(item.problem for item in broken.values()))
    ordered = sorted(lessons.values(), key=lambda lesson: (lesson.order, lesson.slug))
    return Catalog(tuple(ordered), paths, tuple(broken.values()), inventory)
