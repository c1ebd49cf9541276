"""The `agentls` launcher: the one place that knows every front end's commands (see ``cli``)."""
