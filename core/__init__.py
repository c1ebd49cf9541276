"""agentls core: the editor-agnostic coding agent (never imports pygls or lsprotocol)."""

__version__ = "0.1.0"
