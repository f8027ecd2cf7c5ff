"""Access tokens for a platform's services (grades, roster): a client-credentials grant with a
JWT assertion signed by gradlab's published key, cached until shortly before it expires."""

from __future__ import annotations

import secrets
import threading
import time

from app.learning.lti.keys import sign
from app.learning.lti.platform_http import PlatformError, post_form
from app.progress.lti_store import LtiRecords

ASSERTION_TTL_S = 300
EARLY_S = 60  # a token is renewed this long before it expires


class PlatformTokens:
    def __init__(self, store: LtiRecords) -> None:
        self.store = store
        self._tokens: dict[tuple[int, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def token(self, platform_id: int, scopes: tuple[str, ...]) -> str:
        key = (platform_id, " ".join(scopes))
        with self._lock:
            cached = self._tokens.get(key)
        if cached and cached[1] > time.monotonic():
            return cached[0]
        platform = self.store.platform_by_id(platform_id)
        if platform is None:
            raise PlatformError("the platform was removed")
        now = int(time.time())
        assertion = sign(
            self.store,
            {
                "iss": platform.client_id,
                "sub": platform.client_id,
                "aud": platform.token_url,
                "iat": now,
                "exp": now + ASSERTION_TTL_S,
                "jti": secrets.token_urlsafe(16),
            },
        )
        answer = post_form(
            platform.token_url,
            {
                "grant_type": "client_credentials",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": assertion,
                "scope": key[1],
            },
        )
        if not isinstance(answer, dict) or "access_token" not in answer:
            raise PlatformError("the token endpoint gave no access_token")
        lifetime = float(answer.get("expires_in", 3600))
        with self._lock:
            self._tokens[key] = (str(answer["access_token"]), time.monotonic() + lifetime - EARLY_S)
        return str(answer["access_token"])

    def forget(self, platform_id: int) -> None:
        """Drop a platform's tokens (one was refused)."""
        with self._lock:
            for key in [k for k in self._tokens if k[0] == platform_id]:
                del self._tokens[key]
