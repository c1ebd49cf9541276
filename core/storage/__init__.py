"""SQLite persistence: ``Store.open(path)`` and the records it returns. Publishes no events."""

from core.message.search import SearchFilter, SearchHit
from core.storage.approvals import Approval
from core.storage.project import Project
from core.storage.recovery import TOOL_INTERRUPTED, TURN_INTERRUPTED, RecoveryReport
from core.storage.rows import InvalidRow, InvalidRowError, OnInvalid
from core.storage.store import DB_NAME, Store

__all__ = [
    "DB_NAME",
    "TOOL_INTERRUPTED",
    "TURN_INTERRUPTED",
    "Approval",
    "InvalidRow",
    "InvalidRowError",
    "OnInvalid",
    "Project",
    "RecoveryReport",
    "SearchFilter",
    "SearchHit",
    "Store",
]
