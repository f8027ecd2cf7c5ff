"""`gradlab new <slug>`: a lesson file with every section of the format, ready to fill in.

The file is a valid lesson whose text fields say `TODO`; `gradlab check` lists every `TODO`
left, one line each, and fails until none is. Its example code is real and its outputs are
true, so the only complaints on a fresh file are the `TODO`s.
"""

from __future__ import annotations

import os
from pathlib import Path

from app.config.paths import LESSON_SCHEMA
from app.lessons.format import Slug


class ScaffoldError(Exception):
    """The lesson file cannot be created; the message says why."""


def schema_reference(folder: Path) -> str:
    """What a lesson file in `folder` writes after `$schema=`.

    A path relative to the lesson file, to the schema gradlab ships beside its bundled lessons
    (`lessons/lesson.schema.json` in a clone): among the bundled lessons it is
    `lesson.schema.json`, in an author's own pack something like
    `../gradlab/lessons/lesson.schema.json`. The YAML language server resolves it against the
    file, so it works in any editor that runs it, offline.
    """
    return Path(os.path.relpath(LESSON_SCHEMA, folder.resolve())).as_posix()


# The new lesson, with where to write marked TODO (a text file beside this module, shipped
# with the package).
TEMPLATE = Path(__file__).with_name("new-lesson.yaml.template")


def scaffold_text(slug: str, schema: str, torch_version: str) -> str:
    return (
        TEMPLATE.read_text(encoding="utf-8")
        .replace("__SCHEMA__", schema)
        .replace("__SLUG__", slug)
        .replace("__TORCH__", torch_version)
    )


def new_lesson(slug: str, folder: Path) -> Path:
    """Write `<folder>/<slug>.yaml`; never overwrites."""
    from pydantic import TypeAdapter, ValidationError

    from app.lessons.check import _installed_torch

    try:
        TypeAdapter(Slug).validate_python(slug)
    except ValidationError as exc:
        raise ScaffoldError(
            f"{slug!r} is not a slug: use lower-case letters, digits and single dashes "
            "(like 'why-grad-is-none'), at most 64 characters"
        ) from exc
    if not folder.is_dir():
        raise ScaffoldError(f"{folder}: no such folder")
    path = folder / f"{slug}.yaml"
    text = scaffold_text(slug, schema_reference(folder), _installed_torch())
    try:
        with path.open("x", encoding="utf-8") as file:  # "x": fails if it exists
            file.write(text)
    except FileExistsError as exc:
        raise ScaffoldError(f"{path} already exists; gradlab new never overwrites") from exc
    return path
