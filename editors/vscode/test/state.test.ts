// The view's reducer on event streams recorded from a real `agentls serve` (tests/vscode/record_fixtures.py).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AgentEvent, ToolPart } from "../shared/protocol.ts";
import { lineRange, toolSummary, usage } from "../webview/derive.ts";
import { applyEvent, emptyDirty, initialState, loadSnapshot, messagesOf, setDraftControls, setSessions } from "../webview/state.ts";
import { fixture, freshState, play, SCENARIOS } from "./fixtures.ts";

for (const name of SCENARIOS) {
  describe(`recorded stream: ${name}`, () => {
    const f = fixture(name);

    test("streaming builds exactly the transcript the server stores (what a reload shows)", () => {
      const state = play(freshState(f), f.events);
      assert.deepEqual(messagesOf(state), f.messages);
    });

    test("a reload (snapshot) shows the same transcript as the stream", () => {
      const streamed = play(freshState(f), f.events);
      const reloaded = freshState(f);
      loadSnapshot(reloaded, { session: f.session, messages: f.messages, permissions: [], questions: [], todos: [], changes: [], busy: false });
      assert.deepEqual(messagesOf(reloaded), messagesOf(streamed));
    });

    test("text only ever grows, as a prefix of its final value", () => {
      const finalText = new Map<string, string>();
      for (const m of f.messages) for (const p of m.parts) if (p.type === "text" || p.type === "reasoning") finalText.set(p.id, p.text);
      const state = freshState(f);
      play(state, f.events, (event) => {
        if (event.type !== "message.part.delta") return;
        const { messageID, partID } = event.properties;
        const part = state.messages.get(messageID)?.parts.find((p) => p.id === partID);
        const text = part && "text" in part ? String(part.text) : "";
        const full = finalText.get(partID);
        if (full !== undefined) assert.ok(full.startsWith(text), `${partID}: ${JSON.stringify(text)} is not a prefix of ${JSON.stringify(full)}`);
      });
    });

    test("the turn ends idle with no dialog left open", () => {
      const state = play(freshState(f), f.events);
      assert.equal(state.status.type, "idle");
      assert.equal(state.permissions.length, 0);
      assert.equal(state.questions.length, 0);
    });

    test("every change is marked for the renderer, and nothing is marked twice for a clean state", () => {
      const state = freshState(f);
      state.dirty = emptyDirty();
      play(state, f.events);
      const partIDs = new Set(f.messages.flatMap((m) => m.parts.map((p) => p.id)));
      for (const id of partIDs) assert.ok(state.dirty.parts.has(id), `part ${id} never marked dirty`);
      assert.ok(state.dirty.transcript);
    });
  });
}

