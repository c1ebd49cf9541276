"""Which addresses a fetch asks about before it connects: a table of every special range."""

from __future__ import annotations

import pytest

from core.errors import ToolError
from core.tools.webaddress import LocalAddress, addresses_of, local_addresses, local_kind

LOCAL = [
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("::1", "loopback"),
    ("0.0.0.0", "unspecified (reaches this machine)"),
    ("::", "unspecified (reaches this machine)"),
    ("10.0.0.1", "private network"),
    ("10.255.255.255", "private network"),
    ("172.16.0.1", "private network"),
    ("172.31.255.255", "private network"),
    ("192.168.1.1", "private network"),
    ("fc00::1", "private network"),
    ("fd12:3456::1", "private network"),
    ("169.254.169.254", "link-local (cloud metadata service)"),
    ("169.254.170.2", "link-local (cloud metadata service)"),
    ("fd00:ec2::254", "link-local (cloud metadata service)"),
    ("169.254.1.1", "link-local"),
    ("fe80::1", "link-local"),
    ("fe80::1%eth0", "link-local"),
    ("100.64.0.1", "shared address space (carrier-grade NAT)"),
    ("100.127.255.255", "shared address space (carrier-grade NAT)"),
    ("224.0.0.1", "multicast"),
    ("ff02::1", "multicast"),
    ("0.1.2.3", "special-purpose (not on the public internet)"),
    ("192.0.0.8", "special-purpose (not on the public internet)"),
    ("192.0.2.1", "special-purpose (not on the public internet)"),
    ("198.18.0.1", "special-purpose (not on the public internet)"),
    ("198.51.100.7", "special-purpose (not on the public internet)"),
    ("203.0.113.9", "special-purpose (not on the public internet)"),
    ("240.0.0.1", "special-purpose (not on the public internet)"),
    ("255.255.255.255", "special-purpose (not on the public internet)"),
    ("2001:db8::1", "special-purpose (not on the public internet)"),
    ("fec0::1", "special-purpose (not on the public internet)"),
    # IPv6 forms that carry, and reach, an IPv4 address: judged by that address.
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:169.254.169.254", "link-local (cloud metadata service)"),
    ("::ffff:10.1.2.3", "private network"),
    ("2002:7f00:1::", "loopback"),  # 6to4 of 127.0.0.1
    ("2002:c0a8:101::1", "private network"),  # 6to4 of 192.168.1.1
    ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
    ("64:ff9b::a9fe:a9fe", "link-local (cloud metadata service)"),  # NAT64 of 169.254.169.254
]

PUBLIC = [
    "1.1.1.1",
    "8.8.8.8",
    "93.184.215.14",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
]


@pytest.mark.parametrize(("address", "kind"), LOCAL)
def test_local_addresses_are_named(address: str, kind: str) -> None:
    assert local_kind(address) == kind


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_not_local(address: str) -> None:
    assert local_kind(address) is None


def test_a_name_is_not_an_address() -> None:
    with pytest.raises(ValueError, match="not an IP address"):
        local_kind("localhost")


def test_patterns_bracket_ipv6() -> None:
    assert LocalAddress("127.0.0.1", "loopback").pattern(8080) == "127.0.0.1:8080"
    assert LocalAddress("::1", "loopback").pattern(443) == "[::1]:443"


def test_local_addresses_keeps_only_the_local_ones_in_order() -> None:
    found = local_addresses(["8.8.8.8", "::1", "10.0.0.2"])
    assert found == [LocalAddress("::1", "loopback"), LocalAddress("10.0.0.2", "private network")]


async def test_a_literal_address_is_not_resolved() -> None:
    asked: list[str] = []

    async def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["8.8.8.8"]

    assert await addresses_of("127.0.0.1", 80, resolver) == ["127.0.0.1"]
    assert await addresses_of("::1", 80, resolver) == ["::1"]
    assert await addresses_of("docs.test", 80, resolver) == ["8.8.8.8"]
    assert asked == ["docs.test"]


async def test_a_name_that_does_not_resolve_is_a_tool_error() -> None:
    async def nothing(host: str, port: int) -> list[str]:
        raise OSError(-2, "Name or service not known")

    async def empty(host: str, port: int) -> list[str]:
        return []

    with pytest.raises(ToolError, match="could not be resolved"):
        await addresses_of("nowhere.test", 80, nothing)
    with pytest.raises(ToolError, match="no address"):
        await addresses_of("nowhere.test", 80, empty)
