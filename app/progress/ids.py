"""Random ids that an operator may type on a command line (a class's, a share's): URL-safe, and
never starting with "-", which `gradlab` would read as an option (`gradlab class delete ID`,
`gradlab inventory stats --class ID`, `gradlab shares rm ID`). One random id in 64 did."""

from __future__ import annotations

import secrets


def command_line_id(nbytes: int) -> str:
    """`secrets.token_urlsafe(nbytes)`, drawn again while it starts with "-"."""
    while True:
        made = secrets.token_urlsafe(nbytes)
        if not made.startswith("-"):
            return made
