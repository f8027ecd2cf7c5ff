"""LTI 1.3: the OIDC login, the launch, deep linking, gradlab's key set and its configuration
page. Each route parses, calls the core once, and answers; refusals are pages (errors.py)."""

from __future__ import annotations

import dataclasses
import json
import urllib.parse

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.learning import Launched
from app.routes.deps import INSTRUCTOR_KEY, LEARNER_KEY, LearningDep, WriterDep, read
from app.web.templates import render

router = APIRouter(tags=["lti"])
STATE_COOKIE = "gradlab_lti_state"
DEEP_LINK_KEY = "lti_deep_link"
CHECK_KEY = "lti_check"  # the launch's check: /lti/landed sees whether the cookie came back
# The routes a course platform posts to from its own site: the only ones the cross-site check
# (app/web/cross_site.py) lets through, by these names; their signed state and id_token hold them.
PLATFORM_POSTS = ("lti_login", "lti_launch")


async def _params(request: Request) -> dict[str, str]:
    """A login's parameters: the query (GET) or the form (POST)."""
    if request.method == "POST":
        body = (await request.body()).decode(errors="replace")
        return dict(urllib.parse.parse_qsl(body))
    return dict(request.query_params)


@router.api_route("/lti/login", methods=["GET", "POST"], include_in_schema=False)
async def lti_login(request: Request, learning: LearningDep, write: WriterDep) -> Response:
    """OIDC third-party initiated login: redirect to the platform with a state and a nonce."""
    redirect = await write(learning.lti.login, await _params(request))
    answer = RedirectResponse(redirect.url, status_code=302)
    secure = request.app.state.settings.cookie_secure
    answer.set_cookie(
        STATE_COOKIE,
        redirect.state,
        max_age=600,
        path="/lti",
        httponly=True,
        secure=secure,
        samesite="none" if secure else "lax",
    )
    return answer


@router.post("/lti/launch", include_in_schema=False)
async def lti_launch(request: Request, learning: LearningDep, write: WriterDep) -> Response:
    """The platform posts the id_token here: check it, then land the user where they belong."""
    form = await _params(request)
    launched = await write(
        learning.lti.launch,
        form.get("id_token", ""),
        form.get("state", ""),
        request.cookies.get(STATE_COOKIE),
        str(request.base_url),
    )
    _sign_in(request, launched)
    request.session[CHECK_KEY] = launched.check
    answer = RedirectResponse(launched.landed_url, status_code=303)
    answer.delete_cookie(STATE_COOKIE, path="/lti")
    return answer


def _sign_in(request: Request, launched: Launched) -> None:
    """The session a launch gives: the learner, the instructor's key, the deep-link request."""
    request.session[LEARNER_KEY] = launched.learner
    if launched.instructor_key and launched.class_id:
        keys = dict(request.session.get(INSTRUCTOR_KEY) or {})
        request.session[INSTRUCTOR_KEY] = {**keys, launched.class_id: launched.instructor_key}
    if launched.deep_link is not None:
        request.session[DEEP_LINK_KEY] = dataclasses.asdict(launched.deep_link)


@router.get("/lti/landed", response_class=HTMLResponse, include_in_schema=False)
async def lti_landed(
    request: Request, learning: LearningDep, to: str = "", c: str = ""
) -> Response:
    """After a launch: on to the landing if the cookie came back, else the way round it."""
    landed = await read(
        learning, learning.lti.resumes.landed, to, c, request.session.get(CHECK_KEY)
    )
    if landed.resume is None:
        return RedirectResponse(landed.to, status_code=303)
    return render(request, "lti/blocked.html", resume=landed.resume)


@router.get("/lti/resume/{token}", response_class=HTMLResponse, include_in_schema=False)
async def lti_resume(request: Request, learning: LearningDep, token: str) -> HTMLResponse:
    """The launch's session, offered in a window of its own (where the cookie is first-party):
    a page that asks before this browser becomes the launch's learner, and says so when it is
    someone else now. A GET changes nothing; the page's button posts."""
    launched = await read(learning, learning.lti.resumes.resumed, token)
    current = request.session.get(LEARNER_KEY)
    switching = current is not None and current != launched.learner
    return render(request, "lti/resume.html", token=token, switching=switching)


@router.post("/lti/resume/{token}", include_in_schema=False)
async def lti_resume_confirmed(request: Request, learning: LearningDep, token: str) -> Response:
    """The learner asked for it on the resume page: sign this browser in as the launch did."""
    launched = await read(learning, learning.lti.resumes.resumed, token)
    _sign_in(request, launched)
    return RedirectResponse(launched.landing, status_code=303)


@router.get("/lti/jwks", include_in_schema=False)
async def lti_jwks(learning: LearningDep) -> Response:
    """gradlab's public keys, for platforms to verify what it signs."""
    return Response(
        json.dumps(await read(learning, learning.lti.jwks)), media_type="application/json"
    )


@router.get("/lti/deep-link", response_class=HTMLResponse, include_in_schema=False)
async def deep_link_page(request: Request, learning: LearningDep) -> HTMLResponse:
    """The instructor picks the lessons to add to their course."""
    pending = await read(
        learning, learning.lti.deep_link_pending, request.session.get(DEEP_LINK_KEY)
    )
    return render(request, "lti/deep_link.html", lessons=learning.catalog.lessons, pending=pending)


@router.post("/lti/deep-link", response_class=HTMLResponse, include_in_schema=False)
async def deep_link_return(
    request: Request, learning: LearningDep, write: WriterDep
) -> HTMLResponse:
    """Sign the picked lessons and post them back to the LMS."""
    picked = [
        v for k, v in urllib.parse.parse_qsl((await request.body()).decode()) if k == "lesson"
    ]
    form = await write(learning.lti.deep_link_form, request.session.get(DEEP_LINK_KEY), picked)
    request.session.pop(DEEP_LINK_KEY, None)
    return render(request, "lti/deep_link_return.html", form=form)


@router.get("/lti/config", response_class=HTMLResponse, include_in_schema=False)
async def lti_config(request: Request, learning: LearningDep) -> HTMLResponse:
    """What to paste into the LMS: the addresses the tool uses (under GRADLAB_PUBLIC_URL, which
    its launches check). Unset, the page says so and names the address it was reached at."""
    settings = request.app.state.settings
    unset = None if settings.public_url_given else settings.public_url
    reached = str(request.base_url).rstrip("/")
    return render(
        request, "lti/config.html", urls=learning.lti.urls(), unset=unset, reached=reached
    )
