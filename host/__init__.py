"""``agentls host``: the per-user process that owns the running agents (one per project) and
serves every front end that attaches over a Unix domain socket (docs/host.md).

``server`` listens, locks the data dir and exits when idle; ``front_end`` is one attached
connection (its hello, its calls, the events it receives); ``projects`` opens each project's
agent once and shares it. The front end's side is ``core.remote``.
"""
