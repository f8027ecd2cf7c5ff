"""What gradlab asks of a platform over HTTP: its key set, an access token, a score, its
roster. Plain urllib with a timeout; callers on an event loop run these in a thread."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

TIMEOUT_S = 10
MAX_BYTES = 4 * 1024 * 1024


class PlatformError(RuntimeError):
    """The platform could not be reached, or answered with an error."""


def _call(request: urllib.request.Request) -> Any:
    return _call_with_headers(request)[0]


def _call_with_headers(request: urllib.request.Request) -> tuple[Any, Any]:
    if not request.full_url.startswith(("https://", "http://")):
        raise PlatformError(f"not an HTTP URL: {request.full_url[:80]}")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310 - checked above
            body, headers = answer.read(MAX_BYTES), answer.headers
    except urllib.error.HTTPError as exc:
        raise PlatformError(f"{request.full_url} answered {exc.code}") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise PlatformError(f"{request.full_url} could not be reached: {exc}") from exc
    try:
        return (json.loads(body) if body.strip() else None), headers
    except ValueError as exc:
        raise PlatformError(f"{request.full_url} answered something that is not JSON") from exc


def get_page(url: str, token: str, accept: str) -> tuple[Any, str | None]:
    """One page of a paged answer, and the next page's URL from its `Link: <...>; rel="next"`."""
    headers = {"Accept": accept, "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url, headers=headers)  # noqa: S310
    body, answered = _call_with_headers(request)
    for link in (answered.get("Link") or "").split(","):
        target, _, rel = link.partition(";")
        if 'rel="next"' in rel.replace(" ", ""):
            return body, target.strip().strip("<>")
    return body, None


def get_json(url: str, token: str | None = None, accept: str = "application/json") -> Any:
    headers = {"Accept": accept}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return _call(urllib.request.Request(url, headers=headers))  # noqa: S310


def post_form(url: str, fields: dict[str, str]) -> Any:
    data = urllib.parse.urlencode(fields).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    return _call(urllib.request.Request(url, data=data, headers=headers, method="POST"))  # noqa: S310


def post_json(url: str, body: str, content_type: str, token: str) -> Any:
    headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
    return _call(urllib.request.Request(url, data=body.encode(), headers=headers, method="POST"))  # noqa: S310
