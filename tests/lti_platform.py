"""A real LTI 1.3 platform for the tests: `lti1p3platform` (written by someone else) acting as
the LMS, served over HTTP on loopback, and gradlab served beside it, each fetching the other's
key set as they would across the internet."""

from __future__ import annotations

import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration

from app.config.paths import BUNDLED_LESSONS
from app.learning.lti.keys import signing_key
from app.main import create_app
from tests.conftest import make_settings
from tests.live import free_port

ISSUER = "https://lms.example.test"
CLIENT_ID = "gradlab-client"
DEPLOYMENT = "deployment-1"
CONTEXT_ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def rsa_pems() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


class ThreadServer:
    """An ASGI app served by uvicorn in a thread, on a free loopback port."""

    def __init__(self, app: Any) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@dataclass
class Launch:
    """What the platform's next launch says: who, in which course, what message."""

    user: str = "student-1"
    roles: list[str] = field(default_factory=lambda: [CONTEXT_ROLE + "Learner"])
    name: str = "Ada Lovelace"
    lesson: str | None = "what-is-grad"
    deep_linking: bool = False
    # The target_link_uri claim; unset: the launch URL the tool registered.
    target: str | None = None


class Platform:
    """The LMS: its registration of gradlab, its endpoints, and what it received."""

    def __init__(self, tool_url: str) -> None:
        self.private_pem, self.public_pem = rsa_pems()
        self.next = Launch()
        self.down = False
        self.scores: list[dict[str, Any]] = []
        self.tokens_issued = 0
        self.deep_link_items: list[dict[str, Any]] = []
        self.members: list[dict[str, Any]] = []  # the course's roster (NRPS)
        self.tool_url = tool_url
        self.server = ThreadServer(self._app())
        self.url = self.server.url
        self.registration = (
            Registration()
            .set_iss(ISSUER)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT)
            .set_oidc_login_url(f"{tool_url}/lti/login")
            .set_launch_url(f"{tool_url}/lti/launch")
            .set_deeplink_launch_url(f"{tool_url}/lti/launch")
            .set_tool_key_set_url(f"{tool_url}/lti/jwks")
            .set_platform_public_key(self.public_pem)
            .set_platform_private_key(self.private_pem)
        )
        self.lineitem = f"{self.url}/courses/c1/lineitems/7/lineitem"

    def config(self) -> LTI1P3PlatformConfAbstract:
        platform = self

        class Config(LTI1P3PlatformConfAbstract):
            def init_platform_config(self, **kwargs: Any) -> None:
                pass

            def get_registration_by_params(self, **kwargs: Any) -> Registration:
                return platform.registration

        config = Config()
        config.get_registration()
        return config

    # --- what a browser does between the two -----------------------------------------------
    def login_url(self) -> str:
        platform = self

        class Login(OIDCLoginAbstract):
            def set_lti_message_hint(self, **kwargs: Any) -> None:
                self._lti_message_hint = "resource-link-1"

            def get_redirect(self, url: str) -> Any:
                return url

        login = Login(None, platform.config())
        login.set_lti_message_hint()
        return str(login.prepare_preflight_url(platform.next.user))

    def launch(self, tool: httpx.Client) -> httpx.Response:
        """The whole dance, as a browser does it: the LMS's login URL, the tool's redirect to
        the LMS, the LMS's form posted to the tool. Returns the tool's answer to the launch."""
        to_tool = tool.get(self.login_url())
        assert to_tool.status_code == 302, to_tool.text
        form = httpx.get(to_tool.headers["location"]).json()
        return tool.post(form["launch_url"], data={k: form[k] for k in ("id_token", "state")})

    def authorized(self, request: Request, scope: str) -> bool:
        """Does the request carry an access token this platform issued, for `scope`?"""
        bearer = request.headers.get("authorization", "").removeprefix("Bearer ")
        return bool(self.config().validate_token(bearer, allowed_scopes=[scope]))

    # --- the platform's endpoints ----------------------------------------------------------
    def _app(self) -> FastAPI:
        app = FastAPI()
        platform = self

        @app.get("/jwks")
        def jwks() -> JSONResponse:
            return JSONResponse({"keys": platform.registration.get_jwks()})

        @app.get("/auth")
        def auth(request: Request) -> JSONResponse:
            return JSONResponse(platform._message(dict(request.query_params)))

        @app.post("/token")
        async def token(request: Request) -> JSONResponse:
            if platform.down:
                return JSONResponse({"error": "down"}, status_code=503)
            form = dict(urllib.parse.parse_qsl((await request.body()).decode()))
            platform.tokens_issued += 1
            return JSONResponse(dict(platform.config().get_access_token(form)))

        @app.post("/courses/c1/lineitems/7/lineitem/scores")
        async def scores(request: Request) -> Response:
            if platform.down:
                return Response(status_code=503)
            if not platform.authorized(request, SCORE_SCOPE):
                return Response(status_code=401)
            assert request.headers["content-type"] == "application/vnd.ims.lis.v1.score+json"
            platform.scores.append(await request.json())
            return Response(status_code=200)

        self._roster_routes(app)

        @app.post("/deep-link-return")
        async def deep_link_return(request: Request) -> JSONResponse:
            form = dict(urllib.parse.parse_qsl((await request.body()).decode()))
            items = platform.config().validate_deeplinking_resp(form)
            platform.deep_link_items.extend(items)
            return JSONResponse({"accepted": len(items)})

        return app

    def _roster_routes(self, app: FastAPI) -> None:
        platform = self

        @app.get("/courses/c1/memberships")
        def memberships(request: Request) -> Response:
            if not platform.authorized(request, NRPS_SCOPE):
                return Response(status_code=401)
            body = {
                "id": f"{platform.url}/courses/c1/memberships",
                "context": {"id": "course-42", "title": "Deep Learning 101"},
                "members": platform.members,
            }
            media = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
            return JSONResponse(body, media_type=media)

    def _message(self, preflight: dict[str, str]) -> dict[str, str]:
        platform = self
        launch_spec = self.next

        class Message(LTIAdvantageMessageLaunchAbstract):
            def get_preflight_response(self) -> dict[str, Any]:
                return preflight

            def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> Any:
                return launch_data

        message = Message(None, platform.config())
        if launch_spec.target is not None:
            message.set_launch_url(launch_spec.target)
        message.set_user_data(launch_spec.user, launch_spec.roles, full_name=launch_spec.name)
        message.set_launch_context_claim("course-42", context_title="Deep Learning 101")
        message.set_resource_link_claim("resource-link-1", title="A lesson")
        if launch_spec.lesson:
            message.set_custom_parameters_claim({"lesson": launch_spec.lesson})
        message.set_ags(lineitems_url=None, lineitem_url=platform.lineitem)
        message.set_nrps(f"{platform.url}/courses/c1/memberships")
        if launch_spec.deep_linking:
            message.set_dl(f"{platform.url}/deep-link-return", accept_types={"ltiResourceLink"})
        launched: dict[str, str] = message.lti_launch()
        return launched

    def stop(self) -> None:
        self.server.stop()


