"""The pygls internals lsp_server/ depends on, by name and signature (issue 24).

``lsp_server/rpc.py`` overrides and calls private members of pygls' JSON-RPC protocol, and
``lsp_server/tcp.py`` resets its shutdown flag, because pygls offers no supported hook for
answering every malformed message or for running a command in the request's own task.
pyproject.toml pins pygls to the minor version these were written against; when a new pygls
changes any of them, this test names the one that moved before the server misbehaves.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version
from typing import Any

import pytest
from pygls.protocol import language_server
from pygls.protocol.json_rpc import JsonRPCProtocol

from lsp_server.features import build_server

PINNED_MINOR = "2.1"

# Methods of JsonRPCProtocol: the parameters lsp_server/ relies on (overridden or called).
METHODS: dict[str, list[str]] = {
    "_handle_request": ["self", "msg_id", "method_name", "params"],  # overridden
    "_check_handler_result": ["self", "future"],  # overridden
    "_get_handler": ["self", "feature_name"],
    "_execute_handler": ["self", "msg_id", "handler", "callback", "args", "kwargs"],
    "_send_response": ["self", "msg_id", "result", "error"],
    "structure_message": ["self", "data"],  # overridden (public, but its contract is pygls')
    "handle_message": ["self", "message"],
}
# Instance attributes of the protocol, and the type each must have.
ATTRIBUTES: dict[str, type | tuple[type, ...]] = {
    "_converter": object,
    "_server": object,
    "_shutdown": bool,  # written by lsp_server/tcp.py for a new client
    "_request_futures": dict,
    "_result_types": dict,
    "_ctx_msg_id": object,
}
# LanguageServerProtocol methods rpc.py overrides through @lsp_method and calls with super().
LSP_METHODS = ["lsp_initialize", "lsp_shutdown", "lsp_exit", "lsp_workspace__execute_command"]


def test_pygls_is_the_pinned_minor_version() -> None:
    assert version("pygls").startswith(PINNED_MINOR + "."), (
        f"pygls {version('pygls')}: check every member below, then move the pin in pyproject.toml"
    )


@pytest.mark.parametrize("name", list(METHODS))
def test_the_private_methods_rpc_uses_are_there(name: str) -> None:
    member = getattr(JsonRPCProtocol, name, None)
    assert callable(member), f"pygls no longer has JsonRPCProtocol.{name}"
    assert list(inspect.signature(member).parameters) == METHODS[name]


@pytest.mark.parametrize("name", list(ATTRIBUTES))
def test_the_private_attributes_are_there(name: str) -> None:
    protocol: Any = build_server().protocol
    assert isinstance(getattr(protocol, name, None), ATTRIBUTES[name]), name


def test_the_command_argument_helper_is_there() -> None:
    helper = getattr(language_server, "_prepare_command_arguments", None)
    assert helper is not None
    assert list(inspect.signature(helper).parameters) == ["handler", "params", "converter"]


@pytest.mark.parametrize("name", LSP_METHODS)
def test_the_lsp_methods_rpc_overrides_are_generators(name: str) -> None:
    member = getattr(language_server.LanguageServerProtocol, name)
    assert inspect.isgeneratorfunction(member), f"{name} is no longer a generator: super() calls break"
