"""The fake Druid's version profile (``testing/fake_versions.py``): one test per rule against the fake over real
sockets, and what our client does with it (docs/druid-contract.md §versions lists each with its Druid source)."""

from __future__ import annotations

import datetime
import ssl
from pathlib import Path

import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from druid_ingest.errors import DruidValidationError
from druid_ingest.planning import build_drop_plan
from druid_ingest.testing import FakeDruid, fake_versions

from tests.druid_ingest.sample_specs import day_spec

DS = "events_web"
DAY = "2026-11-01T00:00:00.000Z/2026-11-02T00:00:00.000Z"
COORDINATOR_MARK = f"/druid/coordinator/v1/datasources/{DS}/markUnused"
OVERLORD_MARK = f"/druid/indexer/v1/datasources/{DS}/markUnused"


def test_status_answers_the_default_version(fake_druid: FakeDruid) -> None:
    assert requests.get(f"{fake_druid.url}/status", timeout=5).json()["version"] == "33.0.0"


@pytest.mark.druid_version("31.0.2")
def test_the_druid_version_mark_sets_the_profile(fake_druid: FakeDruid, fake_druid_factory) -> None:
    assert requests.get(f"{fake_druid.url}/status", timeout=5).json()["version"] == "31.0.2"
    assert fake_druid_factory().version == "31.0.2"
    assert fake_druid_factory(version="37.0.0").version == "37.0.0"


# ---- where the segment write APIs live (#17545: Overlord from 32; #17935: the Coordinator redirects from 34) ----

def _mark(fake: FakeDruid, path: str) -> requests.Response:
    """markUnused of the day through ``path``, the day holding one freshly used segment."""
    fake.preload_segments(DS, DAY, f"2026-11-2{len(fake.segment_ids(DS))}T00:00:00.000Z")
    return requests.post(fake.url + path, json={"interval": DAY}, allow_redirects=False, timeout=5)


@pytest.mark.druid_version("31.0.2")
def test_before_32_only_the_coordinator_marks_unused(fake_druid: FakeDruid) -> None:
    answer = _mark(fake_druid, OVERLORD_MARK)
    assert answer.status_code == 404 and "Not Found" in answer.text  # no OverlordDataSourcesResource yet
    assert len(fake_druid.used_segments(DS)) == 1
    answer = requests.post(fake_druid.url + COORDINATOR_MARK, json={"interval": DAY}, timeout=5)
    assert (answer.status_code, answer.json()) == (200, {"numChangedSegments": 1})


def test_on_33_both_services_mark_unused(fake_druid: FakeDruid) -> None:
    assert _mark(fake_druid, COORDINATOR_MARK).json() == {"numChangedSegments": 1, "segmentStateChanged": True}
    assert _mark(fake_druid, OVERLORD_MARK).json() == {"numChangedSegments": 1, "segmentStateChanged": True}


@pytest.mark.druid_version("34.0.0")
def test_from_34_the_coordinator_redirects_to_the_overlord(fake_druid: FakeDruid) -> None:
    answer = _mark(fake_druid, COORDINATOR_MARK)
    assert (answer.status_code, answer.headers["Location"]) == (307, fake_druid.url + OVERLORD_MARK)
    assert fake_druid.used_segments(DS) != []  # the redirect marked nothing


@pytest.mark.parametrize(("version", "path"), [("31.0.2", COORDINATOR_MARK), ("34.0.0", OVERLORD_MARK)])
def test_our_drop_picks_the_api_by_the_version_status_reports(fake_druid_factory, make_client, version: str,
                                                              path: str) -> None:
    fake = fake_druid_factory(version=version, handoff_delay=0.05)
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    fake.load_all_now()
    lines: list[str] = []
    result = make_client(fake.url).segment_write(build_drop_plan(DS, DAY), timeout=10, on_progress=lines.append)
    assert result.marked == 1
    posts = [r.path for r in fake.requests_matching("POST") if r.path.endswith("/markUnused")]
    assert posts == [path]  # straight to the API the release serves: never through a redirect
    assert len(fake.requests_matching("GET", "/status")) == 1  # the one extra request per drop
    api = "the Coordinator's API" if path == COORDINATOR_MARK else "the Overlord's API"
    assert f"Druid {version} at {fake.url}: marking unused through {api}" in lines[0]


# ---- a SUCCESS task without a report (any release: AbstractTask pushes it only when its file exists) ----------

@pytest.mark.parametrize("version", ["31.0.2", "33.0.0", "35.0.0"])
def test_on_any_release_a_task_can_succeed_without_a_report_and_the_run_stays_green(fake_druid_factory,
                                                                                  make_client,
                                                                                  version: str) -> None:
    fake = fake_druid_factory(version=version)
    assert fake_versions.success_may_lack_report(version)
    fake.plan_missing_report()
    client = make_client(fake.url)
    result = client.ingest(day_spec("2026-11-01"), task_timeout=20, handoff_timeout=20)
    assert (result.status.state, result.report) == ("SUCCESS", None)
    assert result.handoff is not None and result.handoff.done  # the gate, not the report, decides queryability
    assert requests.get(f"{fake.url}/druid/indexer/v1/task/{result.status.task_id}/reports",
                        timeout=5).status_code == 404
    outcome = client.watch_task(result.status.task_id, timeout=0)
    assert outcome.message.endswith("SUCCESS; Druid has no report for it (no row counts to show)")


# ---- strict SNI over TLS (Druid 35+, Jetty 12) ------------------------------------------------------------------

@pytest.fixture(scope="module")
def cert_for_another_host(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate naming only ``druid.example``: a client reaching 127.0.0.1 sends a host it lacks."""
    out = tmp_path_factory.mktemp("sni")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "druid.example")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("druid.example")]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_pem, key_pem = out / "server.pem", out / "server.key"
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return cert_pem, key_pem


@pytest.mark.parametrize("version", ["33.0.0", "35.0.0"])
def test_from_35_a_host_the_certificate_does_not_name_gets_400_invalid_sni(
        fake_druid_factory, make_client, cert_for_another_host: tuple[Path, Path], version: str) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*cert_for_another_host)
    fake = fake_druid_factory(version=version, ssl_context=context, tls_names=("druid.example",))
    client = make_client(fake.url, verify=False)
    if version == "33.0.0":
        assert client.is_leader() is True  # Jetty 9 skipped the check with one certificate
        return
    with pytest.raises(DruidValidationError, match="Invalid SNI") as refused:
        client.is_leader()
    assert "certificate does not name the host of 127.0.0.1" in str(refused.value)


# ---- the auto-compaction task id prefix (CompactSegments.TASK_ID_PREFIX) ----------------------------------------

@pytest.mark.parametrize(("version", "prefix"), [("33.0.0", "coordinator-issued_compact_"),
                                                ("37.0.0", "auto_compact_")])
def test_auto_compaction_names_its_tasks_by_release(fake_druid_factory, version: str, prefix: str) -> None:
    fake = fake_druid_factory(version=version)
    fake.preload_segments(DS, DAY, "2026-11-20T00:00:00.000Z")
    task_id = fake.issue_auto_compaction(DS, DAY)
    assert task_id.startswith(f"{prefix}{DS}_")
    listed = requests.get(f"{fake.url}/druid/indexer/v1/tasks", params={"datasource": DS}, timeout=5).json()
    assert [(t["id"], t["type"]) for t in listed] == [(task_id, "compact")]