describe("edit turn", () => {
  const f = fixture("edit-turn");

  test("the permission dialog opens on permission.asked and closes on permission.replied", () => {
    const state = freshState(f);
    const open: number[] = [];
    play(state, f.events, () => open.push(state.permissions.length));
    const asked = f.events.findIndex((e) => e.type === "permission.asked");
    const replied = f.events.findIndex((e) => e.type === "permission.replied");
    assert.ok(asked >= 0 && replied > asked);
    assert.equal(open[asked], 1);
    assert.equal(open[replied], 0);
    const request = (f.events[asked] as Extract<AgentEvent, { type: "permission.asked" }>).properties.request;
    assert.equal(request.permission, "edit");
    // The request carries what the diff editor shows before the user allows it.
    assert.equal(typeof request.metadata.filepath, "string");
    assert.equal(typeof request.metadata.diff, "string");
  });

  test("todos, changes, tool cards and usage", () => {
    const state = play(freshState(f), f.events);
    assert.deepEqual(state.todos.map((t) => [t.content, t.status]), [["Read calc.py", "completed"], ["Fix add()", "in_progress"]]);
    assert.deepEqual(state.changes.map((c) => [c.file, c.additions, c.deletions]), [["calc.py", 1, 1]]);
    const tools = messagesOf(state).flatMap((m) => m.parts.filter((p): p is ToolPart => p.type === "tool"));
    assert.deepEqual(tools.map((t) => [t.tool, t.state.status]), [["read", "completed"], ["todowrite", "completed"], ["edit", "completed"], ["bash", "completed"]]);
    const edit = toolSummary(tools[2]);
    assert.equal(edit.additions, 1);
    assert.equal(edit.deletions, 1);
    assert.ok(edit.patch?.includes("+    return a + b"));
    const bash = toolSummary(tools[3]);
    assert.ok(bash.command?.includes("print('ran')"));
    assert.ok(bash.output?.includes("ran"));
    const u = usage({ ...state, config: { agents: [], models: [], defaultAgent: "build", defaultModel: "fake/m", modelLimits: { "fake/m": { context: 100_000, output: 4_000 } } } });
    assert.equal(u.tokens, 1600 + 40); // the last step: input + cache read + output
    assert.equal(u.context, 100_000);
    assert.equal(u.percent, 2);
  });

  test("a call the user rejected is marked rejected, a failed one is not", () => {
    const base = { id: "prt_1", sessionID: "ses_1", messageID: "msg_1", type: "tool" as const, callID: "c1", tool: "edit" };
    const time = { start: 1, end: 2 };
    const rejected = toolSummary({ ...base, state: { status: "error", input: {}, error: "The user rejected this call.", metadata: { rejected: true }, time } });
    const failed = toolSummary({ ...base, state: { status: "error", input: {}, error: "oldString not found", time } });
    assert.equal(rejected.rejected, true);
    assert.equal(failed.rejected, undefined);
    assert.equal(failed.error, "oldString not found");
  });

  test("reasoning arrives as its own part", () => {
    const state = play(freshState(f), f.events);
    const reasoning = messagesOf(state).flatMap((m) => m.parts).find((p) => p.type === "reasoning");
    assert.ok(reasoning && "text" in reasoning && String(reasoning.text).includes("read it first"));
  });

  test("events of another session do not touch this transcript, but do update the session list", () => {
    const state = freshState(f);
    setSessions(state, [f.session], false, false);
    const other = f.events.map((e) => JSON.parse(JSON.stringify(e).replaceAll(f.session.id, "ses_other")) as AgentEvent);
    play(state, other);
    assert.equal(state.order.length, 0);
    assert.ok(state.sessions.some((s) => s.id === "ses_other"));
  });
});

describe("question", () => {
  test("the question dialog shows its options and closes when answered", () => {
    const f = fixture("question");
    const state = freshState(f);
    let seen = 0;
    play(state, f.events, (e) => {
      if (e.type === "question.asked") {
        seen = state.questions.length;
        assert.deepEqual(state.questions[0].questions[0].options.map((o) => o.label), ["pytest", "unittest"]);
      }
    });
    assert.equal(seen, 1);
    assert.equal(state.questions.length, 0);
  });
});

describe("plan review", () => {
  test("a plan waits as a dialog card until it is answered or its turn is aborted; a reload shows it", () => {
    const f = fixture("edit-turn");
    const state = freshState(f);
    const request = { id: "pln_1", sessionID: f.session.id, path: ".agentls/plans/fix.md", text: "# Fix\n1. add\n" };
    state.dirty = emptyDirty();
    applyEvent(state, { type: "plan.review.asked", properties: { request } });
    applyEvent(state, { type: "plan.review.asked", properties: { request } }); // listed again after a reconnect
    assert.deepEqual(state.plans, [request]);
    assert.equal(state.dirty.dialogs, true);
    applyEvent(state, { type: "plan.review.replied", properties: { sessionID: f.session.id, requestID: "pln_1", reply: "revise" } });
    assert.deepEqual(state.plans, []);
    applyEvent(state, { type: "plan.review.asked", properties: { request: { ...request, id: "pln_2" } } });
    applyEvent(state, { type: "plan.review.cancelled", properties: { sessionID: f.session.id, requestID: "pln_2" } });
    assert.deepEqual(state.plans, []);
    loadSnapshot(state, { session: f.session, messages: f.messages, permissions: [], questions: [], plans: [request], todos: [], changes: [], busy: true });
    assert.deepEqual(state.plans, [request]);
  });
});

describe("retry", () => {
  test("the status shows the retry with its attempt and when it happens, then goes back to busy", () => {
    const f = fixture("retry");
    const state = freshState(f);
    const statuses: string[] = [];
    play(state, f.events, (e) => {
      if (e.type === "session.status") statuses.push(state.status.type);
      if (state.status.type === "retry") {
        assert.equal(state.status.attempt, 1);
        assert.equal(typeof state.status.next, "number");
      }
    });
    assert.ok(statuses.includes("retry"));
    assert.equal(statuses[statuses.length - 1], "idle");
  });
});

