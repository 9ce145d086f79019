"""TLS: verification is on by default, a CA bundle makes a private CA work, verify=False is explicit.

A throwaway CA and a server certificate for 127.0.0.1 are made with ``cryptography`` (installed with Airflow),
and the fake Druid serves HTTPS with them, for both clients.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import time
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from druid_ingest.errors import DruidTLSError
from druid_ingest.testing import FakeDruid
from druid_ingest.wire._retry import RetryPolicy


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    out = tmp_path_factory.mktemp("tls")
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder().subject_name(_name("test CA")).issuer_name(_name("test CA"))
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(_name("127.0.0.1")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_pem, cert_pem, key_pem = out / "ca.pem", out / "server.pem", out / "server.key"
    ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    return ca_pem, cert_pem, key_pem


@pytest.fixture
def https_druid(tls_files):
    _, cert, key = tls_files
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    with FakeDruid(ssl_context=context) as fake:
        yield fake


def test_private_ca_rejected_by_default(https_druid: FakeDruid, make_client) -> None:
    client = make_client(https_druid.url, retry=RetryPolicy(max_attempts=5, initial_delay=0.5, deadline=5))
    started = time.monotonic()
    with pytest.raises(DruidTLSError, match="is not signed by a CA this client trusts") as info:
        client.is_leader()
    assert time.monotonic() - started < 0.5, "fatal: no retry backoff was slept"
    assert "CERTIFICATE_VERIFY_FAILED" in str(info.value) and "ca_bundle" in str(info.value)
    assert https_druid.requests == []  # the handshake failed before any request


def test_ca_bundle_verifies(https_druid: FakeDruid, make_client, tls_files) -> None:
    client = make_client(https_druid.url, ca_bundle=str(tls_files[0]))
    assert client.is_leader() is True
    assert client.health() is True


def test_verify_false_is_an_explicit_opt_out(https_druid: FakeDruid, make_client) -> None:
    client = make_client(https_druid.url, verify=False)
    assert client.is_leader() is True


def test_a_host_name_the_certificate_does_not_list_is_named(https_druid: FakeDruid, make_client, tls_files) -> None:
    # the certificate names only the IP 127.0.0.1; "localhost" reaches the same socket but is not in it
    url = https_druid.url.replace("127.0.0.1", "localhost")
    client = make_client(url, ca_bundle=str(tls_files[0]))
    with pytest.raises(DruidTLSError) as info:
        client.is_leader()
    text = str(info.value)
    assert "does not name that host" in text and "Hostname mismatch" in text and "subjectAltName" in text
    assert https_druid.requests == []
