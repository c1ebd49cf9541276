"""The OS sandbox every command the agent runs is confined in.

One policy type (``policy.SandboxPolicy``: ``read-only``, ``workspace-write``, ``full``), a backend
per platform (``bubblewrap`` on Linux, ``seatbelt`` on macOS), and ``sandbox.Sandbox``, which is all a
tool sees: it never knows how the confinement is done. The permission rules decide what asks; the
sandbox decides what can happen.
"""