describe("abort", () => {
  test("the aborted message ends with error 'aborted' and no error banner", () => {
    const f = fixture("abort");
    const state = play(freshState(f), f.events);
    const last = messagesOf(state).at(-1);
    assert.equal(last?.info.role, "assistant");
    assert.equal(last?.info.role === "assistant" ? last.info.error?.name : undefined, "aborted");
    assert.equal(state.error, null);
  });
});

describe("out-of-order events", () => {
  test("a delta for a part not seen yet creates it; its message is created as a placeholder", () => {
    const f = fixture("edit-turn");
    const state = freshState(f);
    applyEvent(state, { type: "message.part.delta", properties: { sessionID: f.session.id, messageID: "msg_zz", partID: "prt_zz", field: "text", delta: "hi" } });
    const view = state.messages.get("msg_zz");
    assert.equal(view?.parts[0].type, "text");
    assert.equal(view?.parts[0].type === "text" ? view.parts[0].text : "", "hi");
  });
});

describe("config.updated", () => {
  test("new settings in the server replace the pickers' lists and defaults, whatever the session", () => {
    const state = freshState(fixture("edit-turn"));
    state.session = null;
    state.dirty = emptyDirty();
    const event: AgentEvent = {
      type: "config.updated",
      properties: { changed: ["model"], agents: [{ name: "build", description: null, mode: "primary", model: null }], models: ["fake/m", "other/n"], defaultAgent: "build", defaultModel: "other/n", modelLimits: {} },
    };
    applyEvent(state, event);
    assert.equal(state.config?.defaultModel, "other/n");
    assert.deepEqual(state.config?.models, ["fake/m", "other/n"]);
    assert.equal(state.dirty.header, true);
  });
});

describe("attachment chips", () => {
  test("a range attached shows its lines; a whole file shows none", () => {
    assert.equal(lineRange({ start: 1, end: 2 }), ":1-2");
    assert.equal(lineRange({ start: 4, end: 4 }), ":4");
    assert.equal(lineRange({}), "");
    assert.equal(lineRange(undefined), "");
  });
});

describe("agent.warning", () => {
  const f = fixture("edit-turn");

  test("a warning of the open session is kept for the notice; another session's is not", () => {
    const state = freshState(f);
    state.dirty = emptyDirty();
    const sessionID = state.session?.id;
    applyEvent(state, { type: "agent.warning", properties: { kind: "small-model", message: "no small model", sessionID } });
    applyEvent(state, { type: "agent.warning", properties: { kind: "abort", message: "elsewhere", sessionID: "ses_other" } });
    assert.deepEqual(state.warnings, ["no small model"]);
    assert.ok(state.dirty.header);
    loadSnapshot(state, { session: f.session, messages: [], permissions: [], questions: [], todos: [], changes: [], busy: false });
    assert.deepEqual(state.warnings, [], "another session (or a reload) starts without them");
  });
});

describe("an empty chat's controls", () => {
  const f = fixture("edit-turn");
  const modes = {
    sessionID: null, sessionId: null, mode: "plan",
    modes: [{ id: "ask", name: "Ask", description: "asks before edits" }, { id: "plan", name: "Plan", description: "read-only" }],
  };
  const effort = { sessionID: null, sessionId: null, effort: "default", levels: ["low", "high"], model: null };

  test("a chat with no session shows what its session will start with", () => {
    const state = initialState();
    loadSnapshot(state, null);
    state.dirty = emptyDirty();
    setDraftControls(state, modes, effort);
    assert.deepEqual([state.mode, state.effort], [modes, effort]);
    assert.ok(state.dirty.header);
  });

  test("a session's own controls win over a late draft", () => {
    const state = freshState(f);
    loadSnapshot(state, { session: f.session, messages: [], permissions: [], questions: [], todos: [], changes: [], busy: false, mode: { ...modes, sessionID: f.session.id, sessionId: f.session.id, mode: "ask" } });
    setDraftControls(state, modes, effort);
    assert.equal(state.mode?.mode, "ask");
    assert.equal(state.effort, null);
  });
});
