"""deploy/kubernetes: every manifest validated strictly against a current Kubernetes's schemas
(kubernetes-validate ships them; no cluster needed), and the Deployment checked against the
app it runs: the probe path and port, every GRADLAB_* variable a real setting, the Secret's
keys, the hardening of compose.yaml and the Dockerfile, and a graceful stop longer than a run.
The LTI component (components/lti) is rendered with kustomize (`kubectl kustomize`) into the
manifests as docs/kubernetes.md enables it, validated, and checked for what LTI needs.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config.paths import PROJECT_ROOT
from app.config.settings import Settings
from app.routes.api import router

FOLDER = PROJECT_ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(path for path in FOLDER.rglob("*.yaml") if path.name != "kustomization.yaml")
KUSTOMIZATIONS = sorted(FOLDER.rglob("kustomization.yaml"))
# gradlab's own, without the example PostgreSQL in its folder
APP_MANIFESTS = [path for path in MANIFESTS if path.parent == FOLDER]
VALIDATE = shutil.which("kubernetes-validate")
KUBECTL = shutil.which("kubectl")  # its built-in kustomize renders the component
LTI_COMPONENT = "components/lti"
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
    # Ready only while the database answers and the sandbox runs (tests/web/test_readiness.py);
    # within 5 s of either going away: one failure, 5 s apart.
    ready = container["readinessProbe"]
    assert ready["httpGet"] == {"path": "/readyz", "port": "http"} and "/readyz" in routes
    assert ready["periodSeconds"] * ready["failureThreshold"] <= 5

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
        [sys.executable, "-m", "app.cli", "migrate", "--help"],
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


# --- the LTI component --------------------------------------------------------------------


def _render(tmp_path: Path, *components: str) -> list[dict[str, Any]]:
    """`kubectl kustomize` of deploy/kubernetes with `components` enabled as docs/kubernetes.md
    says: listed under `components:` in its kustomization.yaml (a copy, to leave it as is)."""
    if KUBECTL is None:
        pytest.skip("kubectl is not installed (its kustomize renders the manifests)")
    copy = tmp_path / "kubernetes"
    shutil.copytree(FOLDER, copy)
    if components:
        with (copy / "kustomization.yaml").open("a") as kustomization:
            kustomization.write("components:\n" + "".join(f"  - {c}\n" for c in components))
    built = subprocess.run(
        [KUBECTL, "kustomize", str(copy)], capture_output=True, text=True, timeout=120
    )
    assert built.returncode == 0, built.stderr
    (tmp_path / "rendered.yaml").write_text(built.stdout)
    return [document for document in yaml.safe_load_all(built.stdout) if document]


def _kind(documents: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [document for document in documents if document["kind"] == kind]


def _https_egress(documents: list[dict[str, Any]], labels: dict[str, str]) -> list[str]:
    """The address ranges that pods with `labels` may reach on TCP 443."""
    ranges = []
    for policy in _kind(documents, "NetworkPolicy"):
        spec = policy["spec"]
        if not spec["podSelector"]["matchLabels"].items() <= labels.items():
            continue
        for rule in spec.get("egress", []):
            if {"port": 443, "protocol": "TCP"} in rule.get("ports", []):
                ranges += [peer["ipBlock"]["cidr"] for peer in rule["to"] if "ipBlock" in peer]
    return ranges


def test_the_lti_component_builds_and_validates_strictly(tmp_path: Path) -> None:
    documents = _render(tmp_path, LTI_COMPONENT)
    assert {d["metadata"].get("namespace") for d in documents if d["kind"] != "Namespace"} == {
        "gradlab"
    }
    if VALIDATE is None:
        pytest.skip("kubernetes-validate is not installed (pip install -e '.[dev]')")
    checked = subprocess.run(
        [VALIDATE, "--strict", str(tmp_path / "rendered.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = checked.stdout + checked.stderr
    assert checked.returncode == 0, output
    assert "WARN" not in output and "ERROR" not in output, output
    assert output.count("passed for resource") == len(documents), output


def test_with_the_lti_component_the_servers_have_what_lti_needs(tmp_path: Path) -> None:
    documents = _render(tmp_path, LTI_COMPONENT)
    (deployment,) = _kind(documents, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item.get("value") for item in container["env"]}
    public = urllib.parse.urlsplit(env["GRADLAB_PUBLIC_URL"])
    assert public.scheme == "https"
    (ingress,) = _kind(documents, "Ingress")
    assert public.hostname in {rule["host"] for rule in ingress["spec"]["rules"]}
    assert env["GRADLAB_COOKIE_SAMESITE"] == "none"
    assert env["GRADLAB_COOKIE_SECURE"] == "true"  # browsers refuse SameSite=None without it
    ancestors = env["GRADLAB_FRAME_ANCESTORS"].split()
    assert "'self'" in ancestors and any(a.startswith("https://") for a in ancestors)
    # The app itself accepts them together (SameSite none with Secure, one CSP directive).
    plain = {name[8:].lower(): value for name, value in env.items() if value is not None}
    settings = Settings(**plain)
    assert settings.cookie_samesite == "none" and settings.cookie_secure
    assert settings.public_url == env["GRADLAB_PUBLIC_URL"]

    # The servers, and only they, reach HTTPS anywhere but the cluster's private ranges.
    server = deployment["spec"]["template"]["metadata"]["labels"]
    ranges = _https_egress(documents, server)
    assert "0.0.0.0/0" in ranges and "::/0" in ranges
    for policy in _kind(documents, "NetworkPolicy"):
        for rule in policy["spec"].get("egress", []):
            for peer in rule["to"]:
                if "ipBlock" in peer:
                    closed = [ipaddress.ip_network(e) for e in peer["ipBlock"]["except"]]
                    private = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")
                    if peer["ipBlock"]["cidr"] == "0.0.0.0/0":
                        assert {ipaddress.ip_network(p) for p in private} <= set(closed)
    (job,) = _kind(documents, "Job")
    assert _https_egress(documents, job["spec"]["template"]["metadata"]["labels"]) == []


def test_without_the_lti_component_nothing_reaches_https(tmp_path: Path) -> None:
    documents = _render(tmp_path)
    (deployment,) = _kind(documents, "Deployment")
    assert _https_egress(documents, deployment["spec"]["template"]["metadata"]["labels"]) == []
    env = {item["name"] for item in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert "GRADLAB_COOKIE_SAMESITE" not in env


def test_the_kubernetes_page_names_the_lti_component() -> None:
    page = (PROJECT_ROOT / "docs" / "kubernetes.md").read_text()
    assert "deploy/kubernetes/components/lti" in page
    assert LTI_COMPONENT in (FOLDER / "kustomization.yaml").read_text()
