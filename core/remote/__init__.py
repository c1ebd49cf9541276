"""The attached path of the front door: an ``Agent`` that lives in the per-user host process
(``agentls host``) and is driven over a Unix domain socket (``RemoteAgent``).

``wire`` frames the messages and names the protocol version, ``place`` finds the socket and the
lock, ``connection`` carries requests both ways, ``codec`` turns the ``Agent`` protocol's arguments
and results into JSON and back, ``agent`` is the ``RemoteAgent`` and ``attach`` connects to a host
(or starts one). The host itself (``host/``) sits above the core and opens the in-process agents.
"""
