"""POST /api/doctor over HTTP, against the real sandbox: the answer's shape, the run it wraps,
escaped learner text, and the same refusals as POST /api/run."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.doctor.corpus import HERE

NO_ZERO_GRAD = (HERE / "buggy" / "no_zero_grad.py").read_text()
DETACHED = (HERE / "buggy" / "detach_hidden.py").read_text()
SQRT_AT_ZERO = (HERE / "buggy" / "sqrt_at_zero.py").read_text()
GRAPH_REUSED = (HERE / "buggy" / "graph_reused.py").read_text()


def _walk_node(body: dict[str, Any], finding: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """The backward call and node of the run's backward record that `finding` names."""
    [call] = [c for c in body["result"]["backward"]["calls"] if c["number"] == finding["call"]]
    [node] = [n for n in call["nodes"] if n["id"] == finding["node"]]
    return call, node


def test_a_buggy_loop_gets_its_finding_parameters_and_run(sandbox_client: TestClient) -> None:
    answer = sandbox_client.post("/api/doctor", json={"code": DETACHED})
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"findings", "parameters", "result"}
    first = body["findings"][0]
    assert set(first) == {"kind", "tensor", "line", "message_html", "lesson", "call", "node"}
    assert (first["call"], first["node"]) == (None, None)  # a cut: its node is not in the graph
    assert (first["kind"], first["tensor"], first["line"]) == ("no-grad", "model.fc1.weight", 15)
    assert first["lesson"] == "turning-gradients-off"
    assert "<code>.detach()</code> on line 15" in first["message_html"]
    names = [p["name"] for p in body["parameters"]]
    assert names == ["model.fc1.weight", "model.fc1.bias", "model.fc2.weight", "model.fc2.bias"]
    by_name = {p["name"]: p for p in body["parameters"]}
    assert by_name["model.fc1.weight"]["shape"] == [8, 4]
    assert by_name["model.fc1.weight"]["grad_norms"] == [None] * 20  # cut off: never a gradient
    norms = by_name["model.fc2.weight"]["grad_norms"]
    assert len(norms) == 20 and all(n is not None and n > 0 for n in norms)
    assert body["result"]["status"] == "ok"
    assert body["result"]["stdout"].strip()  # the loop's print


def test_the_result_is_the_run_api_s_answer(sandbox_client: TestClient) -> None:
    doctor = sandbox_client.post("/api/doctor", json={"code": NO_ZERO_GRAD}).json()
    run = sandbox_client.post("/api/run", json={"code": NO_ZERO_GRAD}).json()
    assert set(doctor["result"]) == set(run)
    assert doctor["result"]["stdout"] == run["stdout"]  # the doctor changes nothing computed
    assert [t["grad"] for t in doctor["result"]["tensors"]] == [t["grad"] for t in run["tensors"]]
    assert "doctor" not in run and "findings" not in run
    assert [f["kind"] for f in doctor["findings"]] == ["accumulating"]


def test_correct_code_gets_no_finding(sandbox_client: TestClient) -> None:
    code = (HERE / "correct" / "mlp_sgd.py").read_text()
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    assert body["findings"] == []
    assert len(body["parameters"]) == 4


