"""Questions the agent asks the user mid-turn, answered from the editor."""

from core.question.service import Questions

__all__ = ["Questions"]
