"""Edit a lesson file in place, keeping what its author wrote around the edit.

A round trip through ruamel.yaml keeps comments, key order, quoting and block style; the
helpers here write new values in the styles lessons use (`|` blocks for printed output, flow
lists for gradients, `null` for None) without adding or eating the blank lines around them.
"""

from __future__ import annotations

import io
import math
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
)
from ruamel.yaml.util import load_yaml_guess_indent

from app.lessons.loader import parse_yaml


def text_node(value: str) -> Any:
    """Output as a `|` block where YAML can keep it exactly, otherwise double-quoted."""
    lines = value.split("\n")
    block_safe = (
        value.endswith("\n")
        and not value.startswith((" ", "\n"))
        and all(line.isprintable() and line == line.rstrip() for line in lines)
    )
    return LiteralScalarString(value) if block_safe else DoubleQuotedScalarString(value)


def flow_text(value: str) -> Any:
    """Text inside a flow mapping or list (`params: {used: w.detach()}`): plain where the
    lesson loader reads it back as the same text, otherwise double-quoted. Plain `:2` does not
    parse, and `0:2` is a base-60 integer to PyYAML's YAML 1.1 (ruamel, a YAML 1.2 writer,
    would leave both plain)."""
    for written in (f"{{k: {value}}}", f"[{value}]"):
        try:
            read = parse_yaml(written)
        except Exception:  # noqa: BLE001 - any parse error means: quote it
            return DoubleQuotedScalarString(value)
        if read not in ({"k": value}, [value]):
            return DoubleQuotedScalarString(value)
    return value


def set_text(mapping: CommentedMap, key: str, value: str) -> None:
    """Replace a text value, moving the line break ruamel keeps in the comment after it.

    After a quoted value, that comment starts with the value's own line break; a `|` block
    ends with its line break instead. Switching between them without moving it would add or
    eat a blank line.
    """
    new = text_node(value)
    was_block = isinstance(mapping.get(key), LiteralScalarString | FoldedScalarString)
    is_block = isinstance(new, LiteralScalarString)
    slots = mapping.ca.items.get(key)
    token = slots[2] if slots and len(slots) > 2 else None
    if token is not None and is_block and not was_block:
        if token.value.startswith("#"):  # an end-of-line comment cannot follow a block
            new = DoubleQuotedScalarString(value)
        else:
            token.value = token.value.removeprefix("\n")
            # Written from column 0, as the text itself carries each line's indentation;
            # from the old column, a comment line would land inside the block.
            token.start_mark.column = 0
    elif token is not None and was_block and not is_block:
        token.value = "\n" + token.value
    mapping[key] = new


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)  # the sandbox sends non-finite numbers as text: "nan", "inf"
    # float32 values carry noise past 7 significant digits; the check compares at 1e-4.
    return number if not math.isfinite(number) else float(f"{number:.7g}")


def grad_node(value: Any) -> Any:
    if isinstance(value, list):
        sequence = CommentedSeq(grad_node(item) for item in value)
        sequence.fa.set_flow_style()
        return sequence
    return _number(value)


def error_node(error_type: str, fragment: str) -> CommentedMap:
    node = CommentedMap()
    node["type"] = error_type
    node["message_contains"] = DoubleQuotedScalarString(fragment)
    return node


FRAGMENT_CHARS = 80
# Parts of an error message that change from run to run (addresses, scratch paths).
_UNSTABLE = re.compile(r"0x[0-9a-fA-F]+|/tmp/|/proc/|/dev/shm/")


def stable_fragment(message: str) -> str:
    """The part of an error message to claim: its first line, before anything that changes
    from run to run, cut at a word to at most FRAGMENT_CHARS characters."""
    lines = message.strip().splitlines()
    line = lines[0].strip() if lines else ""
    unstable = _UNSTABLE.search(line)
    cut = line[: unstable.start()] if unstable else line
    if len(cut) > FRAGMENT_CHARS:
        cut = cut[:FRAGMENT_CHARS].rsplit(" ", 1)[0]
    if cut != line:  # a cut may leave half of a quote or a bracket behind
        cut = cut.rstrip().rstrip(":,;(<[{'\"").rstrip()
    return cut


def insert_after(mapping: CommentedMap, after: list[str], key: str, value: Any) -> None:
    keys = list(mapping.keys())
    position = max((keys.index(name) + 1 for name in after if name in keys), default=len(keys))
    mapping.insert(position, key, value)


class _LessonRepresenter(RoundTripRepresenter):
    """Writes a null as `null`, as lessons do (ruamel would leave the value empty)."""

    def represent_none(self, data: Any) -> Any:
        return self.represent_scalar("tag:yaml.org,2002:null", "null")


_LessonRepresenter.add_representer(type(None), _LessonRepresenter.represent_none)


def round_trip_yaml(text: str) -> YAML:
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap an author's long line
    _, indent, offset = load_yaml_guess_indent(text)
    yaml.indent(
        mapping=max(2, (indent or 2) - (offset or 0)), sequence=indent or 2, offset=offset or 0
    )
    yaml.Representer = _LessonRepresenter
    return yaml


def dump(yaml: YAML, document: Any) -> str:
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def without_null_spelling(text: str) -> str:
    """`key:` and `key: null` are the same claim; the update writes the second."""
    return re.sub(r"(?m):[ ]null$", ":", text)
