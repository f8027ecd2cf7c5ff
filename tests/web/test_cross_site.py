"""The cross-site check (app/web/cross_site.py): which headers pass and which are refused, as Go's
CrossOriginProtection decides it; gradlab's own hosts behind a proxy; the exempt LTI routes; the
refusal's form. Every route is posted to cross-site in tests/routes/test_cross_site_writes.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web.cross_site import host_of, refusal
from tests.conftest import make_settings

PASS = [
    {},  # no browser's page: curl, a script
    {"sec-fetch-site": "same-origin"},
    {"sec-fetch-site": "none"},  # typed, a bookmark
    {"sec-fetch-site": "Same-Origin"},
    {"sec-fetch-site": "same-origin", "origin": "https://evil.example"},  # the browser's word
    {"origin": "http://gradlab.example", "host": "gradlab.example"},
    {"origin": "https://gradlab.example", "host": "gradlab.example:443"},
    {"origin": "http://gradlab.example:8000", "host": "gradlab.example:8000"},
    {"origin": "HTTP://GRADLAB.example", "host": "gradlab.example"},
    {"origin": "http://[::1]:8000", "host": "[::1]:8000"},
]
REFUSED = [
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},  # a sibling subdomain is another origin
    {"sec-fetch-site": "cross-site", "origin": "http://gradlab.example"},
    {"sec-fetch-site": "nonsense"},
    {"origin": "https://evil.example", "host": "gradlab.example"},
    {"origin": "http://gradlab.example:8001", "host": "gradlab.example:8000"},
    {"origin": "http://gradlab.example.evil.example", "host": "gradlab.example"},
    {"origin": "null", "host": "gradlab.example"},
    {"origin": "", "host": "gradlab.example"},
    {"origin": "chrome-extension://gradlab.example", "host": "gradlab.example"},
    {"origin": "http://gradlab.example:99999", "host": "gradlab.example"},
    {"origin": "https://evil.example"},  # and no Host to compare with
]


@pytest.mark.parametrize("headers", PASS, ids=str)
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_a_write_from_the_site_itself_passes(method: str, headers: dict[str, str]) -> None:
    assert refusal(method, headers) is None


@pytest.mark.parametrize("headers", REFUSED, ids=str)
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "post"])
def test_a_write_from_another_site_is_refused(method: str, headers: dict[str, str]) -> None:
    refused = refusal(method, headers)
    assert refused is not None and refused.status == 403
    assert refused.slug == "cross-site-request" and "nothing was changed" in refused.detail


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_a_read_is_never_refused(method: str) -> None:
    assert refusal(method, {"sec-fetch-site": "cross-site", "origin": "null"}) is None


def test_gradlabs_other_hosts_pass_only_for_an_origin_without_sec_fetch_site() -> None:
    behind = {"origin": "https://gradlab.example", "host": "10.0.0.7:8000"}
    assert refusal("POST", behind) is not None
    assert refusal("POST", behind, ["gradlab.example"]) is None
    assert refusal("POST", {**behind, "sec-fetch-site": "cross-site"}, ["gradlab.example"])


def test_the_host_of_an_origin() -> None:
    assert host_of("https://A.example:443") == "a.example"
    assert host_of("http://a.example:443") == "a.example:443"
    assert host_of("http://[::1]:80") == "[::1]"
    for nothing in ("null", "", "a.example", "ftp://a.example", "http://", "http://a:x"):
        assert host_of(nothing) is None


# --- through the app ------------------------------------------------------------------------


@pytest.fixture
def app_client() -> Iterator[TestClient]:
    with TestClient(create_app(make_settings())) as client:
        yield client


def test_the_api_is_refused_with_problem_details_and_a_page_with_the_error_page(
    app_client: TestClient,
) -> None:
    foreign = {"Sec-Fetch-Site": "cross-site"}
    api = app_client.post("/api/progress/reset", headers=foreign)
    assert api.status_code == 403
    assert api.headers["content-type"] == "application/problem+json"
    assert api.json()["type"] == "/problems/cross-site-request"
    assert "Sec-Fetch-Site: cross-site" in api.json()["detail"]
    page = app_client.post("/progress/reset", headers=foreign, follow_redirects=False)
    assert page.status_code == 403 and page.headers["content-type"].startswith("text/html")
    assert "A request from another site was refused" in page.text
    for answer in (api, page):  # the refusal went through the stack: headers, request id
        assert "frame-ancestors" in answer.headers["content-security-policy"]
        assert answer.headers["x-request-id"]
        assert "set-cookie" not in answer.headers


def test_a_refused_write_is_not_read_not_even_its_size(app_client: TestClient) -> None:
    huge = b"x" * (2 * 1024 * 1024)
    answer = app_client.post(
        "/api/progress/reset", content=huge, headers={"Origin": "https://evil.example"}
    )
    assert answer.status_code == 403  # not 413: refused before the body limit reads it


def test_only_the_platforms_lti_routes_are_exempt(app_client: TestClient) -> None:
    foreign = {"Sec-Fetch-Site": "cross-site", "Origin": "https://lms.example"}
    login = app_client.post("/lti/login", data={"iss": "x"}, headers=foreign)
    launch = app_client.post("/lti/launch", data={"id_token": "x"}, headers=foreign)
    for answer in (login, launch):  # their own checks answer: nothing registered, no state
        assert answer.status_code == 400 and "The check that failed" in answer.text
    for path in ("/lti/deep-link", "/lti/resume/x", "/lti/launch/", "/lti/launchx"):
        assert app_client.post(path, headers=foreign).status_code == 403, path


@pytest.mark.parametrize("trusted", [True, False])
def test_a_proxys_forwarded_host_counts_only_behind_trusted_proxies(trusted: bool) -> None:
    settings = make_settings(trusted_proxies="127.0.0.1" if trusted else "")
    with TestClient(create_app(settings), base_url="http://10.0.0.7:8000") as client:
        headers = {"Origin": "https://gradlab.example", "X-Forwarded-Host": "gradlab.example"}
        answer = client.post("/api/progress/reset", headers=headers)
        assert answer.status_code == (204 if trusted else 403)


def test_the_public_url_is_gradlabs_own_origin() -> None:
    settings = make_settings(public_url="https://gradlab.example/")
    with TestClient(create_app(settings), base_url="http://10.0.0.7:8000") as client:
        mine = client.post("/api/progress/reset", headers={"Origin": "https://gradlab.example"})
        assert mine.status_code == 204
        for other in ("https://gradlab.example:8443", "https://evil.example"):
            answer = client.post("/api/progress/reset", headers={"Origin": other})
            assert answer.status_code == 403, other


def test_the_api_document_lists_the_refusal_on_every_operation_that_writes(
    app_client: TestClient,
) -> None:
    paths = app_client.get("/openapi.json").json()["paths"]
    writes = 0
    for path, operations in paths.items():
        for method, operation in operations.items():
            listed = operation["responses"].get("403", {}).get("description", "")
            if method.upper() in ("GET", "HEAD", "OPTIONS"):
                assert "cross-site-request" not in listed, (method, path)
            else:
                writes += 1
                assert "/problems/cross-site-request" in listed, (method, path)
    assert writes >= 20
