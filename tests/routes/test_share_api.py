"""Share links over HTTP, on SQLite and PostgreSQL: made once and never changed, unguessable,
deleted by their author only, limited per learner and per address, text everywhere, expiring
after GRADLAB_SHARE_DAYS unviewed, counted in /metrics, and managed with `gradlab shares`."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select, update

from app.cli import main as cli
from app.learning.shares import new_share_id
from app.main import create_app
from app.progress.models.shares import Share
from tests.conftest import make_settings

CODE = "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
MARKUP = "</script><img src=x onerror=alert(1)>"
TOKEN = secrets.token_urlsafe(24)


def _client(migrated_url: str, **settings: Any) -> TestClient:
    return TestClient(create_app(make_settings(database_url=migrated_url, **settings)))


@pytest.fixture
def client(migrated_url: str) -> Iterator[TestClient]:
    with _client(migrated_url, metrics_token=TOKEN) as test_client:
        yield test_client


def _share(client: TestClient, code: str = CODE, **extra: Any) -> str:
    response = client.post("/api/shares", json={"code": code, **extra})
    assert response.status_code == 201, response.text
    share_id: str = response.json()["id"]
    assert response.json()["url"] == f"http://testserver/s/{share_id}"
    return share_id


def _stranger(client: TestClient) -> TestClient:
    """Another browser on the same server: no cookie."""
    return TestClient(client.app)


class _Page(HTMLParser):
    """The tags and text of a page, as a browser would parse them."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def meta(self, key: str) -> str | None:
        for tag, attrs in self.tags:
            if tag == "meta" and key in (attrs.get("property"), attrs.get("name")):
                return attrs.get("content")
        return None


def test_a_share_shows_its_code_and_its_lesson(client: TestClient) -> None:
    share_id = _share(client, lesson="first-steps", step=1)
    assert len(share_id) >= 16  # token_urlsafe(12): 96 random bits
    page = _stranger(client).get(f"/s/{share_id}")
    assert page.status_code == 200
    parsed = _Page(page.text)
    assert "x = torch.ones(2, requires_grad=True)" in "".join(parsed.text)
    assert ("a", {"href": "http://testserver/lessons/first-steps#step-1"}) in parsed.tags
    assert parsed.meta("og:title") == "Shared from “First steps with .grad”"
    assert parsed.meta("og:description") == " ".join(CODE.split())
    copy = _stranger(client).get(f"/playground?share={share_id}")
    assert copy.status_code == 200 and "requires_grad=True)\n(x * 3)" in copy.text


def test_a_share_never_changes_and_each_share_is_new(client: TestClient) -> None:
    first, second = _share(client), _share(client)
    assert first != second
    for method in ("put", "patch"):
        answer = client.request(method.upper(), f"/api/shares/{first}", json={"code": "1"})
        assert answer.status_code == 405
    assert client.post(f"/api/shares/{first}", json={"code": "1"}).status_code == 405
    pages = [client.get(f"/s/{first}").text for _ in range(2)]
    assert pages[0].count("requires_grad") == pages[1].count("requires_grad") > 0
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        codes = connection.execute(select(Share.code).where(Share.id == first)).scalars().all()
    assert codes == [CODE]


def test_markup_in_the_code_is_text_on_the_page_and_in_the_preview(client: TestClient) -> None:
    share_id = _share(client, code=MARKUP)
    page = client.get(f"/s/{share_id}").text
    parsed = _Page(page)
    assert not [tag for tag, _ in parsed.tags if tag == "img"]
    assert MARKUP not in page  # never raw, anywhere in the HTML
    assert parsed.meta("og:description") == MARKUP
    assert parsed.meta("description") == MARKUP
    assert MARKUP in "".join(parsed.text)
    copy = client.get(f"/playground?share={share_id}").text
    assert MARKUP not in copy and not [t for t, _ in _Page(copy).tags if t == "img"]


