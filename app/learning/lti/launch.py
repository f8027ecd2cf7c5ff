"""An LTI 1.3 launch: the OIDC third-party initiated login, then the id_token checked as the
specification requires, then the LMS user, course and roles mapped to a learner, a class and
what they see.

Every refusal raises `LtiRefused` with the check that failed: the route shows it on a page and
logs it, never a stack trace, and never the token itself.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import jwt
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.learning.lti import claims as c
from app.learning.lti.deep_linking import DeepLinkForm, response
from app.learning.lti.keys import jwks
from app.learning.lti.messages import DeepLinkRequest, Launched, LtiRefused, deep_link_request
from app.learning.lti.platform_http import PlatformError, get_json
from app.learning.lti.resume import Resumes
from app.learning.lti.roster import display_name, sync_roster
from app.learning.lti.target import lesson_candidates, own_origin
from app.learning.lti.tokens import PlatformTokens
from app.lessons.loader import Catalog
from app.progress.lti_store import GradeLink, Platform
from app.progress.store import ProgressStore

log = logging.getLogger("gradlab.lti")
LOGIN_TTL = timedelta(minutes=10)  # a login not followed by its launch by then is refused
CLOCK_SKEW_S = 60  # platform clocks run a little ahead or behind
JWKS_REFRESH_S = 300  # a platform's key set is fetched again after this, or on an unknown kid
JWKS_MIN_REFETCH_S = 10  # ...but an unknown kid refetches at most this often


@dataclass(frozen=True)
class LoginRedirect:
    url: str
    state: str


@dataclass
class _KeySet:
    fetched: float = 0.0
    keys: dict[str, Any] = field(default_factory=dict)


def tool_urls(public_url: str) -> dict[str, str]:
    """What an LMS administrator pastes into the LMS."""
    base = public_url.rstrip("/")
    return {
        "login_url": f"{base}/lti/login",
        "launch_url": f"{base}/lti/launch",
        "deep_linking_url": f"{base}/lti/launch",
        "jwks_url": f"{base}/lti/jwks",
    }


class KeySets:
    """Platforms' public keys by URL: cached, fetched again when stale or on an unknown kid."""

    def __init__(self) -> None:
        self._sets: dict[str, _KeySet] = {}
        self._lock = threading.Lock()

    def key(self, url: str, kid: str) -> Any:
        with self._lock:
            found = self._sets.setdefault(url, _KeySet())
            age = time.monotonic() - found.fetched
            if age > JWKS_REFRESH_S or (kid not in found.keys and age > JWKS_MIN_REFETCH_S):
                found.keys = _fetch_keys(url)
                found.fetched = time.monotonic()
            if kid not in found.keys:
                raise LtiRefused("signature", f"the platform publishes no key {kid!r}")
            return found.keys[kid]


def _fetch_keys(url: str) -> dict[str, Any]:
    try:
        document = get_json(url)
        return {
            key["kid"]: jwt.PyJWK(key).key
            for key in document.get("keys", [])
            if isinstance(key, dict) and "kid" in key
        }
    except (PlatformError, jwt.PyJWKError, AttributeError, ValueError) as exc:
        raise LtiRefused("signature", f"the platform's key set could not be read ({exc})") from exc


