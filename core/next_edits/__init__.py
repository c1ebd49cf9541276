"""Next edits: a pattern the agent's or the user's edit starts (a renamed identifier, a changed call
signature), the remaining sites of it, and the small model's edit at one site (issue #41).

Pure functions over text (``pattern``, ``sites``) and one model call (``suggest``); the language
server decides when to run them and caches what they give (``lsp_server/next_edits.py``).
"""
