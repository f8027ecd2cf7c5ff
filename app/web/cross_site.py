"""Refuse every request that would change something when another site sent it.

With `GRADLAB_COOKIE_SAMESITE=none` (gradlab inside a course site's frame, LTI), a form or a
script on any site can post to gradlab with the learner's cookie; with `lax`, a page of a
sibling site (same registrable domain) still can. So every request whose method is not GET,
HEAD or OPTIONS (which never write: docs/architecture.md, "Reads are reads") is checked before
any route runs, as Go's `net/http.CrossOriginProtection` and the OWASP cheat sheet do it:

1. `Sec-Fetch-Site`, which every current browser sends and no page can forge: `same-origin`
   (gradlab's own pages) and `none` (the learner typed it, a bookmark) pass; `same-site` and
   `cross-site` are refused.
2. Without it (an older browser), `Origin`: it passes when its host is the one the request was
   sent to (`Host`; behind trusted proxies also `X-Forwarded-Host`) or `GRADLAB_PUBLIC_URL`'s;
   any other, `null` included, is refused.
3. With neither header the request did not come from a browser's page (curl, a script, the
   tests' client): it passes, since no cookie of a learner rides on it unasked.

Only the routes a course platform itself posts to from its own site (the OIDC login and the
launch, listed by name in `app/routes/lti.py`) are exempt; their own checks (a signed state
bound to the browser, a signed id_token, a nonce) are what holds them. The refusal is a 403
`cross-site-request`, Problem Details or the error page (app/web/problems.py).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import CrossSiteRequest
from app.web import problems

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ALLOWED_FETCH_SITES = frozenset({"same-origin", "none"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def host_of(origin: str) -> str | None:
    """`host[:port]` of an origin (lower case, the scheme's default port dropped); None for one
    that names no host (`null`, garbage)."""
    try:
        parts = urllib.parse.urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return host if port is None or str(port) == _DEFAULT_PORTS[parts.scheme] else f"{host}:{port}"


def _same_host(origin_host: str, host: str, scheme: str) -> bool:
    """Whether a `Host` header (which may carry the default port, or none) names `origin_host`."""
    host = host.strip().lower()
    return origin_host in (host, host.removesuffix(":" + _DEFAULT_PORTS.get(scheme, "")))


def refusal(
    method: str, headers: dict[str, str], own_hosts: Iterable[str] = ()
) -> CrossSiteRequest | None:
    """Why this request is refused as cross-site, or None when it may go on. `headers`: the
    request's, names in lower case; `own_hosts`: hosts (`host[:port]`) that are gradlab's
    besides the request's own `Host` (GRADLAB_PUBLIC_URL's, a trusted proxy's forwarded host)."""
    if method.upper() in SAFE_METHODS:
        return None
    fetch_site = headers.get("sec-fetch-site", "").strip().lower()
    if fetch_site:
        if fetch_site in ALLOWED_FETCH_SITES:
            return None
        return CrossSiteRequest(_said(f"Sec-Fetch-Site: {fetch_site}"))
    origin = headers.get("origin")
    if origin is None:
        return None  # not sent by a browser's page
    origin_host = host_of(origin)
    if origin_host is not None:
        scheme = urllib.parse.urlsplit(origin.strip()).scheme
        hosts = [headers.get("host", ""), *own_hosts]
        if any(_same_host(origin_host, host, scheme) for host in hosts if host):
            return None
    return CrossSiteRequest(_said(f"Origin: {origin[:100]}"))


def _said(header: str) -> str:
    return (
        f"This request came from a page of another site ({header}), so gradlab did not act "
        "on it; nothing was changed. To do this, use gradlab's own page."
    )


class CrossSiteMiddleware:
    """Runs `refusal` on every request but those to the `exempt` paths.

    `public_url`: GRADLAB_PUBLIC_URL when it was set, whose host is gradlab's too (a proxy may
    pass on another `Host`). `forwarded_host`: whether `X-Forwarded-Host` names gradlab's host
    as well (set when GRADLAB_TRUSTED_PROXIES is: the proxies in front set it; a page of
    another site cannot send it, since a custom header makes its request wait for a CORS
    preflight that gradlab never grants)."""

    def __init__(
        self,
        app: ASGIApp,
        exempt: Iterable[str] = (),
        public_url: str | None = None,
        forwarded_host: bool = False,
    ) -> None:
        self.app = app
        self.exempt = frozenset(exempt)
        public = host_of(public_url) if public_url else None
        self.own_hosts = (public,) if public else ()
        self.forwarded_host = forwarded_host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in SAFE_METHODS
            or _route_path(scope) in self.exempt
        ):
            await self.app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        own = self.own_hosts
        if self.forwarded_host and "x-forwarded-host" in headers:
            own = (*own, headers["x-forwarded-host"].split(",")[0])
        refused = refusal(scope["method"], headers, own)
        if refused is None:
            await self.app(scope, receive, send)
            return
        response = problems.problem_answer(Request(scope), refused)
        await response(scope, receive, send)


def _route_path(scope: Scope) -> str:
    """The path the routes match (without the root path a proxy mounts gradlab under)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path
