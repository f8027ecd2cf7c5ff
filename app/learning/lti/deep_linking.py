"""Deep linking: an instructor picks lessons in gradlab, and gradlab hands them back to the
LMS as LTI resource links, each with a line item for its grade, in a JWT it signs."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from app.learning.lti import claims as c
from app.learning.lti.keys import sign
from app.learning.lti.messages import DeepLinkRequest, LtiRefused
from app.lessons.loader import Catalog
from app.progress.lti_store import LtiRecords

RESPONSE_TTL_S = 300


@dataclass(frozen=True)
class DeepLinkForm:
    """The form the browser posts back to the LMS."""

    return_url: str
    jwt: str


def content_items(catalog: Catalog, slugs: list[str], launch_url: str) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for slug in slugs:
        lesson = catalog.get(slug)
        if lesson is None:
            raise LtiRefused("deep linking", f"no lesson {slug!r}")
        items.append(
            {
                "type": "ltiResourceLink",
                "title": lesson.title,
                "text": lesson.summary,
                "url": launch_url,
                "custom": {"lesson": slug},
                # The grade: the share of the lesson's questions right at the first try.
                "lineItem": {"scoreMaximum": 1, "label": lesson.title, "resourceId": slug},
            }
        )
    return items


def response(
    store: LtiRecords, catalog: Catalog, request: DeepLinkRequest, slugs: list[str], public_url: str
) -> DeepLinkForm:
    if not slugs:
        raise LtiRefused("deep linking", "pick at least one lesson")
    platform = store.platform_by_id(request.platform_id)
    if platform is None:
        raise LtiRefused("issuer", "the platform was removed")
    now = int(time.time())
    message: dict[str, object] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": now,
        "exp": now + RESPONSE_TTL_S,
        "nonce": secrets.token_urlsafe(16),
        c.MESSAGE_TYPE: c.DEEP_LINKING_RESPONSE,
        c.VERSION: "1.3.0",
        c.DEPLOYMENT_ID: request.deployment_id,
        c.CONTENT_ITEMS: content_items(catalog, slugs, f"{public_url.rstrip('/')}/lti/launch"),
    }
    if request.data is not None:
        message[c.DL_DATA] = request.data
    token = sign(store, message)
    return DeepLinkForm(request.return_url, token)
