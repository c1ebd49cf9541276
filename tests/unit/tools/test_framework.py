"""Validation, truncation, registry and spec of the tool framework."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, Field

from core.errors import NotFoundError, ToolError
from core.tools.base import Tool, ToolParams, ToolResult, TruncateMode
from core.tools.context import ToolContext
from core.tools.registry import ToolRegistry, builtin_registry
from core.tools.runner import run_tool
from core.tools.schema import tool_parameters_schema
from core.tools.truncation import cut
from tests.unit.tools.harness import text_of


class EchoParams(ToolParams):
    text: str = Field(description="What to print")
    times: int = Field(1, ge=1, description="How often")


class EchoTool(Tool[EchoParams]):
    """A tool whose output the test controls; its description file is not needed for these tests."""

    id = "echo"
    Params = EchoParams
    truncate: ClassVar[TruncateMode] = "head"

    @property
    def description(self) -> str:
        return "Print text."

    async def execute(self, params: EchoParams, ctx: ToolContext) -> ToolResult:
        return ToolResult("echo", "\n".join([params.text] * params.times), {"kept": 1})


class TailEcho(EchoTool):
    truncate: ClassVar[TruncateMode] = "tail"


async def test_invalid_arguments_become_a_model_readable_tool_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as info:
        await run_tool(EchoTool(), {"times": "many", "colour": "red"}, ctx)
    message = str(info.value)
    assert message.startswith("The echo tool was called with invalid arguments: ")
    assert "text: field required" in message
    assert "times: input should be a valid integer" in message
    assert "colour: unknown parameter" in message
    assert message.endswith("Rewrite the input so it satisfies the expected schema.")


async def test_missing_arguments_object_is_validated_as_empty(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="text: field required"):
        await run_tool(EchoTool(), None, ctx)


async def test_small_output_is_untouched(ctx: ToolContext) -> None:
    result = await run_tool(EchoTool(), {"text": "hi", "times": 3}, ctx)
    assert result.output == "hi\nhi\nhi"
    assert "truncated" not in result.metadata
    assert not ctx.output_dir.exists()


async def test_output_over_the_line_limit_keeps_the_head_and_saves_the_rest(ctx: ToolContext) -> None:
    ctx.max_lines = 10
    result = await run_tool(EchoTool(), {"text": "line", "times": 25}, ctx)
    saved = Path(result.metadata["outputPath"])
    assert saved.parent == ctx.output_dir and saved.name.startswith("tool_")
    assert text_of(saved) == "\n".join(["line"] * 25)
    assert result.metadata == {"kept": 1, "truncated": True, "outputPath": str(saved)}
    head, rest = result.output.split("\n\n", 1)
    assert head == "\n".join(["line"] * 10)
    assert rest.startswith("[... 15 lines truncated ...]")
    assert str(saved) in rest and "grep" in rest and "offset" in rest


async def test_output_over_the_byte_limit_is_cut_by_bytes(ctx: ToolContext) -> None:
    ctx.max_bytes = 100
    result = await run_tool(EchoTool(), {"text": "x" * 30, "times": 10}, ctx)
    preview = result.output.split("\n\n", 1)[0]
    assert len(preview.encode()) <= 100
    assert preview.splitlines() == ["x" * 30] * 3
    assert "bytes truncated" in result.output
    assert text_of(result.metadata["outputPath"]).count("x") == 300


async def test_tail_truncation_keeps_the_end(ctx: ToolContext) -> None:
    ctx.max_lines = 3
    tool = TailEcho()
    result = await run_tool(tool, {"text": "same", "times": 5}, ctx)
    assert result.output.startswith("[... 2 lines truncated ...]")
    assert result.output.endswith("same\nsame\nsame")


def test_one_huge_line_is_cut_to_a_byte_prefix_or_suffix() -> None:
    text = "é" * 100  # two bytes each: the cut must not split a character
    head, removed = cut(text, 10, 51, "head")
    assert head == "é" * 25 and removed == "150 bytes"
    tail, _ = cut("a" + "é" * 100, 10, 51, "tail")
    assert tail == "é" * 25


class Inner(BaseModel):
    name: str = Field(description="A name")


class NestedParams(ToolParams):
    items: list[Inner] = Field(description="Things")
    note: str | None = Field(None, description="Optional note")
    count: int | None = Field(3, description="Nullable with a real default")


def test_schema_is_made_once_and_each_caller_gets_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    class OnceParams(ToolParams):
        path: str = Field(description="Where")

    made = []
    real = OnceParams.model_json_schema.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(OnceParams, "model_json_schema", classmethod(lambda cls: made.append(1) or real(cls)))
    first = tool_parameters_schema(OnceParams)
    first["properties"]["path"]["description"] = "changed by a sender"
    second = tool_parameters_schema(OnceParams)
    assert len(made) == 1
    assert second["properties"]["path"]["description"] == "Where"
    assert second is not first


def test_schema_is_cleaned_for_providers() -> None:
    schema = tool_parameters_schema(NestedParams)
    assert schema == {
        "type": "object",
        "additionalProperties": False,
        "required": ["items"],
        "properties": {
            "items": {
                "type": "array",
                "description": "Things",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["name"],
                    "properties": {"name": {"type": "string", "description": "A name"}},
                },
            },
            "note": {"type": "string", "description": "Optional note"},
            "count": {
                "anyOf": [{"type": "integer"}, {"type": "null"}],
                "default": 3,
                "description": "Nullable with a real default",
            },
        },
    }


def test_registry_specs_and_duplicates() -> None:
    registry = ToolRegistry()
    registry.register(EchoTool())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(EchoTool())
    registry.register(TailEcho(), replace=True)
    assert isinstance(registry.get("echo"), TailEcho)
    assert registry.get("nope") is None
    assert registry.specs(["echo"])[0]["name"] == "echo"
    with pytest.raises(NotFoundError):
        registry.specs(["nope"])


def test_builtin_registry_holds_the_core_tools_with_their_descriptions() -> None:
    registry = builtin_registry()
    assert registry.ids() == [
        "read",
        "write",
        "edit",
        "apply_patch",
        "bash",
        "shell_output",
        "shell_kill",
        "grep",
        "glob",
        "list",
    ]
    for tool in registry.all():
        assert len(tool.description) > 100, tool.id
    read_only: dict[str, Any] = {t.id: t.read_only for t in registry.all()}
    assert read_only == {
        "read": True,
        "write": False,
        "edit": False,
        "apply_patch": False,
        "bash": False,
        "shell_output": True,
        "shell_kill": False,
        "grep": True,
        "glob": True,
        "list": True,
    }
