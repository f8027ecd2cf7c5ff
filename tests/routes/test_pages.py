from __future__ import annotations

from fastapi.testclient import TestClient

from app.config.paths import STATIC_DIR
from app.rendering import pygments_css


def test_catalog_lists_every_lesson_in_path_order(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/")
    assert page.status_code == 200
    html = page.text
    assert html.index("First steps with .grad") < html.index("Second steps")
    assert "A tiny lesson used by the tests." in html
    assert "3 min" in html and "beginner" in html


def test_lesson_page_shows_every_section(sqlite_client: TestClient) -> None:
    # The reference opens once the build-up is answered (app/lessons/disclosure.py).
    sqlite_client.post(
        "/api/lessons/first-steps/steps/1/prediction",
        json={"choice": "None", "confidence": "fairly_sure"},
    )
    page = sqlite_client.get("/lessons/first-steps/deep-dive")  # the whole lesson
    assert page.status_code == 200
    html = page.text
    for anchor in ("overview", "mental-model", "build-up", "myths", "pitfalls", "takeaways"):
        assert f'id="{anchor}"' in html
    assert 'class="highlight code"' in html  # syntax-highlighted code
    assert "tensor([4., 6.])" in html  # the verified output
    assert 'rel="next"' in html and "Second steps" in html
    assert 'aria-label="On this page"' in html


def test_lesson_text_is_escaped_not_trusted(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/lessons/first-steps").text
    assert "<script>" not in html.split("</head>")[1].split("<footer")[0]


def test_unknown_lesson_gets_a_friendly_404_page(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/lessons/no-such-lesson")
    assert page.status_code == 404
    assert "text/html" in page.headers["content-type"]
    assert "Page not found" in page.text
    assert "no-such-lesson" in page.text
    assert sqlite_client.get("/nowhere").status_code == 404


def test_api_lists_lessons(sqlite_client: TestClient) -> None:
    lessons = sqlite_client.get("/api/lessons").json()
    assert lessons == [
        {
            "slug": "first-steps",
            "title": "First steps with .grad",
            "summary": "A tiny lesson used by the tests.",
            "level": "beginner",
            "minutes": 3,
        },
        {
            "slug": "second-steps",
            "title": "Second steps",
            "summary": "Another tiny lesson used by the tests.",
            "level": "intermediate",
            "minutes": 3,
        },
    ]


def test_api_lesson_hides_quiz_answers(sqlite_client: TestClient) -> None:
    lesson = sqlite_client.get("/api/lessons/first-steps").json()
    step = lesson["steps"][0]
    assert step["prediction"]["question"] == "What does `x.grad` print?"
    assert "answer" not in step["prediction"] and "explanation" not in step["prediction"]
    assert "value_prediction" not in step  # it comes with the choice's reveal
    assert step["snippet"] == {"code": step["snippet"]["code"]}  # output revealed by answering
    # What explains the answer comes with it, not before.
    assert not {"concept", "explanation", "insight"} & set(step)
    assert all(isinstance(choice, str) for choice in step["prediction"]["choices"])
    myth = lesson["myths"][0]
    assert set(myth) == {"question"}
    assert lesson["pitfalls"] == [] and lesson["takeaways"] == []  # the reference waits
    sqlite_client.post(
        "/api/lessons/first-steps/steps/1/prediction",
        json={"choice": "None", "confidence": "fairly_sure"},
    )
    committed = sqlite_client.get("/api/lessons/first-steps").json()
    assert committed["pitfalls"][0]["wrong"]["code"]
    assert committed["steps"][0]["value_prediction"] == {
        "question": "Type `x.grad`.",
        "tensor": "x",
    }


def test_api_unknown_lesson_is_a_problem_404(client: TestClient) -> None:
    answer = client.get("/api/lessons/nope")
    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json() == {
        "type": "/problems/unknown-lesson",
        "title": "There is no lesson by that name",
        "status": 404,
        "detail": "No lesson called 'nope'",
    }


def test_healthz_reports_lessons_and_sandbox(sqlite_client: TestClient) -> None:
    health = sqlite_client.get("/healthz").json()
    assert health["status"] == "ok"
    assert health["lessons"] == 2
    assert health["sandbox"]["ready"] is False  # disabled in this client


def test_openapi_documents_the_run_endpoint(sqlite_client: TestClient) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    run = spec["paths"]["/api/run"]["post"]
    assert {"200", "413", "422", "503"} <= set(run["responses"])


def test_static_assets_are_served(sqlite_client: TestClient) -> None:
    assert sqlite_client.get("/static/css/site.css").status_code == 200


def test_pygments_stylesheet_is_up_to_date() -> None:
    assert (STATIC_DIR / "css" / "pygments.css").read_text() == pygments_css()
