"""Security headers on every response: a strict Content-Security-Policy and friends.

Pages show learner-controlled output (stdout, errors, code); it is always rendered as text, and
the policy is the second line of defence should that ever slip: no inline script and no inline
style can run, nothing loads from elsewhere, and only `GRADLAB_FRAME_ANCESTORS` may frame us.

One exception, by nonce: the code editor (CodeMirror) writes its styles into a <style> element.
Each response gets a fresh nonce (`request.state.csp_nonce`, put in a <meta> by base.html and
handed to the editor); injected markup cannot know it.
"""

from __future__ import annotations

import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# FastAPI's interactive API docs load Swagger UI / ReDoc from a CDN and start it with an inline
# script. They show no learner output, so they get a policy that lets them work, and no more.
DOCS_PATHS = ("/docs", "/redoc")
DOCS_CDN = "https://cdn.jsdelivr.net"
CSP = b"content-security-policy"
NONCE_MARK = "\0nonce\0"


def content_security_policy(frame_ancestors: str, nonce: str = "", docs: bool = False) -> str:
    if docs:
        script, style, img = (
            f"'self' 'unsafe-inline' {DOCS_CDN}",
            f"'self' 'unsafe-inline' {DOCS_CDN}",
            "'self' data: https://fastapi.tiangolo.com",
        )
    else:
        script, style, img = "'self'", f"'self' 'nonce-{nonce}'", "'self' data:"
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {script}",
            f"style-src {style}",
            f"img-src {img}",
            "connect-src 'self'",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, frame_ancestors: str, hsts: bool) -> None:
        self.app = app
        self.frame_ancestors = frame_ancestors
        headers = {
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
            "Cross-Origin-Opener-Policy": "same-origin",
        }
        if hsts:  # only behind TLS: browsers ignore it over plain HTTP, and it must not pin one
            headers["Strict-Transport-Security"] = "max-age=31536000"
        # Encoded once: a response sets none of these itself (a route's own value would win).
        self.headers = [(name.lower().encode(), value.encode()) for name, value in headers.items()]
        self.docs_policy = content_security_policy(frame_ancestors, docs=True).encode()
        # The page policy around its nonce, split once: each response only joins its nonce in.
        before, _, after = content_security_policy(frame_ancestors, NONCE_MARK).partition(
            NONCE_MARK
        )
        self.policy_around_nonce = (before.encode(), after.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")).startswith(DOCS_PATHS):
            policy = self.docs_policy
        else:
            nonce = secrets.token_urlsafe(16)
            scope.setdefault("state", {})["csp_nonce"] = nonce
            before, after = self.policy_around_nonce
            policy = before + nonce.encode() + after

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                raw = message.setdefault("headers", [])
                given = {name.lower() for name, _ in raw}
                if CSP in given:  # the route's own policy gives way to this one
                    raw[:] = [(name, value) for name, value in raw if name.lower() != CSP]
                raw.extend((name, value) for name, value in self.headers if name not in given)
                raw.append((CSP, policy))
            await send(message)

        await self.app(scope, receive, with_headers)
