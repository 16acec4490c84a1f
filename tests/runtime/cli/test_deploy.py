"""deploy/: the Kubernetes manifests validate against the Kubernetes schemas (vendored by the
``kubernetes-validate`` package: no network), they agree with each other and with `toolpen
serve`, and the Dockerfile only copies what exists (there is no Docker engine here to build it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import typer
import yaml
from dockerfile_parse import DockerfileParser

from runtime._cli import load_commands

ROOT = Path(__file__).resolve().parents[3]
MANIFESTS = sorted((ROOT / "deploy" / "kubernetes").glob("*.yaml"))
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
KUBERNETES_VERSIONS = ["1.31.0", "1.37.0"]


def resources() -> list[dict[str, Any]]:
    return [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]


def one(kind: str, name: str = "toolpen") -> dict[str, Any]:
    (found,) = [r for r in resources() if r["kind"] == kind and r["metadata"]["name"] == name]
    return found


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda path: path.name)
def test_manifests_validate_strictly(path: Path, version: str) -> None:
    for resource in yaml.safe_load_all(path.read_text()):
        kubernetes_validate.validate(resource, version, strict=True)


def test_the_validator_catches_a_misspelt_field() -> None:
    deployment = one("Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[-1], strict=True)


def test_the_deployment_probes_readiness_and_liveness() -> None:
    (container,) = one("Deployment")["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert container["readinessProbe"]["httpGet"]["port"] in ports
    assert f"--port={ports['http']}" in container["args"]


def test_the_jail_gets_namespaces_and_nothing_privileged() -> None:
    pod = one("Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    context = container["securityContext"]
    assert context["privileged"] is False and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"] == {"drop": ["ALL"]}
    assert context["procMount"] == "Unmasked" and pod["hostUsers"] is False
    assert pod["securityContext"]["seccompProfile"] == {"type": "Unconfined"}
    assert pod["securityContext"]["runAsNonRoot"] is True


def test_selectors_and_targets_agree() -> None:
    labels = one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert one("Deployment")["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert one("Service")["spec"]["selector"].items() <= labels.items()
    assert one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"].items() <= labels.items()
    target = one("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", "toolpen")
    assert (
        one("PodDisruptionBudget")["spec"]["minAvailable"]
        < one("HorizontalPodAutoscaler")["spec"]["minReplicas"]
    )


def test_the_store_is_postgresql_from_a_secret() -> None:
    (container,) = one("Deployment")["spec"]["template"]["spec"]["containers"]
    env = {item["name"]: item for item in container["env"]}
    assert "--store=env:TOOLPEN_STORE_URL" in container["args"]
    reference = env["TOOLPEN_STORE_URL"]["valueFrom"]["secretKeyRef"]
    secret = one("Secret")
    assert secret["stringData"][reference["key"]].startswith("postgresql://")
    host = secret["stringData"][reference["key"]].split("@")[1].split(":")[0]
    assert one("Service", host)["spec"]["ports"][0]["port"] == 5432
    assert one("StatefulSet", host)


def test_the_deployment_and_image_arguments_are_serve_options() -> None:
    serve = typer.main.get_command(load_commands()).commands["serve"]  # type: ignore[attr-defined]
    known = {option for parameter in serve.params for option in parameter.opts}
    (container,) = one("Deployment")["spec"]["template"]["spec"]["containers"]
    given = {arg.split("=", 1)[0] for arg in container["args"]}
    cmd = [i["value"] for i in DockerfileParser(str(DOCKERFILE)).structure if i["instruction"] == "CMD"]
    given |= {arg for arg in yaml.safe_load(cmd[-1]) if arg.startswith("--")}
    assert given <= known, given - known


def test_the_dockerfile_copies_what_exists_and_runs_serve_unprivileged() -> None:
    parser = DockerfileParser(str(DOCKERFILE))
    instructions = parser.structure
    stages = [i for i in instructions if i["instruction"] == "FROM"]
    assert len(stages) == 2 and all(":" in stage["value"].split()[0] for stage in stages)  # tagged bases
    for copy in (i for i in instructions if i["instruction"] == "COPY"):
        parts = copy["value"].split()
        if parts[0].startswith("--from="):
            continue
        for source in parts[:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
    final = instructions[instructions.index(stages[-1]) :]
    user = [i["value"] for i in final if i["instruction"] == "USER"]
    assert user and not user[-1].startswith(("0", "root"))
    entrypoint = [i["value"] for i in final if i["instruction"] == "ENTRYPOINT"][-1]
    assert yaml.safe_load(entrypoint) == ["toolpen", "serve"]
    exposed = [i["value"] for i in final if i["instruction"] == "EXPOSE"]
    assert exposed == ["8080"]


@pytest.mark.slow
def test_serve_reads_its_store_url_from_the_environment(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from runtime._cli import main; main()",
            "serve",
            "--store",
            "env:NO_SUCH_VARIABLE_X",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "NO_SUCH_VARIABLE_X" in result.stderr and "not set" in result.stderr
