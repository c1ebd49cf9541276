"""Prompt texts as files; load them with ``core.prompts.load``."""
