"""TLS client certificates (ClusterConfig.client_cert/client_key): a server that requires one (Druid's TLS client
auth, ``druid.server.https.requireClientCertificate``) is reached with the cert and refused clearly without it,
for both clients. A throwaway CA signs the server's and the client's certificates."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from druid_ingest.testing import FakeDruid
from druid_ingest.wire._errors import DruidConnectionError, DruidTLSError
from druid_ingest.wire._retry import RetryPolicy

FAST = RetryPolicy(max_attempts=1, deadline=5)


def _issue(out: Path, stem: str, subject: str, issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
           usage: x509.ObjectIdentifier | None) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    now = datetime.datetime.now(datetime.timezone.utc)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (x509.CertificateBuilder().subject_name(name).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1)))
    if issuer is None:
        builder = builder.issuer_name(name).add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        cert = builder.sign(key, hashes.SHA256())
    else:
        builder = builder.issuer_name(issuer[0].subject).add_extension(x509.ExtendedKeyUsage([usage]), False)
        if usage == ExtendedKeyUsageOID.SERVER_AUTH:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        cert = builder.sign(issuer[1], hashes.SHA256())
    (out / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (out / f"{stem}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
    return cert, key


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mtls")
    ca = _issue(out, "ca", "test CA", None, None)
    _issue(out, "server", "127.0.0.1", ca, ExtendedKeyUsageOID.SERVER_AUTH)
    _issue(out, "client", "druid-ingest client", ca, ExtendedKeyUsageOID.CLIENT_AUTH)
    return out


@pytest.fixture
def mtls_druid(pki: Path):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.pem"))
    context.load_cert_chain(pki / "server.pem", pki / "server.key")
    context.verify_mode = ssl.CERT_REQUIRED
    with FakeDruid(ssl_context=context) as fake:
        yield fake


def test_the_client_certificate_is_presented(mtls_druid: FakeDruid, pki: Path, make_client) -> None:
    client = make_client(mtls_druid.url, retry=FAST, ca_bundle=str(pki / "ca.pem"),
                         client_cert=str(pki / "client.pem"), client_key=str(pki / "client.key"))
    assert client.is_leader() is True


def test_without_a_client_certificate_the_error_names_client_cert(mtls_druid: FakeDruid, pki: Path,
                                                                   make_client) -> None:
    client = make_client(mtls_druid.url, retry=FAST, ca_bundle=str(pki / "ca.pem"))
    with pytest.raises((DruidTLSError, DruidConnectionError), match="client_cert") as info:
        client.is_leader()
    assert mtls_druid.requests == [] and "client_key" in str(info.value)


def test_an_unreachable_proxy_names_the_proxy_field(make_client) -> None:
    with socket.socket() as probe:  # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        unused_port = probe.getsockname()[1]
        client = make_client("http://127.0.0.1:9", retry=FAST, proxy=f"http://127.0.0.1:{unused_port}")
        with pytest.raises(DruidConnectionError, match=r"could not reach the proxy .*proxy extra"):
            client.is_leader()
