"""TLS client certificates (ClusterConfig.client_cert/client_key): a server that requires one (Druid's TLS client
auth, ``druid.server.https.requireClientCertificate``) is reached with the cert and refused clearly without it,
for both clients. A throwaway CA signs the server's and the client's certificates."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from druid_ingest.errors import DruidConnectionError, DruidProxyError, DruidTLSError, DruidUsageError
from druid_ingest.testing import FakeDruid, Fault
from druid_ingest.wire._retry import RetryPolicy

from tests.net import free_port

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
    client = make_client("http://127.0.0.1:9", retry=FAST, proxy=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(DruidConnectionError, match=r"could not reach the proxy .*proxy extra"):
        client.is_leader()


@pytest.fixture(scope="module")
def other_pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A client certificate from a CA the mtls server does not trust."""
    out = tmp_path_factory.mktemp("other-ca")
    ca = _issue(out, "ca", "some other CA", None, None)
    _issue(out, "client", "druid-ingest client", ca, ExtendedKeyUsageOID.CLIENT_AUTH)
    return out


def test_a_certificate_from_another_ca_is_refused_naming_client_cert(mtls_druid: FakeDruid, pki: Path,
                                                                    other_pki: Path, make_client) -> None:
    client = make_client(mtls_druid.url, retry=FAST, ca_bundle=str(pki / "ca.pem"),
                         client_cert=str(other_pki / "client.pem"), client_key=str(other_pki / "client.key"))
    with pytest.raises((DruidTLSError, DruidConnectionError)) as info:
        client.is_leader()
    text = str(info.value)
    # Python's server (like Jetty) hangs up or sends an alert; either way the text says the certificate was sent
    assert f"127.0.0.1:{mtls_druid.port}" in text and "refused the TLS client certificate" in text, text
    assert "client_cert" in text and "not issued by a CA that server trusts" in text
    assert mtls_druid.requests == []


# nginx's ssl_verify_client answers 400 with its own page after the handshake (dev/nginx proves it for real)
NGINX_NO_CERT = ("<html>\r\n<head><title>400 No required SSL certificate was sent</title></head>\r\n<body>\r\n"
                 "<center><h1>400 Bad Request</h1></center>\r\n<center>No required SSL certificate was sent</center>"
                 "\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
NGINX_BAD_CERT = NGINX_NO_CERT.replace("No required SSL certificate was sent", "The SSL certificate error")


@pytest.mark.parametrize(("body", "words"), [
    (NGINX_NO_CERT, "requires a TLS client certificate and none was sent"),
    (NGINX_BAD_CERT, "refused the TLS client certificate"),
])
def test_a_gateway_400_about_the_client_certificate_names_client_cert(body: str, words: str, make_client) -> None:
    with FakeDruid() as druid:
        druid.add_fault(Fault(path="/druid/indexer/v1/isLeader", status=400, body=body, content_type="text/html"))
        client = make_client(druid.url, retry=FAST)
        with pytest.raises(DruidTLSError) as info:
            client.is_leader()
    text = str(info.value)
    assert f"127.0.0.1:{druid.port} {words}" in text, text
    assert "client_cert" in text and "client_key" in text and info.value.status == 400


def test_a_missing_certificate_file_names_the_field_before_any_call(pki: Path, make_client) -> None:
    with FakeDruid() as druid:
        with pytest.raises(DruidUsageError) as info:
            make_client(druid.url, client_cert=str(pki / "nope.pem"), client_key=str(pki / "client.key"))
        assert druid.requests == []
    assert str(info.value).startswith(f"ClusterConfig `client_cert` {str(pki / 'nope.pem')!r} does not exist")
    with pytest.raises(DruidUsageError, match=r"^ClusterConfig `client_key` '.*nope.key' does not exist"):
        make_client("http://127.0.0.1:9", client_cert=str(pki / "client.pem"), client_key=str(pki / "nope.key"))


def test_a_key_that_is_not_the_certificates_names_both_fields(pki: Path, other_pki: Path, make_client) -> None:
    with pytest.raises(DruidUsageError) as info:
        make_client("http://127.0.0.1:9", client_cert=str(pki / "client.pem"),
                    client_key=str(other_pki / "client.key"))
    text = str(info.value)
    assert text.startswith(f"ClusterConfig `client_key` {str(other_pki / 'client.key')!r} is not the private key "
                           f"of `client_cert` {str(pki / 'client.pem')!r}"), text
    assert "KEY_VALUES_MISMATCH" in text


def test_a_file_that_is_no_certificate_says_so(pki: Path, make_client, tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(DruidUsageError, match=r"^ClusterConfig `client_cert` '.*junk.pem' \(with `client_key` "
                                              r"'.*client.key'\) could not be loaded \(.*PEM lib.*\): give PEM files"):
        make_client("http://127.0.0.1:9", client_cert=str(junk), client_key=str(pki / "client.key"))


def test_a_proxy_that_refuses_the_tunnel_names_the_proxy_field(make_client) -> None:
    # the fake Druid is no proxy: it answers the CONNECT with an error status, as a proxy refusing it does
    with FakeDruid() as not_a_proxy:
        client = make_client("https://127.0.0.1:9", retry=FAST, proxy=not_a_proxy.url)
        with pytest.raises(DruidProxyError) as info:
            client.is_leader()
    text = str(info.value)
    assert text.startswith(f"the proxy 127.0.0.1:{not_a_proxy.port} refused to open a tunnel to 127.0.0.1:9 ("), text
    assert "proxy extra (ClusterConfig.proxy)" in text and "CONNECT" in text
