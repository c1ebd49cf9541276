"""The tool contract: parameters as a pydantic model, a description file, and ``execute``."""

from __future__ import annotations

import importlib.resources
from abc import ABC, abstractmethod
from dataclasses import field
from functools import cache
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from core.message.models import FilePart
from core.record import struct
from core.tools.context import ToolContext
from core.tools.schema import tool_parameters_schema

TruncateMode = Literal["head", "tail", "none"]


class ToolParams(BaseModel):
    """Base of tool parameter models: unknown keys are an error the model is told about."""

    model_config = ConfigDict(extra="forbid")


@struct
class ToolResult:
    """What a tool hands back: a short title, the text the model reads, metadata for the UI."""

    title: str
    output: str
    metadata: dict[str, Any] = field(default_factory=dict)
    attachments: list[FilePart] | None = None


P = TypeVar("P", bound=BaseModel)


class Tool(ABC, Generic[P]):
    """A tool the model can call.

    Subclasses set ``id`` and ``Params`` and put their description in ``<module>.txt`` beside the
    module. ``read_only`` tools may run concurrently with each other. ``truncate`` says which end of
    an oversized output the runner keeps (``"none"``: the tool limits its own output). A NUL byte
    is refused in every argument but those in ``nul_allowed``.
    """

    id: ClassVar[str]
    Params: ClassVar[type[BaseModel]]
    read_only: ClassVar[bool] = False
    truncate: ClassVar[TruncateMode] = "head"
    nul_allowed: ClassVar[frozenset[str]] = frozenset()  # arguments that are file content

    @property
    def description(self) -> str:
        """The text the model reads about this tool."""
        return load_description(type(self).__module__)

    @abstractmethod
    async def execute(self, params: P, ctx: ToolContext) -> ToolResult:
        """Run the tool; failures the model should act on raise ``ToolError``."""

    def spec(self) -> dict[str, Any]:
        """The provider-facing declaration: name, description and JSON-schema parameters."""
        return {
            "name": self.id,
            "description": self.description,
            "parameters": tool_parameters_schema(self.Params),
        }


# The tools offered to one step, by id. Their parameter models differ, hence ``Tool[Any]``: the
# runner validates each call's arguments against the tool's own ``Params`` before ``execute``.
ToolSet = dict[str, Tool[Any]]


@cache
def load_description(module: str) -> str:
    """The description file ``<module>.txt`` that sits beside a tool module."""
    package, _, name = module.rpartition(".")
    return importlib.resources.files(package).joinpath(f"{name}.txt").read_text(encoding="utf-8").strip()
