"""agentls over the Agent Client Protocol (``agentls acp``): a sibling front end of ``lsp_server``.

It drives the same core (through its front door, ``core.api.Agent``) for ACP clients — Zed, JetBrains IDEs,
codecompanion.nvim, avante.nvim, agent-shell — and never imports ``lsp_server``.
"""
