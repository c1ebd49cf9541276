"""Review of the agent's changes: hunks with a state (pending, kept, undone), keep and undo."""
