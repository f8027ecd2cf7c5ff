"""POST /api/run over HTTP, against the real sandbox."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_run_returns_stdout_tensors_and_graph(sandbox_client: TestClient) -> None:
    answer = sandbox_client.post(
        "/api/run",
        json={
            "code": "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
            "y = x.pow(2).sum()\ny.backward()\nprint(x.grad)\n",
            "lesson": "first-steps",
            "step": 1,
        },
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "ok"
    assert body["stdout"] == "tensor([4., 6.])\n"
    assert body["tensors"][0]["grad"] == [4.0, 6.0]
    assert body["tensors"][1]["grad"] is None
    assert {node["kind"] for node in body["graph"]["nodes"]} == {
        "tensor",
        "function",
        "accumulate",
        "leaf",
    }
    assert body["duration_ms"] > 0


def test_a_failing_snippet_is_not_an_http_error(sandbox_client: TestClient) -> None:
    answer = sandbox_client.post("/api/run", json={"code": "1 / 0"})
    assert answer.status_code == 200
    assert answer.json()["status"] == "error"
    assert answer.json()["error"]["type"] == "ZeroDivisionError"


def test_oversized_code_is_413(sandbox_client: TestClient) -> None:
    answer = sandbox_client.post("/api/run", json={"code": "x = 1\n" * 5000})
    assert answer.status_code == 413
    assert answer.json()["type"] == "/problems/snippet-too-large"
    assert "20000 bytes" in answer.json()["detail"]


def test_a_body_that_does_not_fit_is_422_and_one_that_is_not_json_400(
    sandbox_client: TestClient,
) -> None:
    assert sandbox_client.post("/api/run", json={}).status_code == 422
    assert sandbox_client.post("/api/run", json={"code": 5}).status_code == 422
    assert sandbox_client.post("/api/run", json={"code": "1", "step": -1}).status_code == 422
    misfit = sandbox_client.post("/api/run", json={"code": 5}).json()
    assert misfit["type"] == "/problems/invalid-request"
    assert misfit["errors"] == [
        {"loc": ["body", "code"], "msg": "Input should be a valid string", "type": "string_type"}
    ]
    unreadable = sandbox_client.post(
        "/api/run", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert unreadable.status_code == 400
    assert unreadable.headers["content-type"] == "application/problem+json"
    assert unreadable.json()["type"] == "/problems/malformed-json"


def test_a_huge_body_is_refused_before_it_is_read(sandbox_client: TestClient) -> None:
    answer = sandbox_client.post(
        "/api/run", content=b"x" * (2 * 1024 * 1024), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 413


def test_healthz_reports_every_isolation_layer_on(sandbox_client: TestClient) -> None:
    sandbox = sandbox_client.get("/healthz").json()["sandbox"]
    assert sandbox["ready"] is True
    assert sandbox["workers"] >= 1
    assert set(sandbox["isolation"]) >= {"rlimits", "no_new_privs", "landlock", "seccomp"}
    assert all(state.startswith("on") for state in sandbox["isolation"].values())
