"""deploy/prometheus: the alerting rules and the scrape configuration an operator loads.

promtool checks both files and runs the rules' unit tests (alerts.test.yml); the metric names
and labels the rules use are checked against a real scrape, so that a renamed metric breaks a
test and not a class's alerting; and a real Prometheus scrapes a real `gradlab serve` with the
bearer token, loads the rules and evaluates them.
"""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from app.config.paths import PROJECT_ROOT
from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, make_settings
from tests.live import LiveServer, free_port

FOLDER = PROJECT_ROOT / "deploy" / "prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
TOKEN = secrets.token_urlsafe(24)


def _needs(binary: str) -> None:
    if not Path(binary).exists():
        pytest.skip(f"{Path(binary).name} is not installed (apt-get install prometheus)")


def _rules() -> list[dict[str, object]]:
    groups = yaml.safe_load((FOLDER / "alerts.yml").read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


@pytest.fixture
def configured(tmp_path: Path) -> Path:
    """prometheus.yml as shipped, beside alerts.yml and the token file it asks for."""
    for name in ("prometheus.yml", "alerts.yml"):
        shutil.copy(FOLDER / name, tmp_path / name)
    (tmp_path / "metrics-token").write_text(TOKEN + "\n")
    return tmp_path


def test_promtool_accepts_the_rules_and_the_configuration(configured: Path) -> None:
    _needs(PROMTOOL)
    rules = subprocess.run(
        [PROMTOOL, "check", "rules", "alerts.yml"], cwd=FOLDER, capture_output=True, text=True
    )
    assert rules.returncode == 0, rules.stdout + rules.stderr
    assert f"SUCCESS: {len(_rules())} rules found" in rules.stdout
    config = subprocess.run(
        [PROMTOOL, "check", "config", "prometheus.yml"],
        cwd=configured,
        capture_output=True,
        text=True,
    )
    assert config.returncode == 0, config.stdout + config.stderr


def test_every_alert_passes_its_unit_tests() -> None:
    """Each alert fires for the unhealthy instance of alerts.test.yml, at the time it should,
    and for no other; promtool fails the file if any alert fires where none is expected."""
    _needs(PROMTOOL)
    tested = subprocess.run(
        [PROMTOOL, "test", "rules", "alerts.test.yml"], cwd=FOLDER, capture_output=True, text=True
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    cases = yaml.safe_load((FOLDER / "alerts.test.yml").read_text())["tests"]
    fired = {
        check["alertname"]
        for case in cases
        for check in case["alert_rule_test"]
        if check["exp_alerts"]
    }
    assert fired == {rule["alert"] for rule in _rules()}, "an alert without a test that fires it"


@pytest.fixture(scope="module")
def scraped() -> Iterator[str]:
    """/metrics of an app with a real sandbox, after a run that worked and one that was killed,
    and a page its database failed (a table gone: 503, and a database error)."""
    settings = make_settings(sandbox_enabled=True, metrics_token=TOKEN, wall_time_s=1.0)
    with TestClient(create_app(settings)) as client:
        client.post("/api/run", json={"code": "import torch\nprint(torch.ones(2).sum())\n"})
        client.post("/api/run", json={"code": "while True:\n    pass\n"})
        client.get("/lessons/first-steps")
        client.put("/api/lessons/first-steps/steps/1/code", json={"code": "x = 1"})  # a learner
        with client.app.state.store.engine.begin() as connection:  # type: ignore[attr-defined]
            connection.execute(text("DROP TABLE read_aheads"))
        assert client.get("/lessons/first-steps").status_code == 503
        yield client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text


def test_the_rules_name_only_metrics_and_labels_gradlab_exports(scraped: str) -> None:
    exported: dict[str, set[str]] = {}  # sample name -> its label names
    for family in text_string_to_metric_families(scraped):
        for sample in family.samples:
            exported.setdefault(sample.name, set()).update(sample.labels)
    for rule in _rules():
        expr = str(rule["expr"])
        for name, selector in re.findall(r"(gradlab_\w+)(?:\{([^}]*)\})?", expr):
            assert name in exported, f"{rule['alert']}: gradlab does not export {name}"
            used = set(re.findall(r"(\w+)\s*!?[=~]", selector))
            assert used <= exported[name] | {"job", "instance"}, (rule["alert"], name, used)
        names = set(re.findall(r"gradlab_\w+", expr))
        known = set().union(*(exported[n] for n in names)) | {"instance", "job", "le"}
        for by in re.findall(r"by \(([^)]*)\)", expr):
            grouped = {label.strip() for label in by.split(",")}
            assert grouped <= known, (rule["alert"], grouped)


def test_monitoring_md_lists_every_metric_gradlab_exports(scraped: str) -> None:
    """docs/monitoring.md's metrics table holds true: a new metric without a row fails here."""
    text = (PROJECT_ROOT / "docs" / "monitoring.md").read_text()
    table = text[text.index("| metric | what it says |") : text.index("## Alerts")]
    listed = {name.removesuffix("_total") for name in re.findall(r"`(gradlab_\w+)", table)}
    # Family names: a counter's without its _total; prometheus_client's _created samples
    # (when each series began) are no metric of their own.
    exported = {
        family.name
        for family in text_string_to_metric_families(scraped)
        if family.name.startswith("gradlab_") and not family.name.endswith("_created")
    }
    assert exported <= listed, sorted(exported - listed)


def _query(prometheus: str, promql: str) -> list[dict[str, object]]:
    answer = httpx.get(f"{prometheus}/api/v1/query", params={"query": promql}, timeout=5).json()
    assert answer["status"] == "success", answer
    result: list[dict[str, object]] = answer["data"]["result"]
    return result


@pytest.mark.slow
def test_a_real_prometheus_scrapes_gradlab_and_evaluates_the_rules(configured: Path) -> None:
    """prometheus.yml as shipped, pointed at a live `gradlab serve` (the only line changed is
    the target): the token gets it in, the runs made are counted, and every rule evaluates
    without error against gradlab's real series."""
    _needs(PROMETHEUS)
    config = yaml.safe_load((configured / "prometheus.yml").read_text())
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    server = LiveServer(FIXTURE_LESSONS, metrics_token=TOKEN, wall_time_s="1")
    port = free_port()
    storage = tempfile.mkdtemp(prefix="gradlab-prometheus-")
    prometheus = None
    try:
        config["scrape_configs"][0]["static_configs"] = [{"targets": [f"127.0.0.1:{server.port}"]}]
        (configured / "prometheus.yml").write_text(yaml.safe_dump(config))
        for code in ("x = 1\n", "x = 2\n", "while True:\n    pass\n"):
            httpx.post(f"{server.url}/api/run", json={"code": code}, timeout=30)
        prometheus = subprocess.Popen(
            [
                PROMETHEUS,
                f"--config.file={configured / 'prometheus.yml'}",
                f"--storage.tsdb.path={storage}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                runs = _query(url, 'sum by (status) (gradlab_runs_total{job="gradlab"})')
                rules = httpx.get(f"{url}/api/v1/rules", timeout=5).json()["data"]["groups"]
                evaluated = [r for g in rules for r in g["rules"] if r.get("lastEvaluation")]
                if (
                    runs
                    and len(evaluated) == len(_rules())
                    and all(not r["lastEvaluation"].startswith("0001") for r in evaluated)
                ):
                    break
            except httpx.HTTPError:
                pass
            assert prometheus.poll() is None, prometheus.stderr.read() if prometheus.stderr else ""
            assert time.monotonic() < deadline, "Prometheus did not scrape gradlab in time"
            time.sleep(0.5)
        counted = {r["metric"]["status"]: float(r["value"][1]) for r in runs}  # type: ignore[index]
        assert counted["ok"] == 2 and counted["timeout"] == 1, counted
        [target] = httpx.get(f"{url}/api/v1/targets", timeout=5).json()["data"]["activeTargets"]
        assert target["health"] == "up", target
        assert [r["name"] for r in evaluated if r["health"] != "ok"] == [], evaluated
        assert _query(url, 'gradlab_sandbox_isolation_layer{layer="seccomp"}')
        # A healthy, idle server: nothing fires (pending or firing).
        assert [r["name"] for r in evaluated if r["state"] != "inactive"] == []
    finally:
        if prometheus is not None:
            prometheus.terminate()
            prometheus.wait(30)
        server.stop()
        shutil.rmtree(storage, ignore_errors=True)
