"""How the environment says to reach a host, as curl reads it: which proxy (``https_proxy``,
``http_proxy``, ``all_proxy``, lower case first, and ``no_proxy`` with domains, addresses and
networks), and which CA certificates verify HTTPS (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, else
certifi's bundle).

The one policy for every connection agentls makes: model requests (``core.llm.http``) and the
httpx clients that fetch web pages (``httpx_options``: httpx's own reading of the environment, which
differs, e.g. it takes no network in ``no_proxy``, is switched off)."""

from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit


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


def proxy_url(scheme: str, host: str, port: int, environ: Mapping[str, str]) -> str | None:
    """The proxy URL for ``scheme://host:port`` (``http://`` added when the setting has no
    scheme), or None; ValueError for a SOCKS proxy, which no client here speaks."""
    setting = proxy_setting(scheme, host, port, environ)
    if setting is None:
        return None
    name, value = setting
    if value.split("://", 1)[0].lower().startswith("socks"):
        raise ValueError(f"{name}={value}: SOCKS proxies are not supported (use an HTTP proxy)")
    return value if "://" in value else f"http://{value}"


def httpx_options(url: str, environ: Mapping[str, str]) -> dict[str, Any]:
    """Keyword arguments for an ``httpx.AsyncClient`` that fetches ``url``: the proxy and the CA
    certificates model requests would use (ValueError for a SOCKS proxy or a URL httpx cannot
    take; OSError for CA settings that do not load). A redirect keeps the first URL's proxy."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    proxy = None
    if scheme in ("http", "https") and parts.hostname:
        port = parts.port or (443 if scheme == "https" else 80)
        proxy = proxy_url(scheme, parts.hostname, port, environ)
    return {"trust_env": False, "verify": tls_context(environ), "proxy": proxy}


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
