"""Reading the settings so that a bad value stops gradlab at start-up with one line that names
the variable (or command-line option), the value given and what is allowed, instead of
pydantic's report; and a `GRADLAB_*` variable that names no setting is one warning. Every
command (app/cli.py) and the server's factory (app/main.py) say them the same way."""

from __future__ import annotations

import difflib
import os
import sys
import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import SecretStr, ValidationError
from pydantic.fields import FieldInfo

from app.config.database_url import without_password
from app.config.settings import Settings

# GRADLAB_* variables that gradlab, its images or its tests read and that are not settings.
NOT_SETTINGS = frozenset(
    {
        "GRADLAB_SANDBOX_PHASES",  # app/sandbox/timeline.py: a file for each run's phases
        "GRADLAB_PORT",  # compose.yaml: where the container's port is published
        "GRADLAB_IMAGE",  # compose.yaml, docker/ci-smoke.sh
        "GRADLAB_BASE_IMAGE",  # docker/ci-smoke.sh
        "GRADLAB_TESTS_TEMP",  # tests/conftest.py
        "GRADLAB_CHROMIUM",  # tests/e2e/conftest.py
        "GRADLAB_INVENTORY_SHOTS",  # tests/e2e/test_inventory_pages.py
    }
)
PREFIX = "GRADLAB_"


class SettingsError(Exception):
    """Settings that cannot work, as one line per bad setting, each naming its variable (or
    command-line option), the value given and what is allowed. Raised at start-up only; every
    command prints the lines and exits with status 2 (`app/cli.py`)."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def refused(error: SettingsError, who: str) -> int:
    """Say each line of `error` on stderr after `who` ("gradlab serve", "gradlab"), as every
    command and the server's factory do; the exit status to stop with."""
    for line in error.lines:
        print(f"{who}: {line}", file=sys.stderr)
    return 2


def unknown_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """Each `GRADLAB_*` variable of `environ` that names no setting (the settings read names in
    any case), and the warning to give for it, naming the closest setting if one is close."""
    fields = {name.upper(): name for name in Settings.model_fields}
    found: dict[str, str] = {}
    for key in sorted(environ):
        name = key.upper()
        if not name.startswith(PREFIX) or name in NOT_SETTINGS or name[8:] in fields:
            continue
        close = difflib.get_close_matches(name[8:], fields, n=1, cutoff=0.6)
        hint = f": did you mean {PREFIX}{close[0]}?" if close else " (docs/settings.md lists them)"
        found[key] = f"{key} is not a setting and is ignored{hint}"
    return found


def warn_unknown_variables(say: Callable[[str], None]) -> None:
    """Say each `GRADLAB_*` variable that names no setting, and take it out of this process's
    environment: it is ignored anyway, and the processes this one starts (`gradlab serve
    --processes`) do not say it again."""
    for key, warning in unknown_variables(os.environ).items():
        say(warning)
        os.environ.pop(key, None)


def load_settings(
    options: Mapping[str, object] | None = None, *, flags: Mapping[str, str] | None = None
) -> Settings:
    """The settings from the environment, with `options` given on the command line (`flags`
    names each one's option, e.g. {"processes": "--processes"}); a bad value raises
    SettingsError, one line per bad setting, instead of pydantic's report."""
    given: dict[str, Any] = {k: v for k, v in (options or {}).items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        lines: dict[str, str] = {}
        for error in exc.errors():
            # A field whose default is computed from a bad one: the bad one says it all.
            if error["type"] == "default_factory_not_called":
                continue
            field = str(error["loc"][0]) if error["loc"] else ""
            if field not in lines:
                lines[field] = _problem(field, error, given, flags or {})
        raise SettingsError(*lines.values()) from None


def _problem(field: str, error: Any, given: Mapping[str, object], flags: Mapping[str, str]) -> str:
    """One bad setting as a line: its variable or option, the value given, what is allowed."""
    reason = str(error["msg"]).removeprefix("Value error, ")
    if not field:  # a rule across settings: its message names them
        return reason
    info = Settings.model_fields[field]
    if field in given:
        name, value = flags.get(field, field), given[field]
    else:
        name = f"GRADLAB_{field.upper()}"
        value = _from_environment(name, error.get("input"))
    shown = "(hidden)" if _secret(info) else repr(without_password(str(value)))
    said = f"{name} {shown}" if name.startswith("--") else f"{name}={shown}"
    allowed = None if error["type"] == "value_error" else _allowed(info)
    return f"{said}: {f'must be {allowed}' if allowed else reason}"


def _secret(info: FieldInfo) -> bool:
    return any(member is SecretStr for member in (info.annotation, *get_args(info.annotation)))


def _from_environment(name: str, fallback: object) -> object:
    """The variable as set (pydantic-settings reads names in any case)."""
    for key, value in os.environ.items():
        if key.upper() == name:
            return value
    return fallback


def _allowed(info: FieldInfo) -> str | None:
    """What a setting accepts, in words, from its type and bounds."""
    annotation: Any = info.annotation
    metadata = list(info.metadata)
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(members) < len(get_args(annotation))
        if len(members) == 1:
            annotation = members[0]
    if get_origin(annotation) is Annotated:
        annotation, *more = get_args(annotation)
        metadata += more
    bounds = _bounds(metadata)
    if annotation is bool:
        allowed = "true or false"
    elif annotation is int:
        allowed = f"a whole number{bounds}"
    elif annotation is float:
        allowed = f"a number{bounds}"
    elif get_origin(annotation) is Literal:
        allowed = "one of " + ", ".join(repr(choice) for choice in get_args(annotation))
    else:
        return None
    return f"{allowed}, or unset" if optional else allowed


def _bounds(metadata: list[Any]) -> str:
    low = high = ""
    for rule in metadata:
        if isinstance(rule, FieldInfo):  # Annotated[int, Field(ge=...)] inside an Optional
            return _bounds(list(rule.metadata))
        if isinstance(rule, annotated_types.Ge):
            low = f"from {rule.ge}"
        elif isinstance(rule, annotated_types.Gt):
            low = f"above {rule.gt}"
        elif isinstance(rule, annotated_types.Le):
            high = str(rule.le)
    if not high:
        return f" {low}" if low else ""
    if low.startswith("from"):
        return f" {low} to {high}"
    return f" {low} and at most {high}" if low else f" at most {high}"
