"""The offline demo: a scripted fake model server that speaks OpenAI and Anthropic streaming HTTP."""

from demo.fake_model import FakeModelServer, RecordedRequest
from demo.fake_script import Turn

__all__ = ["FakeModelServer", "RecordedRequest", "Turn"]
