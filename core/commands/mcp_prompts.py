"""Run an MCP prompt as a slash command: ``/mcp__<server>__<prompt> args``.

A server's prompt has named string arguments; a user types them after the command as words
(positional, in the prompt's order) or as ``name=value``. What ``prompts/get`` returns is a list of
messages; they are sent as the user's prompt, one block per message.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from core.commands.catalog import Catalog
from core.commands.model import CommandInfo
from core.commands.template import split_arguments
from core.errors import InvalidInputError
from core.tools.mcp_listing import McpPrompt

log = logging.getLogger(__name__)

GetPrompt = Callable[[McpPrompt, dict[str, str]], Awaitable[Sequence[Any]]]
"""``prompts/get`` on the prompt's server: the messages it renders (``McpServers.get_prompt``)."""


def add_prompts(catalog: Catalog, prompts: Sequence[McpPrompt]) -> None:
    """Offer each prompt as ``/mcp__<server>__<prompt>``; a command of that name already there wins."""
    for prompt in prompts:
        name = prompt.command
        if name in catalog.commands:
            message = f"prompt {prompt.name} of MCP server {prompt.server} is not offered: /{name} is taken"
            log.warning("%s", message)
            catalog.warnings.append(message)
            continue
        description = prompt.description or f"The {prompt.name} prompt of the {prompt.server} MCP server"
        catalog.commands[name] = CommandInfo(
            name, description, "mcp", source=f"mcp:{prompt.server}", hint=prompt.hint, prompt=prompt
        )


async def prompt_text(get: GetPrompt, prompt: McpPrompt, raw: str) -> str:
    """The user's prompt ``/mcp__…  raw`` sends: the arguments mapped, the prompt rendered."""
    messages = await get(prompt, map_arguments(prompt, raw))
    text = render_messages(prompt.server, messages)
    if not text:
        raise InvalidInputError(f"the prompt {prompt.name} of the MCP server {prompt.server} gave no text")
    return text


def map_arguments(prompt: McpPrompt, raw: str) -> dict[str, str]:
    """The prompt's arguments from what the user typed after the command.

    ``name=value`` sets a named argument; other words fill the arguments not named yet, in order;
    the last of those takes the remaining words. InvalidInputError names what is missing or extra.
    """
    names = [a.name for a in prompt.arguments]
    usage = f"/{prompt.command} {prompt.hint}".rstrip()
    given: dict[str, str] = {}
    words: list[str] = []
    for word in split_arguments(raw.strip()):
        key, sep, value = word.partition("=")
        if sep and key in names:
            given[key] = value
        else:
            words.append(word)
    free = [n for n in names if n not in given]
    if words and not free:
        raise InvalidInputError(
            f"/{prompt.command} takes no more arguments: {' '.join(words)!r} is left over (usage: {usage})"
        )
    for i, name in enumerate(free):
        if i >= len(words):
            break
        given[name] = " ".join(words[i:]) if i == len(free) - 1 else words[i]
    missing = [a.name for a in prompt.arguments if a.required and a.name not in given]
    if missing:
        raise InvalidInputError(
            f"/{prompt.command} needs the argument{'s' if len(missing) > 1 else ''} "
            f"{', '.join(missing)} (usage: {usage}; name=value also works)"
        )
    return given


def render_messages(server: str, messages: Sequence[Any]) -> str:
    """The text a prompt's messages send as the user's prompt: each message's text, an embedded
    resource's text under its URI, a note for what is not text (an image, audio)."""
    blocks: list[str] = []
    roles = {m.role for m in messages}
    for message in messages:
        text = _content_text(server, message.content)
        if len(roles) > 1:  # a prompt that plays both sides: say who says what
            text = f"[{message.role}]\n{text}"
        blocks.append(text)
    return "\n\n".join(blocks).strip()


def _content_text(server: str, content: Any) -> str:
    kind = getattr(content, "type", "")
    if kind == "text":
        return str(content.text)
    if kind == "resource":
        inner = content.resource
        text = getattr(inner, "text", None)
        if isinstance(text, str):
            return f"{inner.uri}:\n{text}"
        return f"[binary resource {inner.uri} of {server} omitted]"
    if kind == "resource_link":
        return f"[resource {content.uri} of {server}]"
    return f"[{kind or 'content'} from {server} omitted: only text is sent]"
