"""Worktree sessions: the agent works in its own git worktree, on its own branch, so parallel
sessions never write the user's checkout or each other's (issue 40).

``git.py`` runs git; ``service.py`` creates, lists, diffs, merges and discards the worktrees agentls
made for a repository. They live in the data folder (``worktrees/<repo key>/<name>``), outside the
user's checkout, each on a branch ``agentls/<name>`` started from the checkout's ``HEAD`` (what is
uncommitted in the checkout stays there: the worktree never sees nor touches it).
"""
