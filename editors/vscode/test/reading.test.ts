// What the view shows while reading an answer: tables held back while they stream, how a turn's end
// reads, what the user said to a tool call, and a turn's error that stays in the transcript.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { HookPart, ToolPart } from "../shared/protocol.ts";
import { hookSummary, turnEnding, userReply } from "../webview/derive.ts";
import { heldBackTail, renderMarkdown } from "../webview/markdown.ts";
import { applyEvent, messagesOf } from "../webview/state.ts";
import { fixture, freshState, play } from "./fixtures.ts";

describe("a table while it streams", () => {
  const cases: [string, string, string][] = [
    ["a header row without its delimiter yet", "Results:\n\n| name | value |\n", "Results:\n\n"],
    ["a header row still being written", "Results:\n\n| name | va", "Results:\n\n"],
    ["a delimiter row still being written", "Results:\n\n| name | value |\n| --- | -", "Results:\n\n"],
    ["header and delimiter: a table", "| name | value |\n| --- | --- |\n", "| name | value |\n| --- | --- |\n"],
    ["a body row still being written", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |", "| a | b |\n|---|---|\n| 1 | 2 |\n"],
    ["aligned delimiter", "| a | b |\n|:--|--:|\n| x", "| a | b |\n|:--|--:|\n"],
    ["text without tables", "Just text, a | in it\nand more", "Just text, a | in it\nand more"],
    ["a table after a paragraph, header only", "Intro line\n| a | b |\n", "Intro line\n"],
  ];
  for (const [name, tail, shown] of cases) {
    test(name, () => assert.equal(heldBackTail(tail, true), shown));
  }

  test("nothing is held back once the text is complete", () => {
    assert.equal(heldBackTail("Results:\n\n| name | value |", false), "Results:\n\n| name | value |");
  });

  test("what is shown never renders a raw table row as text", () => {
    const full = "Results:\n\n| name | value |\n| --- | --- |\n| a_b | 1 |\n| c_d | 2 |\n\nDone.";
    for (let i = 1; i <= full.length; i++) {
      const html = renderMarkdown(heldBackTail(full.slice(0, i), true));
      assert.doesNotMatch(html, /<p>[^<]*\|/, `at ${i}: ${html}`);
    }
  });

  test("a rendered table has header and data cells", () => {
    const html = renderMarkdown("| name | value |\n| --- | --- |\n| a_b | 1 |\n");
    assert.match(html, /<th>name<\/th>/);
    assert.match(html, /<td>a_b<\/td>/);
  });
});

describe("how a turn's end reads", () => {
  test("stopped by the user", () => {
    assert.deepEqual(turnEnding({ name: "aborted", message: "Aborted by the user" }), { kind: "stopped", text: "Stopped." });
  });

  test("cut by agentls stopping (a crash) is an error, not 'Stopped.'", () => {
    const ending = turnEnding({ name: "aborted", message: "interrupted: agentls stopped during this turn" });
    assert.equal(ending.kind, "error");
    assert.match(ending.text, /interrupted: agentls stopped/);
  });

  test("a failure shows its message", () => {
    assert.deepEqual(turnEnding({ name: "api", message: "the provider said 500" }), { kind: "error", text: "Error: the provider said 500" });
  });
});

describe("what the user said to a tool call", () => {
  const base = { id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "tool" as const, callID: "c1" };
  const time = { start: 1, end: 2 };

  test("a question's answers, one line per question", () => {
    const part: ToolPart = {
      ...base,
      tool: "question",
      state: {
        status: "completed",
        input: { questions: [{ question: "Which runner?" }, { question: "Which checks?" }, { question: "Unanswered?" }] },
        output: "The user answered: …",
        title: "Asked 3 questions",
        metadata: { answers: [["pytest"], ["ruff", "mypy"], []] },
        time,
      },
    };
    assert.deepEqual(userReply(part), { label: "You answered:", text: "Which runner? → pytest\nWhich checks? → ruff, mypy\nUnanswered? → (no answer)" });
  });

  test("a rejection with feedback shows the feedback", () => {
    const part: ToolPart = { ...base, tool: "edit", state: { status: "error", input: {}, error: "The user rejected this call and said: Use a comment", metadata: { rejected: true }, time } };
    assert.deepEqual(userReply(part), { label: "You rejected it and said:", text: "Use a comment" });
  });

  test("a plain rejection says so", () => {
    const part: ToolPart = { ...base, tool: "bash", state: { status: "error", input: {}, error: "The user rejected this call. Stop and wait.", metadata: { rejected: true }, time } };
    assert.deepEqual(userReply(part), { label: "You rejected it.", text: "" });
  });

  test("a failure that the user did not cause has none", () => {
    const part: ToolPart = { ...base, tool: "edit", state: { status: "error", input: {}, error: "oldString not found", time } };
    assert.equal(userReply(part), undefined);
  });
});

describe("a turn's error stays in the transcript", () => {
  test("an error before any answer stays under the user's message after the next turn starts", () => {
    const f = fixture("edit-turn");
    const state = freshState(f);
    const user = f.events.find((e) => e.type === "message.updated" && e.properties.info.role === "user");
    assert.ok(user);
    applyEvent(state, user);
    const userID = state.order[0];
    applyEvent(state, { type: "session.error", properties: { sessionID: f.session.id, error: { name: "unknown", message: "no model is configured", retryable: false } } });
    assert.equal(state.turnErrors.get(userID), "no model is configured");
    assert.ok(state.dirty.messages.has(userID));
    // The next turn clears the notice; the transcript keeps the error.
    applyEvent(state, { type: "session.status", properties: { sessionID: f.session.id, status: { type: "busy" } } });
    assert.equal(state.error, null);
    assert.equal(state.turnErrors.get(userID), "no model is configured");
  });

  test("an error the answer carries is not shown twice", () => {
    const f = fixture("edit-turn");
    const state = play(freshState(f), f.events);
    const last = messagesOf(state).at(-1);
    assert.ok(last && last.info.role === "assistant");
    applyEvent(state, { type: "message.updated", properties: { info: { ...last.info, error: { name: "api", message: "boom", retryable: false } } } });
    applyEvent(state, { type: "session.error", properties: { sessionID: f.session.id, error: { name: "api", message: "boom", retryable: false } } });
    assert.equal(state.turnErrors.size, 0);
  });

  test("a user's stop is not an error", () => {
    const f = fixture("abort");
    const state = play(freshState(f), f.events);
    assert.equal(state.turnErrors.size, 0);
  });
});

describe("a turn that ends", () => {
  test("marks its texts to be drawn again, so what was held back while they streamed shows", () => {
    const f = fixture("edit-turn");
    const state = play(freshState(f), f.events);
    const last = messagesOf(state).at(-1);
    assert.ok(last && last.info.role === "assistant");
    const texts = last.parts.filter((p) => p.type === "text").map((p) => p.id);
    assert.ok(texts.length > 0);
    state.dirty.parts.clear();
    applyEvent(state, { type: "message.updated", properties: { info: { ...last.info, error: { name: "aborted", message: "interrupted: agentls stopped during this turn", retryable: false } } } });
    for (const id of texts) assert.ok(state.dirty.parts.has(id), id);
  });
});

describe("a hook's run in the transcript", () => {
  const base: HookPart = {
    id: "prt_h", sessionID: "s", messageID: "m", type: "hook", event: "PreToolUse", command: "./no-rm.sh",
    source: "agentls config", exitCode: 0, timedOut: false, durationMs: 12, output: "", time: 0,
  };
  test("a hook that passed is one quiet line", () => {
    assert.deepEqual(hookSummary(base), { text: "Hook PreToolUse: ./no-rm.sh — exit 0, 12 ms", failed: false, detail: "agentls config" });
  });
  test("a hook that denied says so, and its output is on hover", () => {
    const shown = hookSummary({ ...base, exitCode: 2, output: "rm is blocked", effect: "denied" });
    assert.deepEqual(shown, { text: "Hook PreToolUse: ./no-rm.sh — exit 2, 12 ms · denied", failed: true, detail: "agentls config\nrm is blocked" });
  });
  test("a hook stopped at its timeout, and one that did not start", () => {
    // The server leaves out a field whose value is null (docs/protocol.md): no exitCode, no effect.
    const { exitCode: _exit, ...noExit } = base;
    assert.equal(hookSummary({ ...noExit, timedOut: true }).text, "Hook PreToolUse: ./no-rm.sh — timed out, 12 ms");
    assert.equal(hookSummary(noExit).text, "Hook PreToolUse: ./no-rm.sh — did not start, 12 ms");
  });
});