def test_the_learner_s_names_are_text_never_markup(sandbox_client: TestClient) -> None:
    code = (
        "import torch\nimport torch.nn as nn\n"
        "model = nn.Sequential(nn.Linear(2, 1))\n"
        "model.add_module('<img src=x onerror=alert(1)>', nn.Linear(2, 2))\n"
        "loss = model[0](torch.ones(2)).sum()\nloss.backward()\n"
    )
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    [weight, _bias] = body["findings"]
    assert weight["tensor"] == "model.<img src=x onerror=alert(1)>.weight"
    assert "<img" not in weight["message_html"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in weight["message_html"]


def test_code_that_is_not_training_code_is_checked_all_the_same(
    sandbox_client: TestClient,
) -> None:
    for code in ("print('hi')", "1 / 0", "import torch\ntorch.ones(2).backward()", "x ="):
        answer = sandbox_client.post("/api/doctor", json={"code": code})
        assert answer.status_code == 200
        assert answer.json()["result"]["status"] in ("ok", "error")
    kinds = sandbox_client.post(
        "/api/doctor", json={"code": "import torch\ntorch.ones(2).backward()"}
    ).json()["findings"]
    assert [f["kind"] for f in kinds] == ["no-graph"]


def test_the_same_refusals_as_a_run(sandbox_client: TestClient) -> None:
    too_large = sandbox_client.post("/api/doctor", json={"code": "x = 1\n" * 5000})
    assert too_large.status_code == 413
    assert too_large.json()["type"] == "/problems/snippet-too-large"
    assert sandbox_client.post("/api/doctor", json={}).status_code == 422
    assert sandbox_client.post("/api/doctor", json={"code": 5}).status_code == 422


def test_a_doctor_run_stops_at_the_run_s_time_limit(sandbox_client: TestClient) -> None:
    code = "import torch\nw = torch.ones(2, requires_grad=True)\nwhile True:\n    (w * 2).sum().backward()\n"
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    assert body["result"]["status"] == "timeout"
    assert body["findings"] == [] and body["parameters"] == []


def test_openapi_describes_the_doctor(sandbox_client: TestClient) -> None:
    spec = sandbox_client.get("/openapi.json").json()
    operation = spec["paths"]["/api/doctor"]["post"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/DoctorAnswer"
    }
    finding = spec["components"]["schemas"]["DoctorFinding"]
    assert "no-grad" in finding["properties"]["kind"]["enum"]
    assert {"413", "429", "503"} <= set(operation["responses"])


def test_a_nan_finding_names_the_backward_node_where_the_nan_appeared(
    sandbox_client: TestClient,
) -> None:
    body = sandbox_client.post("/api/doctor", json={"code": SQRT_AT_ZERO}).json()
    [nan] = body["findings"]
    assert (nan["kind"], nan["tensor"], nan["call"]) == ("non-finite", "w", 1)
    call, node = _walk_node(body, nan)
    assert node["label"] == "SqrtBackward0"
    # The record agrees: this node received a finite gradient and sent a non-finite one, and
    # no node that ran before it sent one.
    assert node["received"][0]["values"] == 1.0
    assert node["sent"][0]["values"] in ("inf", "nan")
    earlier = [n for n in call["nodes"] if n["step"] is not None and n["step"] < node["step"]]
    assert all("nan" not in str(n["sent"]) and "inf" not in str(n["sent"]) for n in earlier)
    assert call["order"][node["step"]] == nan["node"]


def test_a_freed_graph_finding_names_the_node_that_raised(sandbox_client: TestClient) -> None:
    body = sandbox_client.post("/api/doctor", json={"code": GRAPH_REUSED}).json()
    [freed] = body["findings"]
    assert (freed["kind"], freed["call"]) == ("graph-freed", 2)
    call, node = _walk_node(body, freed)
    assert call["error"] == "RuntimeError"
    assert node["step"] is None  # it raised: it never finished running
    assert freed["node"] not in call["order"]
    assert node["label"] == "AddmmBackward0"  # nn.Linear's: it needs what the first call freed


def test_openapi_describes_the_finding_s_walk_node(sandbox_client: TestClient) -> None:
    spec = sandbox_client.get("/openapi.json").json()
    properties = spec["components"]["schemas"]["DoctorFinding"]["properties"]
    assert "backward" in properties["call"]["description"]
    assert "nodes[].id" in properties["node"]["description"]


def test_a_nan_past_the_recorded_calls_names_no_node(sandbox_client: TestClient) -> None:
    # The backward record keeps a run's first 8 calls: a NaN in the 10th has no node to open.
    code = (
        "import torch\nw = torch.ones(1, requires_grad=True)\n"
        "opt = torch.optim.SGD([w], lr=0.1)\nfor i in range(10):\n    opt.zero_grad()\n"
        "    x = w * (0.0 if i == 9 else 1.0)\n    torch.sqrt((x * x).sum()).backward()\n"
        "    opt.step()\n"
    )
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    assert body["result"]["backward"]["total_calls"] == 10
    assert len(body["result"]["backward"]["calls"]) == 8
    [nan] = body["findings"]
    assert (nan["kind"], nan["tensor"], nan["call"], nan["node"]) == ("non-finite", "w", None, None)