# --- gradlab beside the platform ---------------------------------------------------------


class Pair:
    def __init__(self) -> None:
        self.app = create_app(make_settings(lessons_dir=BUNDLED_LESSONS))
        self.tool = ThreadServer(self.app)
        # The tool learns its own address once it has a port, as GRADLAB_PUBLIC_URL says it.
        self.tool_url = self.tool.url
        self.app.state.learning.lti.public_url = self.tool_url
        self.app.state.learning.lti.public_url_set = True
        self.platform = Platform(self.tool_url)
        store = self.app.state.store
        store.add_platform(
            ISSUER,
            CLIENT_ID,
            [DEPLOYMENT],
            f"{self.platform.url}/auth",
            f"{self.platform.url}/token",
            f"{self.platform.url}/jwks",
        )
        signing_key(store)

    def browser(self) -> httpx.Client:
        return httpx.Client(base_url=self.tool_url, follow_redirects=False, timeout=30)

    def stop(self) -> None:
        self.platform.stop()
        self.tool.stop()


def launch_through(pair: Pair, browser: httpx.Client) -> httpx.Response:
    """A launch as a browser that keeps its cookies: the launch, then the page that checks the
    cookie came back. Returns that page's answer."""
    launched = pair.platform.launch(browser)
    assert launched.status_code == 303, launched.text
    assert launched.headers["location"].startswith("/lti/landed?")
    return browser.get(launched.headers["location"])


def wait_until(predicate: Any, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def login_through(pair: Pair, browser: httpx.Client) -> dict[str, str]:
    """A real login through gradlab; returns its redirect's parameters (state, nonce)."""
    to_platform = browser.get(pair.platform.login_url())
    query = httpx.URL(to_platform.headers["location"]).params
    return {"state": query["state"], "nonce": query["nonce"]}
