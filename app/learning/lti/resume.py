"""A launch whose cookie the browser blocked. The launch happens inside the course page's frame,
where a browser that blocks third-party cookies drops gradlab's session cookie: the landing page
would meet a stranger. So a launch sends the browser to `/lti/landed` first, with a signed token
that holds a random check also kept in the session. When the session comes back holding that
check, the browser goes on to the landing at once; when it does not, the page offers the token
as a link that opens gradlab in a window of its own, where the cookie is first-party.

The link opens a page that asks before it signs the browser in (app/routes/lti.py), and says so
when the browser holds another learner now: only the page's button, a POST from gradlab's own
page, switches it. The token is a bearer link for RESUME_TTL_S: whoever holds it in that time
and presses the button opens the learner's session. It is signed with its own salt, so no
other signed value of gradlab's passes for it, and it holds no secret: an instructor's class
key is read again from the store on resume, so that it never travels in a URL (and so never
reaches an access log).
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.learning.lti.messages import Launched, LtiRefused, deep_link_request
from app.progress.store import ProgressStore

RESUME_TTL_S = 120  # long enough to read a page and press its button, short enough for a bearer


@dataclass(frozen=True)
class Landed:
    """Where `/lti/landed` sends the browser: on to `to`, or, when the cookie did not come
    back, nowhere yet: it shows the `resume` link."""

    to: str
    resume: str | None


def local_path(to: str) -> str:
    """`to`, if it is a path on this site; anything a browser could read as another site (a
    scheme, `//host`, a backslash, a control character or space it would drop) is refused."""
    if (
        not to.startswith("/")
        or to.startswith("//")
        or "\\" in to
        or any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in to)
    ):
        raise LtiRefused("landing", "the page to land on is not a page of this site")
    return to


class Resumes:
    def __init__(self, store: ProgressStore, secret: str) -> None:
        self.store = store
        self.tokens = URLSafeTimedSerializer(secret, salt="gradlab-lti-resume")

    def sealed(self, launched: Launched) -> Launched:
        """The launch with its check and its resume token."""
        check = secrets.token_urlsafe(16)
        deep_link = launched.deep_link
        token = self.tokens.dumps(
            {
                "learner": launched.learner,
                "class": launched.class_id,
                "teaches": launched.instructor_key is not None,
                "lesson": launched.lesson,
                "deep_link": None if deep_link is None else dataclasses.asdict(deep_link),
                "check": check,
            }
        )
        return dataclasses.replace(launched, check=check, resume=str(token))

    def landed(self, to: str, token: str, session_check: object) -> Landed:
        """On to `to` when the session holds the token's check; else the resume link."""
        to = local_path(to)
        check = str(self._payload(token).get("check", ""))
        if (
            isinstance(session_check, str)
            and check
            and secrets.compare_digest(session_check, check)
        ):
            return Landed(to, None)
        return Landed(to, f"/lti/resume/{token}")

    def resumed(self, token: str) -> Launched:
        """The launch the token was made for, to sign the learner in as the launch did."""
        held = self._payload(token)
        try:
            learner, class_id = str(held["learner"]), held["class"]
            class_id = None if class_id is None else str(class_id)
            lesson = None if held["lesson"] is None else str(held["lesson"])
            raw_link = held["deep_link"]
            teaches = held["teaches"] is True
        except (KeyError, TypeError) as exc:
            raise LtiRefused("resume", "the link is unreadable") from exc
        key = self.store.instructor_key(class_id) if teaches and class_id else None
        deep_link = None if raw_link is None else deep_link_request(raw_link)
        launched = Launched(learner, class_id, key, lesson, deep_link)
        local_path(launched.landing)
        return launched

    def _payload(self, token: str) -> dict[str, Any]:
        try:
            held = self.tokens.loads(token, max_age=RESUME_TTL_S)
        except BadSignature as exc:  # expired ones too (SignatureExpired is a BadSignature)
            raise LtiRefused(
                "resume", "the link is unknown or has expired: open the activity again"
            ) from exc
        if not isinstance(held, dict):
            raise LtiRefused("resume", "the link is unreadable")
        return held
