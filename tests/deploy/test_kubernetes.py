"""deploy/kubernetes: every manifest validated strictly against a current Kubernetes's schemas
(kubernetes-validate ships them; no cluster needed), and the Deployment checked against the
app it runs: the probe path and port, every GRADLAB_* variable a real setting, the Secret's
keys, the hardening of compose.yaml and the Dockerfile, and a graceful stop longer than a run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config import PROJECT_ROOT, Settings
from app.routes.api import router

FOLDER = PROJECT_ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(path for path in FOLDER.rglob("*.yaml") if path.name != "kustomization.yaml")
KUSTOMIZATIONS = sorted(FOLDER.rglob("kustomization.yaml"))
# gradlab's own, without the example PostgreSQL in its folder
APP_MANIFESTS = [path for path in MANIFESTS if path.parent == FOLDER]
VALIDATE = shutil.which("kubernetes-validate")
MiB = 1 << 20


def _documents(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def _one(kind: str) -> dict[str, Any]:
    found = [d for path in APP_MANIFESTS for d in _documents(path) if d["kind"] == kind]
    assert len(found) == 1, f"{len(found)} {kind}s"
    return found[0]


def _mebibytes(quantity: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
    return int(number) * (1024 if unit == "Gi" else 1)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda path: str(path.relative_to(FOLDER)))
def test_every_manifest_validates_strictly(manifest: Path) -> None:
    if VALIDATE is None:
        pytest.skip("kubernetes-validate is not installed (pip install -e '.[dev]')")
    checked = subprocess.run(
        [VALIDATE, "--strict", str(manifest)], capture_output=True, text=True, timeout=120
    )
    output = checked.stdout + checked.stderr
    assert checked.returncode == 0, output
    assert "WARN" not in output and "ERROR" not in output, output


def test_each_kustomization_lists_every_manifest_beside_it() -> None:
    for kustomization in KUSTOMIZATIONS:
        listed = set(yaml.safe_load(kustomization.read_text())["resources"])
        beside = {
            path.name for path in kustomization.parent.glob("*.yaml") if path != kustomization
        }
        assert listed == beside, kustomization


def test_the_deployment_agrees_with_the_app() -> None:
    deployment = _one("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    port = container["ports"][0]
    assert port == {"name": "http", "containerPort": 8000}
    assert container["args"][-2:] == ["--port", "8000"]
    routes = {route.path for route in router.routes}  # type: ignore[attr-defined]
    for probe in ("startupProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "http"}
        assert "/healthz" in routes
    # Ready only when the sandbox is: the exec probe reads sandbox.ready from /healthz.
    ready = " ".join(container["readinessProbe"]["exec"]["command"])
    assert "http://127.0.0.1:8000/healthz" in ready and "['sandbox']['ready']" in ready

    env = {item["name"]: item for item in container["env"]}
    for name in env:
        assert name.startswith("GRADLAB_") and name[8:].lower() in Settings.model_fields, name
    assert env["GRADLAB_MIGRATE"]["value"] == "off"
    secret = _one("Secret")
    for item in env.values():
        if "valueFrom" in item:
            reference = item["valueFrom"]["secretKeyRef"]
            assert reference["name"] == secret["metadata"]["name"]
            assert reference["key"] in secret["stringData"]
    for key in secret["stringData"]:
        assert key[8:].lower() in Settings.model_fields, key

    # Memory: the measured ~450 MiB at rest and under load, plus each run's allowance.
    workers, per_run = int(env["GRADLAB_WORKERS"]["value"]), int(env["GRADLAB_MEMORY_MIB"]["value"])
    limit = _mebibytes(container["resources"]["limits"]["memory"])
    assert limit >= 450 + workers * per_run
    assert _mebibytes(container["resources"]["requests"]["memory"]) >= 450
    # A graceful stop longer than a run's wall limit and the server's margin after it.
    wall_s = Settings.model_fields["wall_time_s"].default
    assert pod["terminationGracePeriodSeconds"] > wall_s + 5


def test_the_pods_are_hardened_as_the_container_image_and_compose_are() -> None:
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    uid = int(re.search(r"^USER (\d+):", dockerfile, re.MULTILINE).group(1))  # type: ignore[union-attr]
    for kind in ("Deployment", "Job"):
        pod = _one(kind)["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == uid
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        for container in pod["containers"]:
            hardening = container["securityContext"]
            assert hardening["allowPrivilegeEscalation"] is False
            assert hardening["readOnlyRootFilesystem"] is True
            assert hardening["capabilities"] == {"drop": ["ALL"]}
    server = _one("Deployment")["spec"]["template"]["spec"]
    mounts = {mount["mountPath"] for mount in server["containers"][0]["volumeMounts"]}
    assert "/tmp" in mounts  # the runs' scratch dirs, an emptyDir


def test_migrations_run_in_a_job_with_the_cli_command() -> None:
    job = _one("Job")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["gradlab", "migrate"]
    assert "migrate" in (PROJECT_ROOT / "app" / "cli.py").read_text()
    checked = subprocess.run(
        ["python3", "-m", "app.cli", "migrate", "--help"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_selectors_find_the_pods() -> None:
    labels = _one("Deployment")["spec"]["template"]["metadata"]["labels"]
    for kind, path in [
        ("Service", ("spec", "selector")),
        ("PodDisruptionBudget", ("spec", "selector", "matchLabels")),
        ("NetworkPolicy", ("spec", "podSelector", "matchLabels")),
    ]:
        selector: dict[str, str] = _one(kind)
        for key in path:
            selector = selector[key]  # type: ignore[assignment]
        assert selector.items() <= labels.items(), kind
    assert _one("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]["name"] == "gradlab"
