"""agentls over the Agent Client Protocol (``agentls acp``): a sibling front end of ``lsp_server``.

It drives the same core (``core.app.AgentApp``) for ACP clients — Zed, JetBrains IDEs,
codecompanion.nvim, avante.nvim, agent-shell — and never imports ``lsp_server``.
"""
