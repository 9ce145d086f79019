"""``DruidResource``: Dagster config mapped onto the core's ClusterConfig, RetryPolicy and PollSchedule."""

import base64

import dagster as dg
import pytest
from dagster_druid_ingest import DruidResource, druid_daily_asset
from druid_ingest.clients._sync_client import DruidClient
from druid_ingest.ops._poll_schedule import PollSchedule
from druid_ingest.testing import FakeDruid
from druid_ingest.wire._retry import RetryPolicy

from tests.dagster_druid_ingest.conftest import LOCATION, fast_resource, materialize

PASSWORD = "s3cr3t-Pa55"


def test_every_field_reaches_the_core_config() -> None:
    resource = DruidResource(
        overlord_url="https://overlord:8281", coordinator_url="https://coordinator:8281",
        broker_url="https://broker:8282", console_url="https://console", username="admin", password=PASSWORD,
        verify=False, ca_bundle="/etc/ca.pem", connect_timeout=3, read_timeout=7, trusted_hosts=["leader:8281"],
        request_max_attempts=2, request_initial_delay=0.1, request_max_delay=1, request_deadline=9,
        poll_interval=1, max_poll_interval=4, poll_multiplier=2,
    )
    config = resource.cluster_config()
    assert (config.base_url("overlord"), config.base_url("coordinator"), config.base_url("broker")) == (
        "https://overlord:8281", "https://coordinator:8281", "https://broker:8282")
    assert config.auth == ("admin", PASSWORD) and PASSWORD not in repr(config)
    assert (config.verify, config.ca_bundle, config.tls_verify) == (False, "/etc/ca.pem", False)
    assert (config.connect_timeout, config.read_timeout, config.trusted_hosts) == (3, 7, ("leader:8281",))
    assert config.console_task_url("t1") == "https://console/unified-console.html#tasks/task_id~t1"
    assert resource.retry_policy() == RetryPolicy(max_attempts=2, initial_delay=0.1, max_delay=1, deadline=9)
    assert resource.poll_schedule() == PollSchedule(1, 4, 2)
    client = resource.get_client()
    assert isinstance(client, DruidClient) and client.retry == resource.retry_policy()
    client.close()


def test_a_resource_needs_a_url() -> None:
    with pytest.raises(ValueError, match="needs `url`"):
        DruidResource().cluster_config()


def test_envvar_credentials_reach_druid_and_never_the_event_log(monkeypatch, spec) -> None:
    monkeypatch.setenv("DG_TEST_DRUID_PASSWORD", PASSWORD)
    with FakeDruid(auth={"admin": (PASSWORD, "write")}) as fake:
        druid = fast_resource(fake.url, username="admin", password=dg.EnvVar("DG_TEST_DRUID_PASSWORD"))
        events = druid_daily_asset(spec(), start_date="2026-11-01", input_locations=[LOCATION], datasource="dg_auth")
        instance = dg.DagsterInstance.ephemeral()
        result = materialize([events.asset, events.check], druid, instance=instance)
        assert result.success  # the fake refuses every call without the right Basic credentials
        sent = {r.headers.get("Authorization") for r in fake.requests if r.path.startswith("/druid/")}
        assert sent == {"Basic " + base64.b64encode(f"admin:{PASSWORD}".encode()).decode()}
    logged = " ".join(str(record) for record in instance.all_logs(result.run_id))
    assert PASSWORD not in logged and "Submitted Druid task" in logged
    assert PASSWORD not in str(instance.get_run_by_id(result.run_id).run_config)


def test_auth_and_network_fields_reach_the_core_config() -> None:
    resource = DruidResource(url="https://router:9088", token="tok-secret", client_cert="/c.pem",
                             client_key="/k.pem", proxy="proxy:3128", trust_env=True)
    config = resource.cluster_config()
    assert config.authorization_header() == "Bearer tok-secret" and "tok-secret" not in repr(config)
    assert (config.tls_client_cert, config.proxy, config.trust_env) == (("/c.pem", "/k.pem"), "http://proxy:3128",
                                                                        True)


def test_detect_within_reaches_the_core_schedule_and_a_bad_one_names_the_field() -> None:
    from druid_ingest.errors import DruidUsageError

    assert DruidResource(url="http://d", detect_within=30).poll_schedule() == PollSchedule(5, 60, 1.5, 30)
    assert DruidResource(url="http://d").poll_schedule().detect_within is None
    with pytest.raises(DruidUsageError, match=r"poll_interval=10.0 is longer than detect_within=2.0"):
        DruidResource(url="http://d", poll_interval=10, detect_within=2).poll_schedule()
