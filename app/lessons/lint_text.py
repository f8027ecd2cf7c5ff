"""A lesson's text as a learner reads it, for the lints: no Markdown marks, typographic quotes
as straight ones, the numbers it writes, and whether it names a word."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d*)?(?:[eE]-?\d+)?")
# Code marks and emphasis; an underscore only where it marks emphasis, not inside a name.
_MARKUP = re.compile(r"`|\*|(?<!\w)_|_(?!\w)")
# The page sets typographic quotes; a lesson file has straight ones.
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def plain(text: str) -> str:
    """Text as a learner reads it: no Markdown code or emphasis marks, spaces folded."""
    return " ".join(_MARKUP.sub("", text.translate(_QUOTES)).split())


def numbers(text: str) -> set[float]:
    """The numbers written in `text` (signs dropped: "-0.09" gives away "0.09" too)."""
    return {round(float(match), 6) for match in _NUMBER.findall(text)}


def mentions(haystack: str, needle: str) -> bool:
    # `requires_grad=True` passes an argument; it does not state that something is True.
    pattern = r"(?<![\w.=])" + re.escape(needle.lower()) + r"(?![\w])"
    return re.search(pattern, haystack.lower()) is not None