class LtiLaunches:
    def __init__(
        self,
        catalog: Catalog,
        store: ProgressStore,
        public_url: str,
        secret: str,
        public_url_set: bool = True,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.public_url = public_url.rstrip("/")
        # Unset (the default address): a launch's own origin is the address it reached.
        self.public_url_set = public_url_set
        # A login writes nothing: its state is signed, and names the platform and the nonce.
        self.states = URLSafeTimedSerializer(secret, salt="gradlab-lti-state")
        self.key_sets = KeySets()
        self.tokens = PlatformTokens(store)
        self.resumes = Resumes(store, secret)

    # --- what the routes ask besides logins and launches -------------------------------------
    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        return jwks(self.store)

    def deep_link_pending(self, raw: object) -> DeepLinkRequest:
        return deep_link_request(raw)

    def deep_link_form(self, raw: object, slugs: list[str]) -> DeepLinkForm:
        """The signed answer to a deep-linking request kept in the instructor's cookie."""
        return response(self.store, self.catalog, deep_link_request(raw), slugs, self.public_url)

    def urls(self) -> dict[str, str]:
        return tool_urls(self.public_url)

    # --- the OIDC login ------------------------------------------------------------------------
    def login(self, params: Mapping[str, str]) -> LoginRedirect:
        try:
            return self._login(params)
        except LtiRefused as refused:
            log.warning("lti: login refused (%s)", refused)
            raise

    def _login(self, params: Mapping[str, str]) -> LoginRedirect:
        issuer, hint = params.get("iss", ""), params.get("login_hint", "")
        if not issuer or not hint:
            raise LtiRefused("login", "iss and login_hint are required")
        platform = self.store.platform(issuer, params.get("client_id") or None)
        if platform is None:
            raise LtiRefused("issuer", f"no platform registered for {issuer!r}")
        deployment = params.get("lti_deployment_id")
        if deployment and deployment not in platform.deployments:
            raise LtiRefused("deployment", f"deployment {deployment!r} is not registered")
        nonce = secrets.token_urlsafe(32)
        state = str(self.states.dumps({"platform": platform.id, "nonce": nonce}))
        query = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": platform.client_id,
            "redirect_uri": f"{self.public_url}/lti/launch",
            "login_hint": hint,
            "state": state,
            "nonce": nonce,
        }
        if "lti_message_hint" in params:
            query["lti_message_hint"] = params["lti_message_hint"]
        separator = "&" if "?" in platform.auth_url else "?"
        return LoginRedirect(platform.auth_url + separator + urllib.parse.urlencode(query), state)

    # --- the launch ----------------------------------------------------------------------------
    def launch(
        self, id_token: str, state: str, browser_state: str | None, reached: str = ""
    ) -> Launched:
        """`reached`: the address the launch request came to (gradlab's own origin when
        GRADLAB_PUBLIC_URL is unset)."""
        try:
            return self.resumes.sealed(self._launch(id_token, state, browser_state, reached))
        except LtiRefused as refused:
            log.warning("lti: launch refused (%s)", refused)
            raise

    def _launch(
        self, id_token: str, state: str, browser_state: str | None, reached: str
    ) -> Launched:
        if browser_state is not None and not secrets.compare_digest(browser_state, state):
            raise LtiRefused("state", "the state is not the one this browser started")
        platform_id, nonce = self._started(state)
        platform = self.store.platform_by_id(platform_id)
        if platform is None:
            raise LtiRefused("issuer", "the platform was removed")
        claims = self.verified_claims(platform, id_token)
        if not secrets.compare_digest(str(claims.get("nonce", "")), nonce):
            raise LtiRefused("nonce", "not the nonce of this login")
        own = own_origin(self.public_url if self.public_url_set else None, reached)
        return self._map(platform, claims, own)

    def _started(self, state: str) -> tuple[int, str]:
        """The platform and nonce of the login this state began; each state is used once."""
        try:
            started = self.states.loads(state, max_age=int(LOGIN_TTL.total_seconds()))
            platform_id, nonce = int(started["platform"]), str(started["nonce"])
        except (BadSignature, KeyError, TypeError, ValueError) as exc:
            raise LtiRefused("state", "unknown or expired") from exc
        if not self.store.spend_state(state, datetime.now(UTC) - LOGIN_TTL):
            raise LtiRefused("state", "already used")
        return platform_id, nonce

    def verified_claims(self, platform: Platform, id_token: str) -> dict[str, Any]:
        claims = self._decoded(platform, id_token)
        _check_lti(platform, claims)
        return claims

    def _decoded(self, platform: Platform, id_token: str) -> dict[str, Any]:
        """The JWT's claims once its signature, issuer, audience and times check out."""
        try:
            header = jwt.get_unverified_header(id_token)
        except jwt.PyJWTError as exc:
            raise LtiRefused("format", "the id_token is not a JWT") from exc
        if header.get("alg") != "RS256" or not header.get("kid"):
            raise LtiRefused("signature", "the id_token must be RS256 with a kid")
        key = self.key_sets.key(platform.jwks_url, str(header["kid"]))
        try:
            claims: dict[str, Any] = jwt.decode(
                id_token,
                key,
                algorithms=["RS256"],
                audience=platform.client_id,
                issuer=platform.issuer,
                leeway=CLOCK_SKEW_S,
                options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise LtiRefused("expiry", "the id_token has expired") from exc
        except jwt.InvalidAudienceError as exc:
            raise LtiRefused("audience", "the id_token is for another client") from exc
        except jwt.InvalidIssuerError as exc:
            raise LtiRefused("issuer", "the id_token is from another issuer") from exc
        except jwt.InvalidSignatureError as exc:
            raise LtiRefused("signature", "the signature does not verify") from exc
        except jwt.PyJWTError as exc:
            raise LtiRefused("token", str(exc)) from exc
        return claims

    # --- who and where -------------------------------------------------------------------------
    def _map(self, platform: Platform, claims: dict[str, Any], own: str) -> Launched:
        learner = self.store.lti_learner(platform.issuer, str(claims["sub"]))
        teaches = _teaches(claims.get(c.ROLES, []))
        class_id = self._course(platform, claims)
        key = self.store.instructor_key(class_id) if class_id and teaches else None
        memberships = (claims.get(c.NRPS) or {}).get("context_memberships_url")
        if key and class_id and isinstance(memberships, str):
            sync_roster(self.store, self.tokens, platform, class_id, memberships)
        if class_id and not teaches:
            self.store.join_class(class_id, learner, display_name(claims, str(claims["sub"])))
        if claims[c.MESSAGE_TYPE] == c.DEEP_LINKING_REQUEST:
            if not teaches:
                raise LtiRefused("role", "only instructors add activities")
            return Launched(learner, class_id, key, None, _deep_link(platform, claims))
        lesson = self._lesson(claims, own)
        ags = claims.get(c.AGS_ENDPOINT) or {}
        if lesson and not teaches and ags.get("lineitem") and c.SCORE_SCOPE in ags.get("scope", []):
            link = GradeLink(platform.id, str(ags["lineitem"]), str(claims["sub"]))
            self.store.set_grade_link(learner, lesson, link)
        return Launched(learner, class_id, key, lesson)

    def _course(self, platform: Platform, claims: dict[str, Any]) -> str | None:
        context = claims.get(c.CONTEXT) or {}
        context_id = str(context.get("id", ""))
        if not context_id:
            return None
        deployment = str(claims[c.DEPLOYMENT_ID])
        class_id = self.store.context_class(platform.id, deployment, context_id)
        if class_id is None:
            name = str(context.get("title") or context.get("label") or "Course")[:120]
            class_id = self.store.create_class(name).info.id
        memberships = (claims.get(c.NRPS) or {}).get("context_memberships_url")
        self.store.link_context(platform.id, deployment, context_id, class_id, memberships)
        return class_id

    def _lesson(self, claims: dict[str, Any], own: str) -> str | None:
        """The first lesson the launch names that exists (app/learning/lti/target.py)."""
        for slug in lesson_candidates(claims, own):
            if self.catalog.get(slug) is not None:
                return slug
        return None


def _check_lti(platform: Platform, claims: dict[str, Any]) -> None:
    """The LTI claims of a verified token: version, deployment, message type, user."""
    audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    if len(audiences) > 1 and claims.get("azp") != platform.client_id:
        raise LtiRefused("audience", "several audiences and no azp naming this client")
    if claims.get(c.VERSION) != "1.3.0":
        raise LtiRefused("version", f"LTI version {claims.get(c.VERSION)!r}")
    if claims.get(c.DEPLOYMENT_ID) not in platform.deployments:
        raise LtiRefused("deployment", f"deployment {claims.get(c.DEPLOYMENT_ID)!r}")
    if claims.get(c.MESSAGE_TYPE) not in (c.RESOURCE_LINK_REQUEST, c.DEEP_LINKING_REQUEST):
        raise LtiRefused("message type", str(claims.get(c.MESSAGE_TYPE)))
    if not claims.get("sub"):
        raise LtiRefused("user", "anonymous launches are not supported")


def _teaches(roles: object) -> bool:
    return isinstance(roles, list) and any(
        isinstance(role, str) and role.endswith(c.TEACHING_ROLES) for role in roles
    )


def _deep_link(platform: Platform, claims: dict[str, Any]) -> DeepLinkRequest:
    settings = claims.get(c.DEEP_LINKING_SETTINGS) or {}
    return_url = settings.get("deep_link_return_url")
    if not isinstance(return_url, str) or not return_url.startswith(("https://", "http://")):
        raise LtiRefused("deep linking", "no deep_link_return_url")
    data = settings.get("data")
    return DeepLinkRequest(
        platform.id, str(claims[c.DEPLOYMENT_ID]), return_url, str(data) if data else None
    )
