"""The search-engine environments under deploy/ and the CI workflow that checks them
(spec, "Search engine operation"): the files parse, and name the version, binds, ports,
modes, keys, tunnels and secrets the spec lays out. A changed bind, port or mode fails
here before it reaches a host."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from models.settings import load_settings
from web.cli import main

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "meilisearch"
TUNNELS = DEPLOY / "tunnel"
FIREWALL = DEPLOY / "firewall" / "ufw.sh"
WORKFLOW = ROOT / ".github" / "workflows" / "search-engine.yml"

# Upgrading the engine changes this on purpose, together with the compose files.
IMAGE = "getmeili/meilisearch:v1.13"
LOCAL_DEV_SEARCH_KEY = "subsearch-local-dev-master-key"

# environment -> (compose file, published port, MEILI_ENV)
ENVIRONMENTS = {
    "development": ("compose.yml", "0.0.0.0:7700:7700", "development"),
    "production": ("compose.production.yml", "127.0.0.1:7700:7700", "production"),
    "staging": ("compose.staging.yml", "127.0.0.1:7701:7700", "development"),
}
HOSTED = ("production", "staging")
# The data of each instance: an upgrade starts the new version on the same volume.
VOLUMES = {
    "development": "subsearch-meili-dev",
    "production": "subsearch-meili-production",
    "staging": "subsearch-meili-staging",
}
CI_SECRETS = {
    "staging": ("STAGING_SEARCH_HOST", "STAGING_SEARCH_API_KEY"),
    "production": ("PROD_SEARCH_HOST", "PROD_SEARCH_API_KEY"),
}


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def compose(environment: str) -> dict:
    return load(COMPOSE / ENVIRONMENTS[environment][0])


def meilisearch(environment: str) -> dict:
    return compose(environment)["services"]["meilisearch"]


def yaml_files() -> list[Path]:
    found = [*DEPLOY.rglob("*.yml"), *DEPLOY.rglob("*.yaml")]
    found += [*WORKFLOW.parent.glob("*.yml"), *WORKFLOW.parent.glob("*.yaml")]
    return sorted(found)


def test_every_yaml_file_parses_to_a_mapping():
    files = yaml_files()
    names = {path.relative_to(ROOT).as_posix() for path in files}
    assert {
        "deploy/meilisearch/compose.yml",
        "deploy/meilisearch/compose.production.yml",
        "deploy/meilisearch/compose.staging.yml",
        "deploy/tunnel/cloudflared-production.yml",
        "deploy/tunnel/cloudflared-staging.yml",
        ".github/workflows/search-engine.yml",
    } <= names
    for path in files:
        assert isinstance(load(path), dict), path


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_each_instance_runs_the_pinned_image(environment):
    services = compose(environment)["services"]
    assert list(services) == ["meilisearch"]
    assert services["meilisearch"]["image"] == IMAGE


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_each_instance_publishes_its_bind_and_port_in_its_mode(environment):
    _, published, mode = ENVIRONMENTS[environment]
    service = meilisearch(environment)
    assert service["ports"] == [published]
    assert service["environment"]["MEILI_ENV"] == mode


@pytest.mark.parametrize("environment", HOSTED)
def test_hosted_instances_listen_on_loopback_only(environment):
    for service in compose(environment)["services"].values():
        for port in service.get("ports", []):
            assert isinstance(port, str) and port.startswith("127.0.0.1:"), port
        assert service.get("network_mode") != "host"


def test_the_hosted_instances_can_share_a_host():
    ports = {meilisearch(name)["ports"][0].split(":")[1] for name in HOSTED}
    volumes = {compose(name)["volumes"]["meili_data"]["name"] for name in HOSTED}
    projects = {compose(name)["name"] for name in HOSTED}
    assert ports == {"7700", "7701"}
    assert len(volumes) == len(projects) == 2


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_data_lives_in_a_named_volume(environment):
    document = compose(environment)
    assert meilisearch(environment)["volumes"] == ["meili_data:/meili_data"]
    # A named volume outlives `docker compose down`; only `down -v` removes it.
    assert document["volumes"]["meili_data"]["name"] == VOLUMES[environment]
    assert not document["volumes"]["meili_data"].get("external")


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_each_instance_restarts_and_is_checked_on_health(environment):
    service = meilisearch(environment)
    assert service["restart"] == "unless-stopped"
    check = " ".join(service["healthcheck"]["test"])
    assert "http://127.0.0.1:7700/health" in check
    assert "available" in check


def test_the_local_master_key_defaults_to_the_documented_development_key():
    key = meilisearch("development")["environment"]["MEILI_MASTER_KEY"]
    assert key == f"${{MEILI_MASTER_KEY:-{LOCAL_DEV_SEARCH_KEY}}}"
    assert LOCAL_DEV_SEARCH_KEY in (DEPLOY / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("environment", HOSTED)
def test_hosted_master_keys_come_from_the_environment_and_are_required(environment):
    values = meilisearch(environment)["environment"]
    assert re.fullmatch(r"\$\{MEILI_MASTER_KEY:\?[^}]+\}", values["MEILI_MASTER_KEY"])
    # Nothing else in the environment is a literal secret.
    assert set(values) == {"MEILI_ENV", "MEILI_MASTER_KEY", "MEILI_NO_ANALYTICS"}
    text = (COMPOSE / ENVIRONMENTS[environment][0]).read_text(encoding="utf-8")
    assert LOCAL_DEV_SEARCH_KEY not in text
    assert ":-" not in text  # no default value for any variable


@pytest.mark.parametrize("environment", HOSTED)
def test_each_tunnel_sends_its_hostname_to_its_local_port_and_refuses_the_rest(environment):
    tunnel = load(TUNNELS / f"cloudflared-{environment}.yml")
    host_port = meilisearch(environment)["ports"][0].split(":")[1]
    *routes, catch_all = tunnel["ingress"]
    assert routes, "at least one hostname route"
    for route in routes:
        assert route["hostname"].startswith("FILL-IN-")
        assert route["service"] == f"http://127.0.0.1:{host_port}"
    assert catch_all == {"service": "http_status:404"}
    # The values the operator must fill are marked as such.
    assert tunnel["tunnel"].startswith("FILL-IN-")
    assert "FILL-IN-" in tunnel["credentials-file"]


def test_the_firewall_closes_every_inbound_port_but_ssh():
    commands = [
        shlex.split(line)
        for line in FIREWALL.read_text(encoding="utf-8").splitlines()
        if line.startswith("ufw ")
    ]
    assert ["ufw", "default", "deny", "incoming"] in commands
    opened = [words[2:] for words in commands if words[1] in {"allow", "limit"}]
    assert opened == [["${SSH_PORT}/tcp", "comment", "ssh"]]
    assert ["ufw", "--force", "enable"] in commands
    assert 'SSH_PORT="${SSH_PORT:-22}"' in FIREWALL.read_text(encoding="utf-8")


def workflow() -> dict:
    return load(WORKFLOW)


def steps_run(job: dict) -> list[str]:
    return [step["run"].strip() for step in job["steps"] if "run" in step]


def test_the_workflow_runs_on_demand_and_on_changes_to_the_search_engine():
    # YAML 1.1 reads the bare key `on` as true.
    triggers = workflow()[True]
    assert "workflow_dispatch" in triggers
    assert triggers["push"]["branches"] == ["main"]
    assert {"deploy/**", "models/search/**", "web/cli/search.py"} <= set(triggers["push"]["paths"])


def test_the_workflow_checks_staging_before_production():
    jobs = workflow()["jobs"]
    assert list(jobs) == ["staging", "production"]
    assert "needs" not in jobs["staging"]
    assert jobs["production"]["needs"] in ("staging", ["staging"])
    for name, job in jobs.items():
        assert job["environment"] == name


@pytest.mark.parametrize("name", ["staging", "production"])
def test_each_job_installs_then_runs_health_then_setup_with_its_secrets(name):
    job = workflow()["jobs"][name]
    host_secret, key_secret = CI_SECRETS[name]
    assert job["env"]["SEARCH_BACKEND"] == "meilisearch"
    assert job["env"]["SEARCH_HOST"] == f"${{{{ secrets.{host_secret} }}}}"
    assert job["env"]["SEARCH_API_KEY"] == f"${{{{ secrets.{key_secret} }}}}"
    runs = steps_run(job)
    assert "pip install -e ." in runs
    health = runs.index("subsearch search health")
    setup = runs.index("subsearch search setup")
    assert runs.index("pip install -e .") < health < setup


def test_the_workflow_names_commands_and_settings_the_project_has():
    context = click.Context(main)
    search = main.get_command(context, "search")
    assert isinstance(search, click.Group)
    assert {"health", "setup"} <= set(search.list_commands(context))
    env = {
        name: "https://search.example.test" if name == "SEARCH_HOST" else value
        for name, value in workflow()["jobs"]["staging"]["env"].items()
    }
    env["SEARCH_API_KEY"] = "admin-key"
    settings = load_settings(env, read_dotenv=False)
    assert settings.search_backend == "meilisearch"
    assert settings.search_host == "https://search.example.test"
    assert settings.search_api_key == "admin-key"
