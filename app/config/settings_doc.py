"""docs/settings.md, made from `Settings`: every setting's variable, default and description."""

from __future__ import annotations

import os

from app.config.paths import BUNDLED_LESSONS
from app.config.settings import Settings


def _shown(value: object) -> str:
    """A default as an operator would write it, with the bundled lessons' folder as
    `<lessons>`."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, frozenset):
        return ",".join(sorted(value)) or "(none)"
    if isinstance(value, tuple):
        return os.pathsep.join(_shown(item) for item in value)
    return str(value).replace(str(BUNDLED_LESSONS), "<lessons>")


SETTINGS_DOC_HEAD = """# Settings

Every setting is an environment variable with a default that works on a laptop. A bad value
stops the server, and every other `gradlab` command, at start-up with one line per bad setting
naming the variable, the value given and what is allowed, and exit status 2:

```
gradlab serve: GRADLAB_WORKERS='abc': must be a whole number from 1 to 64
```

A database named by `GRADLAB_DATABASE_URL` that cannot be opened is said the same way: a plain
path (write `sqlite:////path/to/file.db`), a SQLite folder this user cannot make or write, a
PostgreSQL server that refuses or does not answer within 10 s (`?connect_timeout=N` in the URL
changes the wait), named by its host and port, never the password.
A busy port stops `gradlab serve` before anything starts, naming `--port`.
`uvicorn --factory app.main:from_environment` says a bad setting in the same line, after
`gradlab:`.

A `GRADLAB_*` variable that names no setting is ignored, with one warning naming the closest
setting, from every command and in the server's log as it starts:

```
gradlab class: GRADLAB_WORKER is not a setting and is ignored: did you mean GRADLAB_WORKERS?
```

This page is generated from `Settings` in `app/config/settings.py` (each field's
description): after changing a setting, run `python -m app.cli settings-doc > docs/settings.md`;
`tests/test_docs.py` fails until you do. `<lessons>` is the folder of the bundled lessons:
`lessons/` in a clone, `bundled_lessons/` inside the `app` package when installed.

| variable | default | what it does |
| --- | --- | --- |
"""


def settings_doc() -> str:
    """docs/settings.md: every setting's variable, default and description, as Markdown."""
    rows = []
    for name, field in Settings.model_fields.items():
        default = "(computed)" if field.default_factory is not None else _shown(field.default)
        default = default if default in ("unset", "(computed)", "(none)") else f"`{default}`"
        about = " ".join((field.description or "").split())  # a docstring may wrap
        about = about.replace("|", "\\|")  # a table cell
        rows.append(f"| `GRADLAB_{name.upper()}` | {default} | {about} |")
    return SETTINGS_DOC_HEAD + "\n".join(rows) + "\n"
