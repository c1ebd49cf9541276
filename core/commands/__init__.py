"""Slash commands: the built-in ones and the user's own (config ``command`` key and Markdown files)."""
