"""Static checks of docker-compose.yaml against dev/druid (no Docker needed).

The compose file and the Docker-free dev cluster (dev/druid/conf, dev/druid/pom.xml) describe the same
topology; these tests keep them from drifting: services, ports, Druid version, key properties.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml  # PyYAML, installed with Airflow

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yaml"
DEV_DRUID = ROOT / "dev" / "druid"

#: dev/druid/conf/<dir> -> compose service
CONF_TO_SERVICE = {
    "coordinator-overlord": "coordinator",
    "historical": "historical",
    "indexer": "indexer",
    "broker": "broker",
    "router": "router",
}
DRUID_SERVICES = tuple(CONF_TO_SERVICE.values())


def _properties(path: Path) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "!")) or "=" not in line:
            continue
        key, _, value = line.partition("=")
        props[key.strip()] = value.strip()
    return props


def _druid_props(service: dict[str, Any]) -> dict[str, str]:
    """Properties the apache/druid image derives from druid_* env vars (every '_' becomes '.')."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k.replace("_", "."): str(v) for k, v in env.items() if k.startswith("druid_")}


def _published(service: dict[str, Any]) -> dict[int, tuple[str | None, int]]:
    """container port -> (host ip, host port) for the short port syntax."""
    out: dict[int, tuple[str | None, int]] = {}
    for entry in service.get("ports") or []:
        parts = str(entry).split(":")
        if len(parts) == 3:
            ip, host, container = parts
        elif len(parts) == 2:
            ip, (host, container) = None, parts
        else:
            ip, host, container = None, parts[0], parts[0]
        out[int(container.split("/")[0])] = (ip, int(host))
    return out


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return compose["services"]


@pytest.fixture(scope="module")
def pom_druid_version() -> str:
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    root = ET.parse(DEV_DRUID / "pom.xml").getroot()
    node = root.find("m:properties/m:druid.version", ns)
    assert node is not None and node.text, "dev/druid/pom.xml has no <druid.version>"
    return node.text.strip()


def test_services_present(services: dict[str, Any]) -> None:
    expected = {"zookeeper", "postgres", *DRUID_SERVICES, "airflow"}
    assert expected <= set(services), f"missing services: {sorted(expected - set(services))}"
    assert "middlemanager" not in services, "the dev cluster uses an Indexer, not a MiddleManager"


def test_every_conf_dir_has_a_service() -> None:
    conf_dirs = {p.parent.name for p in (DEV_DRUID / "conf").glob("*/runtime.properties")}
    assert conf_dirs == set(CONF_TO_SERVICE), conf_dirs


@pytest.mark.parametrize("conf_dir", sorted(CONF_TO_SERVICE))
def test_ports_match_dev_druid(services: dict[str, Any], conf_dir: str) -> None:
    dev_port = int(_properties(DEV_DRUID / "conf" / conf_dir / "runtime.properties")["druid.plaintextPort"])
    svc = services[CONF_TO_SERVICE[conf_dir]]
    assert int(_druid_props(svc)["druid.plaintextPort"]) == dev_port
    published = _published(svc)
    assert dev_port in published, f"{conf_dir}: container port {dev_port} not published ({svc.get('ports')})"
    ip, host_port = published[dev_port]
    assert host_port == dev_port, f"{conf_dir}: host port {host_port} != dev/druid port {dev_port}"
    assert ip in (None, "127.0.0.1")


def test_router_is_the_single_entry_point(services: dict[str, Any]) -> None:
    router = services["router"]
    assert _published(router)[8888][1] == 8888
    props = _druid_props(router)
    assert props["druid.router.managementProxy.enabled"] == "true"
    dev = _properties(DEV_DRUID / "conf/router/runtime.properties")
    assert dev["druid.plaintextPort"] == "8888"
    assert dev["druid.router.managementProxy.enabled"] == "true"


def test_zookeeper_port_matches_dev_druid(services: dict[str, Any]) -> None:
    zoo = _properties(DEV_DRUID / "conf/zk/zoo.cfg")
    common = _properties(DEV_DRUID / "conf/_common/common.runtime.properties")
    port = int(zoo["clientPort"])
    assert common["druid.zk.service.host"].endswith(f":{port}")
    assert _published(services["zookeeper"])[port][1] == port
    for name in DRUID_SERVICES:
        assert _druid_props(services[name])["druid.zk.service.host"] == f"zookeeper:{port}"


def test_druid_image_matches_pom_version(services: dict[str, Any], pom_druid_version: str) -> None:
    for name in DRUID_SERVICES:
        image = services[name]["image"]
        repo, _, tag = image.rpartition(":")
        assert repo == "apache/druid", image
        assert tag == pom_druid_version, f"{name}: image {image} but dev/druid/pom.xml has {pom_druid_version}"


def test_coordinator_acts_as_overlord(services: dict[str, Any]) -> None:
    props = _druid_props(services["coordinator"])
    assert props["druid.coordinator.asOverlord.enabled"] == "true"
    assert props["druid.coordinator.asOverlord.overlordService"] == "druid/overlord"
    dev = _properties(DEV_DRUID / "conf/coordinator-overlord/runtime.properties")
    assert dev["druid.coordinator.asOverlord.enabled"] == "true"
    assert services["coordinator"]["command"] == ["coordinator"]


def test_indexer_capacity_matches_dev_druid(services: dict[str, Any]) -> None:
    dev = _properties(DEV_DRUID / "conf/indexer/runtime.properties")
    props = _druid_props(services["indexer"])
    assert props["druid.worker.capacity"] == dev["druid.worker.capacity"] == "4"
    assert services["indexer"]["command"] == ["indexer"]


def test_shared_deep_storage_and_metadata(services: dict[str, Any]) -> None:
    for name in DRUID_SERVICES:
        props = _druid_props(services[name])
        assert props["druid.metadata.storage.type"] == "postgresql"
        assert "postgresql-metadata-storage" in json.loads(props["druid.extensions.loadList"])
        assert props["druid.storage.type"] == "local"
        assert props["druid.indexer.logs.type"] == "file"
    # indexer writes, historical loads: same deep-storage volume
    for name in ("indexer", "historical"):
        vols = [str(v) for v in services[name].get("volumes", [])]
        assert any(v.startswith("druid_shared:") for v in vols), (name, vols)


def test_env_keys_map_to_valid_properties(services: dict[str, Any]) -> None:
    # the image maps every '_' to '.', so a property name containing '_' cannot be expressed
    for name in DRUID_SERVICES:
        env = services[name].get("environment") or {}
        for key in env:
            if key.startswith("druid_"):
                assert re.fullmatch(r"druid(_[A-Za-z0-9]+)+", key), (name, key)


def test_airflow_service(services: dict[str, Any]) -> None:
    airflow = services["airflow"]
    assert airflow["image"] == "apache/airflow:3.3.2"
    command = " ".join(airflow["command"]) if isinstance(airflow["command"], list) else airflow["command"]
    assert "pip install" in command and "-e /opt/airflow-provider" in command
    assert "airflow standalone" in command
    vols = [str(v) for v in airflow["volumes"]]
    assert ".:/opt/airflow-provider" in vols
    assert "./dags:/opt/airflow/dags" in vols
    conn = json.loads(airflow["environment"]["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"])
    assert conn["conn_type"] == "druid_cluster"
    assert conn["host"].endswith(":8888")
