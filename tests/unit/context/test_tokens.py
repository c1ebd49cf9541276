"""Token counting: offline encodings, the per-part cache, the chars/4 fallback."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.context.encoding import CL100K, O200K, Encoder, EncodingLoader, encoding_name_for
from core.context.tokens import CLEARED_OUTPUT, IMAGE_TOKENS, TokenCounter
from core.message.models import ToolPart

from .history import assistant, tool_part, turn, user

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = "The quick brown fox jumps over the lazy dog. 東京 <|endoftext|> def f(x): return x**2"


class CountingEncoder:
    """Wraps a real encoder and counts how often it is asked."""

    def __init__(self, inner: Encoder) -> None:
        self.inner = inner
        self.calls = 0

    def encode_ordinary(self, text: str) -> list[int]:
        self.calls += 1
        return self.inner.encode_ordinary(text)


def counting_counter() -> tuple[TokenCounter, CountingEncoder]:
    real = EncodingLoader().get(CL100K)
    assert real is not None
    wrapper = CountingEncoder(real)
    return TokenCounter(CL100K, loader=EncodingLoader(lambda name: wrapper)), wrapper


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", O200K),
        ("openai/gpt-4o-mini", O200K),
        ("gpt-4.1", O200K),
        ("gpt-5-codex", O200K),
        ("o3-mini", O200K),
        ("azure/o4-mini", O200K),
        ("gpt-4-turbo", CL100K),
        ("gpt-3.5-turbo", CL100K),
        ("anthropic/claude-sonnet-4-5", CL100K),
        ("ollama/qwen3:8b", CL100K),
    ],
)
def test_encoding_follows_the_model_family(model: str, encoding: str) -> None:
    assert encoding_name_for(model) == encoding


def test_offline_encodings_give_known_counts_and_allow_special_text() -> None:
    # Known counts of SAMPLE; encode_ordinary must not raise on the special-token text in it.
    assert TokenCounter(O200K, loader=EncodingLoader()).count_text(SAMPLE) == 26
    assert TokenCounter(CL100K, loader=EncodingLoader()).count_text(SAMPLE) == 27
    assert TokenCounter(O200K, loader=EncodingLoader()).exact


def test_loading_does_not_import_litellm() -> None:
    script = (
        "import sys; from core.context.tokens import TokenCounter;"
        "c = TokenCounter('o200k_base'); assert c.exact; print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_empty_cache_dir_falls_back_to_chars_over_4_with_one_warning(tmp_path: Path) -> None:
    script = (
        "import logging; logging.basicConfig(level=logging.WARNING);"
        "from core.context.tokens import TokenCounter;"
        "a = TokenCounter('o200k_base'); b = TokenCounter('cl100k_base');"
        "print(a.exact, b.exact, a.count_text('x' * 10), b.count_text('y' * 400))"
    )
    env = {**os.environ, "CUSTOM_TIKTOKEN_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False", "3", "100"]
    assert out.stderr.count("chars/4") == 1
    assert list(tmp_path.iterdir()) == []  # nothing was downloaded into it


def test_injected_loader_failure_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    def broken(name: str) -> Encoder:
        raise OSError(f"no file for {name}")

    loader = EncodingLoader(broken)
    with caplog.at_level(logging.WARNING, logger="core.context.encoding"):
        counters = [TokenCounter(name, loader=loader) for name in (O200K, CL100K, O200K)]
    assert [c.exact for c in counters] == [False, False, False]
    assert counters[0].count_text("abcdefgh" * 100) == 200
    assert len([r for r in caplog.records if "chars/4" in r.getMessage()]) == 1


def test_second_count_of_unchanged_history_does_not_tokenise() -> None:
    counter, encoder = counting_counter()
    history = []
    for i in range(20):
        history += turn(f"request {i}", tools=[("read", f"line {i}\n" * 300), ("grep", "match\n" * 50)])
    first = counter.count_messages(history)
    calls = encoder.calls
    assert calls > 0
    assert counter.count_messages(history) == first
    assert encoder.calls == calls

    # A new message costs only its own parts; a reloaded copy (new objects, same ids) costs nothing.
    extra = user("one more")
    counter.count_messages([*history, extra])
    assert encoder.calls == calls + 1
    reloaded = [m.model_copy(deep=True) for m in history]
    assert counter.count_messages(reloaded) == first
    assert encoder.calls == calls + 1


def test_pruning_a_part_changes_its_count() -> None:
    counter, _ = counting_counter()
    msg = assistant(user(), tools=[("read", "some long output line\n" * 500)])
    part = msg.parts[0]
    assert isinstance(part, ToolPart)
    before = counter.count_part(part)
    part.state.time.compacted = 123  # type: ignore[union-attr]
    after = counter.count_part(part)
    assert after < before
    assert after == counter.count_part(tool_part(msg.info.id, "read", CLEARED_OUTPUT))


def test_streaming_text_is_recounted_when_it_grows() -> None:
    counter, _ = counting_counter()
    msg = assistant(user(), text="Hello")
    part = msg.parts[0]
    first = counter.count_part(part)
    part.text += " there, more words"  # type: ignore[union-attr]
    assert counter.count_part(part) > first


def test_estimate_request_counts_system_messages_and_tools_and_caches_long_strings() -> None:
    counter, encoder = counting_counter()
    long = "import os\n" * 200
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "read it"}, {"type": "image_url", "image_url": {}}],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": long},
    ]
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    total = counter.estimate_request(["You are a coding agent."], messages, tools)
    assert total > IMAGE_TOKENS + counter.count_text(long)
    calls = encoder.calls
    assert counter.estimate_request(["You are a coding agent."], messages, tools) == total
    # Only the short strings are tokenised again; the long tool output comes from the cache.
    assert encoder.calls - calls < calls
    more = counter.estimate_request(
        ["You are a coding agent."], [*messages, {"role": "user", "content": "x"}], tools
    )
    assert more > total


def test_outputs_counted_in_the_history_are_not_tokenised_again_in_the_request() -> None:
    counter, encoder = counting_counter()
    output = "def handler(event):\n    return event\n" * 300
    history = turn("read it", tools=[("read", output)])
    counter.count_messages(history)
    calls = encoder.calls
    request = [{"role": "tool", "tool_call_id": "c1", "content": str(output)}]  # an equal, separate string
    counter.estimate_request([], request, [])
    assert encoder.calls == calls


def test_pruning_needs_no_new_tokenising_of_counted_outputs() -> None:
    counter, encoder = counting_counter()
    history = turn("a", tools=[("read", "line of output\n" * 400)])
    counter.count_messages(history)
    calls = encoder.calls
    part = history[1].parts[-1]
    assert isinstance(part, ToolPart)
    assert counter.count_output(part) > 0
    assert encoder.calls == calls


def test_counts_handed_over_to_a_new_counter_need_no_tokenising() -> None:
    history = [*turn("read it", tools=[("read", "line of code\n" * 5_000)]), user("thanks " * 200)]
    first, _ = counting_counter()
    total = first.count_messages(history)
    stored = first.take_fresh()  # what the store keeps with the parts
    assert {p.id for m in history for p in m.parts if first.count_part(p)} <= set(stored)
    assert first.take_fresh() == {}  # handed over once

    after_restart, encoder = counting_counter()
    after_restart.seed(stored)
    assert after_restart.count_messages(history) == total
    assert encoder.calls == 0
    [part] = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert after_restart.count_output(part) == first.count_output(part)
    assert encoder.calls == 0


def test_a_stored_count_of_other_content_or_encoding_is_not_trusted() -> None:
    history = [user("first version of the text " * 30)]
    first, _ = counting_counter()
    first.count_messages(history)
    stored = first.take_fresh()
    changed = [m.model_copy(deep=True) for m in history]
    text = changed[0].parts[0]
    text.text = text.text.replace("first", "other")  # type: ignore[union-attr]  # same length
    second, encoder = counting_counter()
    second.seed(stored)
    second.count_messages(changed)
    assert encoder.calls == 1
    o200k = TokenCounter(O200K)
    o200k.seed(stored)  # counted with cl100k: ignored
    assert o200k.count_messages(history) != 0 and o200k.take_fresh() != {}