def test_unknown_and_deleted_shares_are_a_clear_404(client: TestClient) -> None:
    page = client.get("/s/no-such-share-here")
    assert page.status_code == 404
    assert "no shared snippet at this link" in page.text
    assert client.get("/playground?share=no-such-share").status_code == 404
    assert client.get("/s/" + "x" * 200).status_code == 404
    assert client.delete("/api/shares/nope").status_code == 404
    assert client.post("/api/shares/nope/views").status_code == 404


def test_only_the_author_deletes_a_share(client: TestClient) -> None:
    share_id = _share(client)
    stranger = _stranger(client)
    stranger.get("/playground")  # a cookie of its own
    assert stranger.delete(f"/api/shares/{share_id}").status_code == 404
    assert _stranger(client).delete(f"/api/shares/{share_id}").status_code == 404  # no cookie
    assert "Delete this share" not in stranger.get(f"/s/{share_id}").text
    assert "Delete this share" in client.get(f"/s/{share_id}").text
    assert client.delete(f"/api/shares/{share_id}").status_code == 204
    assert client.get(f"/s/{share_id}").status_code == 404
    assert client.delete(f"/api/shares/{share_id}").status_code == 404


def test_the_share_names_no_learner(client: TestClient) -> None:
    client.post("/api/lessons/first-steps/myths/1/answer", json={"answer": "yes"})
    _share(client)
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        row = connection.execute(select(Share)).one()
        learner = connection.exec_driver_sql("SELECT id FROM learners").scalar_one()
    assert not [value for value in row if learner in str(value)]
    # A keyed hash: not the plain hash of the id, which anyone could compute.
    assert row.author_key != hashlib.sha256(learner.encode()).hexdigest()


def test_bad_input(client: TestClient) -> None:
    too_big = "x = 1\n" * 4000  # 24 000 bytes, over the default 20 000
    assert client.post("/api/shares", json={"code": too_big}).status_code == 413
    malformed = client.post(
        "/api/shares", content=b'{"code": ', headers={"Content-Type": "application/json"}
    )
    # Malformed JSON is a 400 everywhere in the API (docs/http-contract.md), shares included.
    assert malformed.status_code == 400
    assert malformed.json()["type"] == "/problems/malformed-json"
    assert client.post("/api/shares", json={"lesson": "first-steps"}).status_code == 422
    assert client.post("/api/shares", json={"code": "1", "lesson": "nope"}).status_code == 404
    answer = client.post("/api/shares", json={"code": "1", "lesson": "first-steps", "step": 99})
    assert answer.status_code == 404


def test_shares_per_learner_per_hour(migrated_url: str) -> None:
    with _client(migrated_url, shares_per_hour=2) as client:
        _share(client), _share(client)
        refused = client.post("/api/shares", json={"code": CODE})
        assert refused.status_code == 429
        assert 3500 <= int(refused.headers["Retry-After"]) <= 3601
        fresh = _stranger(client)  # another learner, same address: still welcome
        assert fresh.post("/api/shares", json={"code": CODE}).status_code == 201


def test_shares_per_address_per_hour(migrated_url: str) -> None:
    with _client(migrated_url, shares_per_address_per_hour=2) as client:
        _share(client)
        assert _stranger(client).post("/api/shares", json={"code": "1"}).status_code == 201
        refused = _stranger(client).post("/api/shares", json={"code": "1"})
        assert refused.status_code == 429
        assert 3500 <= int(refused.headers["Retry-After"]) <= 3601


def _age(client: TestClient, share_id: str, days: float) -> None:
    """Pretend the share was last viewed `days` ago."""
    moment = datetime.now(UTC) - timedelta(days=days)
    with client.app.state.store.writing() as connection:  # type: ignore[attr-defined]
        connection.execute(
            update(Share).where(Share.id == share_id).values(last_viewed=moment, created_at=moment)
        )


