"""The table of methods is the one list: the server registers by it, the handshake lists what the
generator wrote from it, and a handler outside it is refused when the server is built."""

from __future__ import annotations

import pytest

from lsp_server import handshake, methods, wire_methods
from lsp_server import protocol as p
from lsp_server.features import build_server


def test_the_server_registers_every_client_method_of_the_table_and_no_other() -> None:
    server = build_server()
    assert server.agent_capability()["methods"] == methods.announced()


def test_the_handshake_lists_what_the_generator_wrote_from_the_table() -> None:
    agent = handshake.CAPABILITIES["experimental"]["agent"]
    assert agent["methods"] == list(wire_methods.METHODS) == methods.announced()
    assert agent["version"] == wire_methods.VERSION == methods.PROTOCOL_VERSION


def test_the_handshake_module_imports_nothing_heavy() -> None:
    source = wire_methods.__file__
    with open(source, encoding="utf-8") as file:
        text = file.read()
    assert "import" not in text.split('"""', 2)[2]


@pytest.mark.parametrize(
    ("method", "model", "says"),
    [
        (
            "agent/session/nope",
            p.SessionRef,
            "agent/session/nope is not a client request of lsp_server/methods.py",
        ),
        ("agent/event", p.NoParams, "agent/event is not a client request"),  # a server notification
        ("agent/diagnostics", p.Diagnostics, "agent/diagnostics is not a client request"),  # a notification
        ("agent/session/get", p.SessionCreate, "agent/session/get takes SessionRef (lsp_server/methods.py)"),
    ],
)
def test_a_handler_the_table_does_not_name_is_refused(method: str, model: type[p.Params], says: str) -> None:
    server = build_server()
    with pytest.raises(ValueError, match=r"^" + says.replace("(", r"\(").replace(")", r"\)")):
        server.request(method, model)


def test_every_method_has_one_line_and_a_doc() -> None:
    names = [m.name for m in methods.METHODS]
    assert len(names) == len(set(names))
    assert all(m.doc.endswith(".") and "\n" not in m.doc for m in methods.METHODS)
