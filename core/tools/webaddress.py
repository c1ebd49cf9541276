"""Where a fetch would connect: a host resolved to its addresses, and which of them are local.

A page on the internet must not be a way into the user's own machine or network: the loopback
interface, a private or link-local network (where a cloud's metadata service answers at
169.254.169.254), a carrier's shared range. ``webfetch`` asks before it connects to such an
address, and it judges the address it will actually connect to — after DNS, so a public name that
resolves to 127.0.0.1 counts as local — never the name alone.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

from core.errors import ToolError
from core.record import record

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``(host, port)`` → the host's addresses, in the order to try them (OSError when it has none)."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

METADATA_ADDRESSES = frozenset({"169.254.169.254", "169.254.170.2", "fd00:ec2::254"})
_PRIVATE = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Not routed on the internet (IANA special-purpose registries); listed as well as Python's own
# ``is_global``, whose list differs between Python versions.
_SPECIAL = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
    )
)


@record
class LocalAddress:
    """An address a fetch would connect to that is not on the public internet, and what it is."""

    address: str
    kind: str  # "loopback", "private network", "link-local (cloud metadata service)", …

    def pattern(self, port: int) -> str:
        """How the ``local_network`` permission names it: ``127.0.0.1:8080``, ``[::1]:8080``."""
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{host}:{port}"


async def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses as the operating system resolves them (``getaddrinfo``), in its order."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def addresses_of(host: str, port: int, resolver: Resolver) -> list[str]:
    """The addresses to connect to for ``host`` (a literal address is itself); ToolError when the
    name does not resolve."""
    literal = _parse(host)
    if literal is not None:
        return [str(literal)]
    try:
        found = await resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise ToolError(f"The host {host} could not be resolved ({exc}). Check the URL.") from exc
    addresses = [str(a) for a in (_parse(x) for x in found) if a is not None]
    if not addresses:
        raise ToolError(f"The host {host} has no address to connect to. Check the URL.")
    return addresses


def local_kind(address: str) -> str | None:
    """What a non-public address is (e.g. ``"loopback"``), or None for a public one."""
    parsed = _parse(address)
    if parsed is None:
        raise ValueError(f"{address!r} is not an IP address")
    ip = _embedded_ipv4(parsed) or parsed
    if ip.is_unspecified:
        return "unspecified (reaches this machine)"
    if ip.is_loopback:
        return "loopback"
    if str(ip) in METADATA_ADDRESSES:
        return "link-local (cloud metadata service)"
    if ip.is_link_local:
        return "link-local"
    if any(ip in network for network in _PRIVATE if network.version == ip.version):
        return "private network"
    if ip.version == 4 and ip in _SHARED:
        return "shared address space (carrier-grade NAT)"
    if ip.is_multicast:
        return "multicast"
    special = any(ip in network for network in _SPECIAL if network.version == ip.version)
    if special or not ip.is_global or ip.is_reserved or (ip.version == 6 and ip.is_site_local):
        return "special-purpose (not on the public internet)"
    return None


def local_addresses(addresses: list[str]) -> list[LocalAddress]:
    """The addresses among ``addresses`` that are not public, each with its kind."""
    out: list[LocalAddress] = []
    for address in addresses:
        kind = local_kind(address)
        if kind is not None:
            out.append(LocalAddress(address, kind))
    return out


def _parse(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return None


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries and reaches (mapped ``::ffff:…``, 6to4, NAT64)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None