def _last_viewed(client: TestClient, share_id: str) -> datetime:
    with client.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        moment: datetime = connection.execute(
            select(Share.last_viewed).where(Share.id == share_id)
        ).scalar_one()
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_unviewed_shares_expire_and_views_keep_them(migrated_url: str) -> None:
    with _client(migrated_url, share_days=3) as client:
        kept, dropped = _share(client), _share(client)
        _age(client, kept, 2.5), _age(client, dropped, 3.5)
        before = _last_viewed(client, kept)
        assert client.get(f"/s/{kept}").status_code == 200
        assert _last_viewed(client, kept) == before  # the GET wrote nothing
        assert client.post(f"/api/shares/{kept}/views").status_code == 204
        assert _last_viewed(client, kept) > before + timedelta(days=2)
        assert client.get(f"/s/{dropped}").status_code == 404  # expired, even before pruning
        assert client.post(f"/api/shares/{dropped}/views").status_code == 404
        assert client.app.state.learning.shares.prune() == 1  # type: ignore[attr-defined]
        assert client.get(f"/s/{kept}").status_code == 200


def test_shares_are_kept_for_ever_by_default(client: TestClient) -> None:
    share_id = _share(client)
    _age(client, share_id, 3650)
    assert client.get(f"/s/{share_id}").status_code == 200
    assert client.app.state.learning.shares.prune() == 0  # type: ignore[attr-defined]


def test_metrics_count_shares_made_and_viewed(client: TestClient) -> None:
    share_id = _share(client)
    client.get(f"/s/{share_id}"), client.get(f"/s/{share_id}"), client.get("/s/missing")
    scrape = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    counts = {
        sample.labels["event"]: sample.value
        for family in text_string_to_metric_families(scrape)
        if family.name == "gradlab_shares"
        for sample in family.samples
        if sample.name == "gradlab_shares_total"
    }
    assert counts == {"made": 1, "viewed": 2}


def test_the_operator_removes_and_prunes(
    migrated_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with _client(migrated_url) as client:
        gone, old, young = _share(client), _share(client), _share(client)
        _age(client, old, 40)
    monkeypatch.setenv("GRADLAB_DATABASE_URL", migrated_url)
    monkeypatch.delenv("GRADLAB_SHARE_DAYS", raising=False)
    assert cli(["shares", "rm", gone]) == 0
    assert cli(["shares", "rm", gone]) == 1
    assert cli(["shares", "prune"]) == 0 and "kept for ever" in capsys.readouterr().out
    monkeypatch.setenv("GRADLAB_SHARE_DAYS", "30")
    assert cli(["shares", "prune"]) == 0
    assert "1 share(s)" in capsys.readouterr().out
    with _client(migrated_url) as client:
        assert [client.get(f"/s/{i}").status_code for i in (gone, old, young)] == [404, 404, 200]


def test_the_operator_removes_a_share_by_its_link_or_an_id_starting_with_a_dash(
    migrated_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _client(migrated_url) as client:
        by_link, dashed = _share(client), _share(client)
        with client.app.state.store.writing() as connection:  # type: ignore[attr-defined]
            # An id that reads as an option on a command line (new ids never start with "-").
            connection.execute(update(Share).where(Share.id == dashed).values(id="-" + dashed[1:]))
    monkeypatch.setenv("GRADLAB_DATABASE_URL", migrated_url)
    assert cli(["shares", "rm", f"http://testserver/s/{by_link}"]) == 0
    assert cli(["shares", "rm", "--", "-" + dashed[1:]]) == 0
    with _client(migrated_url) as client:
        assert client.get(f"/s/{by_link}").status_code == 404
        assert client.get(f"/s/-{dashed[1:]}").status_code == 404


def test_no_new_share_id_starts_with_a_dash() -> None:
    ids = [new_share_id() for _ in range(2000)]  # about 31 of them would, by chance alone
    assert not [share_id for share_id in ids if share_id.startswith("-")]
    assert len(set(ids)) == len(ids) and {len(share_id) for share_id in ids} == {16}
