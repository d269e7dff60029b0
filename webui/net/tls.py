"""The certificate ``hanafuda serve`` uses on the network, made here and kept beside the
database (``tls/`` in the database's folder), so phones on the Wi-Fi get the camera
(browsers allow it only on localhost or HTTPS).

Two certificates, as a phone needs them to trust the server for good:

* ``ca.pem`` (key ``ca-key.pem``): a small certificate authority of this machine, made
  once and valid ten years. It is what a phone is told to trust. It may sign only names
  of a home network (``localhost``, ``*.local``, ``*.lan``, ``*.home.arpa``,
  ``*.internal`` and this machine's host names) and private addresses (X.509 name
  constraints), so a phone that trusts it trusts nothing on the internet because of it.
* ``cert.pem`` (key ``key.pem``): the server's certificate, signed by that authority,
  naming the machine's host names and addresses. It is made again, signed by the same
  authority, when the machine has a name or address it does not name (a new Wi-Fi), or
  a month before it expires (it is valid 397 days, the most a phone accepts); a phone
  that trusts the authority needs nothing new.

The keys are ECDSA P-256 files readable by their owner only.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import ipaddress
import os
import socket
import ssl
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

CA_DAYS = 3650
LEAF_DAYS = 397                 # Apple's most for a TLS server certificate
RENEW_DAYS = 30
HOME_DOMAINS = ("localhost", ".local", ".lan", ".home.arpa", ".internal")
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "169.254.0.0/16",
    "100.64.0.0/10", "::1/128", "fc00::/7", "fe80::/10"))
ORGANISATION = "hanafuda-scorer"


@dataclass(frozen=True)
class Certificate:
    """The files of the server's certificate and what it names."""

    folder: Path
    names: tuple[str, ...]
    addresses: tuple[str, ...]
    fingerprint: str            # the authority's SHA-256, as a phone's settings show it
    made: bool                  # a new server certificate was made this time

    @property
    def cert(self) -> Path:
        return self.folder / "cert.pem"

    @property
    def key(self) -> Path:
        return self.folder / "key.pem"

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca-key.pem"

    def context(self) -> ssl.SSLContext:
        """A server TLS context on these files (TLS 1.2 or newer)."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self.cert, self.key)
        return ctx


# ------------------------------------------------------------------ this machine
def host_names() -> list[str]:
    """This machine's names as a phone may reach it: its host name, the name with
    ``.local`` (mDNS), its fully qualified name, and ``localhost``."""
    names: list[str] = []
    host = socket.gethostname().strip().rstrip(".").lower()
    candidates = [host, host.split(".")[0] + ".local" if host else ""]
    try:
        candidates.append(socket.getfqdn().rstrip(".").lower())
    except OSError:
        pass
    for name in candidates + ["localhost"]:
        if name and name not in names and _is_dns_name(name):
            names.append(name)
    return names


def host_addresses() -> list[str]:
    """This machine's IPv4 addresses (each network interface's, loopback included) and
    any the host name resolves to; looked up locally, nothing is sent."""
    found: list[str] = []

    def add(addr: str) -> None:
        try:
            ip = ipaddress.ip_address(addr.split("%")[0])
        except ValueError:
            return
        if not ip.is_unspecified and str(ip) not in found:
            found.append(str(ip))

    for _, name in _interfaces():
        addr = _interface_ipv4(name)
        if addr:
            add(addr)
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP):
            add(str(info[4][0]))
    except OSError:
        pass
    add("127.0.0.1")
    return found


def _interfaces() -> list[tuple[int, str]]:
    try:
        return socket.if_nameindex()
    except OSError:
        return []


def _interface_ipv4(name: str) -> str | None:
    """The IPv4 address of interface ``name`` (SIOCGIFADDR; None where there is none or
    the call is not available)."""
    siocgifaddr = 0x8915
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            packed = fcntl.ioctl(s.fileno(), siocgifaddr,
                                 struct.pack("256s", name.encode()[:15]))
        return socket.inet_ntoa(packed[20:24])
    except OSError:
        return None


def lan_addresses(addresses: Iterable[str]) -> list[str]:
    """The private, non-loopback addresses among ``addresses``: where a phone on the same
    Wi-Fi reaches this machine."""
    out = []
    for a in addresses:
        ip = ipaddress.ip_address(a)
        if not ip.is_loopback and not ip.is_link_local and _private(ip):
            out.append(a)
    return out


# ------------------------------------------------------------------ the certificates
def ensure_certificate(folder: Path, names: Iterable[str], addresses: Iterable[str],
                       now: dt.datetime | None = None) -> Certificate:
    """The server's certificate in ``folder`` naming ``names`` and ``addresses``: the one
    there when it names them all, is signed by the authority there and is not near its
    end; else a new one (and a new authority when there is none, or it cannot sign one of
    the names). OSError when the folder cannot be written."""
    now = now or dt.datetime.now(dt.timezone.utc)
    folder.mkdir(parents=True, exist_ok=True)
    want_names = sorted({n.lower() for n in names if _is_dns_name(n)})
    want_ips = sorted({ipaddress.ip_address(a) for a in addresses},
                      key=lambda ip: (ip.version, int(ip)))
    ca_path, ca_key_path = folder / "ca.pem", folder / "ca-key.pem"
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"

    ca = _load(ca_path, ca_key_path)
    if ca is None or _days_left(ca[0], now) < LEAF_DAYS or \
            not all(_permits(ca[0], n) for n in want_names):
        ca = _make_ca(want_names, now)
        _write(ca_path, ca_key_path, ca[0], ca[1])
        made_ca = True
    else:
        made_ca = False
    ca_cert, ca_key = ca
    ips = [ip for ip in want_ips if _permits(ca_cert, ip)]

    leaf = None if made_ca else _load(cert_path, key_path)
    made = leaf is None or not _covers(leaf[0], want_names, ips) or \
        _days_left(leaf[0], now) < RENEW_DAYS or leaf[0].issuer != ca_cert.subject or \
        not _signed_by(leaf[0], ca_cert)
    if made:
        leaf = _make_leaf(ca_cert, ca_key, want_names, ips, now)
        _write(cert_path, key_path, leaf[0], leaf[1], chain=ca_cert)
    assert leaf is not None
    san = leaf[0].extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return Certificate(folder, tuple(san.get_values_for_type(x509.DNSName)),
                       tuple(str(a) for a in san.get_values_for_type(x509.IPAddress)),
                       fingerprint(ca_cert), made)


def fingerprint(cert: x509.Certificate) -> str:
    """SHA-256 of the certificate as ``AB:CD:...`` (how phones show it)."""
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _is_dns_name(name: str) -> bool:
    labels = name.rstrip(".").split(".")
    return 0 < len(name) <= 253 and all(
        0 < len(lab) <= 63 and lab.isascii() and lab.replace("-", "").isalnum()
        and not lab.startswith("-") and not lab.endswith("-") for lab in labels) \
        and not is_ip(name)


def is_ip(text: str) -> bool:
    """Whether ``text`` is an IPv4 or IPv6 address."""
    try:
        ipaddress.ip_address(text)
        return True
    except ValueError:
        return False


def _private(ip: IPAddress) -> bool:
    return any(ip.version == n.version and ip in n for n in PRIVATE_NETWORKS)


def _load(cert_path: Path, key_path: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    public = cert.public_key()
    if not isinstance(key, ec.EllipticCurvePrivateKey) or \
            not isinstance(public, ec.EllipticCurvePublicKey) or \
            key.public_key().public_numbers() != public.public_numbers():
        return None
    return cert, key


def _write(cert_path: Path, key_path: Path, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey, chain: x509.Certificate | None = None) -> None:
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    tmp = key_path.with_name(key_path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    os.chmod(tmp, 0o600)
    body = cert.public_bytes(serialization.Encoding.PEM)
    if chain is not None:
        body += chain.public_bytes(serialization.Encoding.PEM)
    cert_tmp = cert_path.with_name(cert_path.name + ".tmp")
    cert_tmp.write_bytes(body)
    os.replace(tmp, key_path)
    os.replace(cert_tmp, cert_path)


def _days_left(cert: x509.Certificate, now: dt.datetime) -> float:
    return (cert.not_valid_after_utc - now).total_seconds() / 86400


def _covers(cert: x509.Certificate, names: list[str], ips: list[IPAddress]) -> bool:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return False
    return set(names) <= set(san.get_values_for_type(x509.DNSName)) and \
        set(ips) <= set(san.get_values_for_type(x509.IPAddress))


def _signed_by(cert: x509.Certificate, ca: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(ca)
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


def _permits(ca: x509.Certificate, name: str | IPAddress) -> bool:
    """Whether the authority's name constraints allow ``name``."""
    try:
        nc = ca.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return True
    subtrees = nc.permitted_subtrees or []
    if isinstance(name, str):
        for t in subtrees:
            if isinstance(t, x509.DNSName):
                base = t.value.lstrip(".")
                if name == base or name.endswith("." + base):
                    return True
        return False
    return any(isinstance(t, x509.IPAddress) and t.value.version == name.version
               and isinstance(t.value, (ipaddress.IPv4Network, ipaddress.IPv6Network))
               and name in t.value for t in subtrees)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, ORGANISATION),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _make_ca(names: list[str], now: dt.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    host = next((n for n in names if n != "localhost" and not n.endswith(".local")), "")
    domains = list(HOME_DOMAINS) + [n for n in names if not any(
        n == d.lstrip(".") or n.endswith(d if d.startswith(".") else "." + d)
        for d in HOME_DOMAINS)]
    permitted: list[x509.GeneralName] = [x509.DNSName(d) for d in dict.fromkeys(domains)]
    permitted += [x509.IPAddress(n) for n in PRIVATE_NETWORKS]
    subject = _name(f"hanafuda-scorer on {host or 'this machine'}")
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.NameConstraints(permitted_subtrees=permitted,
                                                excluded_subtrees=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    return cert, key


def _make_leaf(ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, names: list[str],
               ips: list[IPAddress], now: dt.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    alt += [x509.IPAddress(ip) for ip in ips]
    cert = (x509.CertificateBuilder()
            .subject_name(_name(names[0] if names else str(ips[0])))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=LEAF_DAYS))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert, key
