"""The tools' fixtures (a temporary project, an allow-all context) for the sandbox's tests."""

from tests.unit.tools.conftest import ctx, project, recorder

__all__ = ["ctx", "project", "recorder"]
