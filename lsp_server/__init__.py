"""agentls language server: hosts the core agent over LSP (the only package that imports pygls)."""
