"""How the environment says to reach a host, as curl and httpx read it: which proxy
(``https_proxy``, ``http_proxy``, ``all_proxy``, lower case first, and ``no_proxy``), and which CA
certificates verify HTTPS (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, else certifi's bundle)."""

from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Mapping


def proxy_setting(scheme: str, host: str, port: int, environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The variable naming the proxy for ``scheme://host:port`` and its value, or None (none set,
    or ``no_proxy`` matches)."""
    if _bypassed(host, port, _env(environ, "no_proxy")):
        return None
    for name in (f"{scheme}_proxy", "all_proxy"):
        value = _env(environ, name)
        if value:
            return name, value
    return None


def _env(environ: Mapping[str, str], name: str) -> str:
    value = environ.get(name)
    if value is None:
        value = environ.get(name.upper(), "")
    return value.strip()


def _bypassed(host: str, port: int, no_proxy: str) -> bool:
    host = host.lower().rstrip(".")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    for entry in (item.strip().lower() for item in no_proxy.split(",")):
        if not entry:
            continue
        if entry == "*":
            return True
        entry_host, entry_port = entry, None
        if entry.startswith("["):  # [::1]:8080
            entry_host, _, rest = entry[1:].partition("]")
            entry_port = rest[1:] or None
        elif entry.count(":") == 1:  # host:port (a bare IPv6 address has several colons)
            entry_host, entry_port = entry.split(":")
        if entry_port is not None and entry_port != str(port):
            continue
        if address is not None:
            try:
                if address in ipaddress.ip_network(entry_host, strict=False):
                    return True
            except ValueError:
                pass
            continue
        domain = entry_host.lstrip("*").lstrip(".").rstrip(".")
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


def tls_context(environ: Mapping[str, str]) -> ssl.SSLContext:
    """A verifying client context: ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's bundle.

    Loading a bundle takes OpenSSL 3 tens of ms, with the GIL held (a thread made ahead only slows
    the start it runs beside: 93 ms in an A/B), so plain-HTTP models never make one, and
    ``Client`` makes it while the first HTTPS connection's TCP handshake travels."""
    if cafile := environ.get("SSL_CERT_FILE"):
        try:
            context = ssl.create_default_context(cafile=cafile)
        except FileNotFoundError:
            raise FileNotFoundError(f"SSL_CERT_FILE={cafile}: no such file") from None
        except ssl.SSLError as exc:
            raise ssl.SSLError(f"SSL_CERT_FILE={cafile}: not a PEM file of CA certificates ({exc})") from None
    elif capath := environ.get("SSL_CERT_DIR"):
        if not os.path.isdir(capath):
            raise FileNotFoundError(f"SSL_CERT_DIR={capath}: no such folder")
        context = ssl.create_default_context(capath=capath)
    else:
        import certifi

        context = ssl.create_default_context(cafile=certifi.where())
    context.set_alpn_protocols(["http/1.1"])
    return context
