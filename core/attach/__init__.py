"""Context items: what the user attaches to a prompt, turned into the exact text the model sees.

``resolve.py`` runs each item and counts its tokens with the counter the model requests are counted
with; ``project.py`` reads what the server can read itself (a folder, the git changes, an earlier
session); ``editor.py`` formats what only the editor knows (problems, terminal text, a symbol's
definition, the active file and selection), which the client gathers and sends raw.
"""
