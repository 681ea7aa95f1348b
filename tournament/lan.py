"""The venue's own network: this machine's addresses (for ALLOWED_HOSTS and the URLs players scan), and QR
codes of URLs (segno: pure Python, no network).

Addresses are read from the kernel, never by sending a packet: IPv4 through the SIOCGIFADDR ioctl on each
interface, IPv6 from /proc/net/if_inet6 (Linux); loopback and link-local addresses are left out, since a
phone on the venue Wi-Fi cannot reach them by URL.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from pathlib import Path
from typing import Any

import segno

SIOCGIFADDR = 0x8915


def _ipv4(interface: str) -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            packed = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, struct.pack("256s", interface.encode()[:15]))
        except OSError:
            return None  # no IPv4 address on this interface
    return socket.inet_ntoa(packed[20:24])


def _ipv6() -> list[str]:
    path = Path("/proc/net/if_inet6")
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        raw = line.split()[0]
        found.append(str(ipaddress.IPv6Address(bytes.fromhex(raw))))
    return found


def addresses() -> list[str]:
    """This machine's addresses that another machine on the network could reach (IPv4 first)."""
    found: list[str] = []
    try:
        names = [name for _index, name in socket.if_nameindex()]
    except OSError:
        names = []
    for name in names:
        address = _ipv4(name)
        if address:
            found.append(address)
    found += _ipv6()
    out = []
    for text in found:
        ip = ipaddress.ip_address(text)
        if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
            continue
        if text not in out:
            out.append(text)
    return sorted(out, key=lambda a: (":" in a, a))


def host_of(address: str) -> str:
    """The form a Host header and a URL use: IPv6 in brackets."""
    return f"[{address}]" if ":" in address else address


def urls(port: int, path: str = "/") -> list[str]:
    return [f"http://{host_of(a)}:{port}{path}" for a in addresses()]


def qr_svg(url: str, scale: int = 4) -> str:
    """An inline SVG QR code of ``url`` (no XML declaration, sized by ``scale``)."""
    return str(segno.make(url, error="m").svg_inline(scale=scale, border=2))


def qr_terminal(url: str) -> str:
    """The QR code as text for a terminal (half-block characters, two rows a line)."""
    import io

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def client_address(request: Any) -> str:
    """The client's address: the TCP peer's, or behind a proxy the header it sets (``CLIENT_IP_HEADER``; of a
    list, the last entry, which the proxy itself appended) — read only when the peer is that proxy
    (``TRUSTED_PROXIES``), so a client that reaches the server directly cannot name itself someone else. Used
    by every limit per address and to tell the server's own keyboard: behind a proxy on this machine every
    peer is loopback, the header says who it is."""
    from django.conf import settings

    meta = getattr(request, "META", {}) if request is not None else {}
    header = settings.CLIENT_IP_HEADER
    if header and str(meta.get("REMOTE_ADDR", "")) in settings.TRUSTED_PROXIES:
        forwarded = str(meta.get("HTTP_" + header.upper().replace("-", "_"), "")).split(",")[-1].strip()
        if forwarded:
            return forwarded
    return str(meta.get("REMOTE_ADDR", "")) or "unknown"


def from_this_machine(request: Any) -> bool:
    """The request comes from the server's own keyboard (``TRUST_LOOPBACK``): the TCP peer is loopback, and so
    is the address a proxy forwards, if one is configured. Both, so a header a client writes itself (a proxy
    header set on a server clients reach directly) never makes a phone the keyboard."""
    from django.conf import settings

    meta = getattr(request, "META", {}) if request is not None else {}
    peer = str(meta.get("REMOTE_ADDR", ""))
    return bool(settings.TRUST_LOOPBACK) and is_loopback(peer) and is_loopback(client_address(request))


def is_loopback(address: str) -> bool:
    """An address of this machine's loopback (127.0.0.0/8, ::1): the server's own keyboard, unless a proxy on
    this machine forwards every request (callers check ``settings.TRUST_LOOPBACK`` too)."""
    try:
        return ipaddress.ip_address(address.strip()).is_loopback
    except ValueError:
        return False
