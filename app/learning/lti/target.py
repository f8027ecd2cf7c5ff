"""Where a launch lands, read from what the platform sent: the custom `lesson` parameter (what
gradlab's own deep-linking links carry), else the `target_link_uri` claim (the LTI core
specification's "where the launch should end"), which an administrator fills in by hand when
they add a link to a lesson's own address.

A `target_link_uri` is never followed as an address. It is read for a lesson slug only, in two
forms: the query `?lesson=<slug>` (on any address: it names a lesson, not a place), and the
path `/lessons/<slug>` of a lesson page, only when the address is on gradlab's own origin
(same scheme, host and port). gradlab then builds the landing from the slug itself, so another
site, a scheme-relative `//host`, a `javascript:` address or another port is never where a
launch ends, and an unknown slug lands on the default page.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from typing import Any

from app.learning.lti import claims as c

DEFAULT_PORTS = {"http": 80, "https": 443}
LESSON_PREFIX = "/lessons/"


def origin(url: str) -> tuple[str, str, int] | None:
    """An absolute http(s) address's (scheme, host, port), with the default port filled in;
    None for anything else (relative, scheme-relative, another scheme, credentials, a bad
    port)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or "@" in parts.netloc:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def own_origin(public_url: str | None, reached: str) -> str:
    """gradlab's own address: GRADLAB_PUBLIC_URL when it is set, else the address the request
    reached."""
    return public_url if public_url else reached


def lesson_path(target_link_uri: str, own: str) -> str | None:
    """The slug of `/lessons/<slug>` when the address is a lesson page on `own`'s origin
    (under `own`'s path, when gradlab is served below one); None for any other address."""
    mine, theirs = origin(own), origin(target_link_uri)
    if mine is None or theirs is None or mine != theirs:
        return None
    base = urllib.parse.urlsplit(own.strip()).path.rstrip("/")
    path = urllib.parse.urlsplit(target_link_uri.strip()).path
    if base:
        if not path.startswith(base + "/"):
            return None
        path = path[len(base) :]
    if not path.startswith(LESSON_PREFIX):
        return None
    slug = urllib.parse.unquote(path[len(LESSON_PREFIX) :].removesuffix("/"))
    return slug if slug and "/" not in slug else None


def lesson_candidates(claims: Mapping[str, Any], own: str) -> list[str]:
    """The lessons the launch may name, first wins: the custom `lesson`, the target's
    `?lesson=`, the target's lesson page on gradlab's origin."""
    found: list[str] = []
    custom = claims.get(c.CUSTOM)
    if isinstance(custom, dict) and isinstance(custom.get("lesson"), str):
        found.append(custom["lesson"])
    target = claims.get(c.TARGET_LINK_URI)
    if isinstance(target, str):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
        found.extend(query.get("lesson", [])[:1])
        from_path = lesson_path(target, own)
        if from_path:
            found.append(from_path)
    return [slug for slug in found if slug]
