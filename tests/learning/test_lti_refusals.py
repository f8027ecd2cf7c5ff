"""LTI 1.3 refusals, one check at a time, against a platform someone else wrote: each forged
or replayed launch is refused with a page that names the check."""

from __future__ import annotations

import time
from typing import Any

import httpx
import jwt
import pytest

from tests.lti_platform import (
    CLIENT_ID,
    DEPLOYMENT,
    ISSUER,
    Pair,
    login_through,
    rsa_pems,
)

pytestmark = pytest.mark.slow


# --- refusals, one check at a time -----------------------------------------------------------


def _token(
    pair: Pair, nonce: str, key: str | None = None, kid: str | None = None, **changes: Any
) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "sub": "someone",
        "iat": now,
        "exp": now + 300,
        "nonce": nonce,
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiResourceLinkRequest",
        "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
        "https://purl.imsglobal.org/spec/lti/claim/deployment_id": DEPLOYMENT,
        "https://purl.imsglobal.org/spec/lti/claim/roles": [],
    }
    claims.update(changes)
    headers = {"kid": kid or pair.platform.registration.get_kid()}
    return jwt.encode(claims, key or pair.platform.private_pem, algorithm="RS256", headers=headers)


def _refused(pair: Pair, browser: httpx.Client, token: str, state: str, check: str) -> None:
    answer = browser.post("/lti/launch", data={"id_token": token, "state": state})
    assert answer.status_code == 400, answer.text
    assert check in answer.text
    assert "Traceback" not in answer.text and token not in answer.text


@pytest.mark.parametrize(
    ("change", "check"),
    [
        ({"aud": "another-client"}, "audience"),
        ({"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "unknown"}, "deployment"),
        ({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}, "expiry"),
        ({"iss": "https://impostor.example"}, "issuer"),
        ({"https://purl.imsglobal.org/spec/lti/claim/version": "1.1"}, "version"),
    ],
)
def test_a_launch_is_refused_for_each_bad_claim(
    pair: Pair, change: dict[str, Any], check: str
) -> None:
    with pair.browser() as browser:
        login = login_through(pair, browser)
        _refused(pair, browser, _token(pair, login["nonce"], **change), login["state"], check)


def test_a_token_signed_with_another_key_is_refused(pair: Pair) -> None:
    other, _ = rsa_pems()
    with pair.browser() as browser:
        login = login_through(pair, browser)
        _refused(
            pair, browser, _token(pair, login["nonce"], key=other), login["state"], "signature"
        )
        login = login_through(pair, browser)
        unknown = _token(pair, login["nonce"], key=other, kid="not-published")
        _refused(pair, browser, unknown, login["state"], "signature")


def test_a_replayed_nonce_or_state_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        first = login_through(pair, browser)
        token = _token(pair, first["nonce"])
        ok = browser.post("/lti/launch", data={"id_token": token, "state": first["state"]})
        assert ok.status_code == 303
        # The same launch again: its state was used.
        _refused(pair, browser, token, first["state"], "state")
        # A new login, the old token (and so the old nonce).
        second = login_through(pair, browser)
        _refused(pair, browser, token, second["state"], "nonce")


def test_a_missing_or_wrong_state_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        login = login_through(pair, browser)
        token = _token(pair, login["nonce"])
        _refused(pair, browser, token, "", "state")
        _refused(pair, browser, token, "made-up-state", "state")
        # This browser started `login`; a state another browser started is not its own.
        with pair.browser() as other:
            theirs = login_through(pair, other)
        _refused(pair, browser, _token(pair, theirs["nonce"]), theirs["state"], "state")


def test_a_login_from_an_unknown_platform_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        answer = browser.get(
            "/lti/login", params={"iss": "https://nope.example", "login_hint": "x"}
        )
        assert answer.status_code == 400 and "issuer" in answer.text


def test_the_key_set_publishes_the_signing_key_and_no_private_part(pair: Pair) -> None:
    keys = httpx.get(f"{pair.tool_url}/lti/jwks").json()["keys"]
    assert keys and all(k["kty"] == "RSA" and k["alg"] == "RS256" for k in keys)
    assert not any("d" in k or "p" in k for k in keys)
