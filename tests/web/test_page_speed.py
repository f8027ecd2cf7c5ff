"""The cached template `url_for` gives exactly what Starlette's gives."""

from __future__ import annotations

from fastapi.testclient import TestClient
from starlette.requests import Request

from app.web.page_speed import cached_url_for


def test_cached_url_for_matches_starlette(sqlite_client: TestClient) -> None:
    app = sqlite_client.app
    scope = {
        "type": "http",
        "app": app,
        "router": app.router,  # type: ignore[attr-defined]
        "scheme": "http",
        "server": ("testserver", 80),
        "root_path": "/prefix",
        "path": "/",
        "headers": [(b"host", b"testserver")],
        "query_string": b"",
        "method": "GET",
    }
    request = Request(scope)
    calls = [
        ("static", {"path": "css/site.css"}),
        ("catalog_page", {}),
        ("lesson_page", {"slug": "first-steps"}),
        ("mode_page", {"slug": "first-steps", "mode": "flashcards"}),
    ]
    for _ in range(2):  # the second time from the cache
        for name, params in calls:
            expected = request.url_for(name, **params)
            assert cached_url_for({"request": request}, name, **params) == expected
            assert str(expected).startswith("http://testserver/prefix/")
    # Another host (or scheme, or root path) never gets a link cached for the first one.
    other = Request({**scope, "headers": [(b"host", b"elsewhere.example")], "scheme": "https"})
    link = cached_url_for({"request": other}, "catalog_page")
    assert str(link) == "https://elsewhere.example/prefix/" == str(other.url_for("catalog_page"))
