// The queued prompts the view shows, from `queue.*` events (webview/queueState.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent, QueuedPrompt } from "../shared/protocol.ts";
import { applyQueueEvent, queuedExtras, queuedText } from "../webview/queueState.ts";
import { applyEvent, initialState, loadSnapshot } from "../webview/state.ts";

const S = "ses_1";
const item = (id: string, text: string): QueuedPrompt => ({ id, sessionID: S, parts: [{ type: "text", text }], time: 1 });
const added = (q: QueuedPrompt, position: number): AgentEvent => ({ type: "queue.added", properties: { sessionID: S, item: q, position } });

test("added prompts keep their order; stop and send goes to the front", () => {
  let queue: QueuedPrompt[] = [];
  queue = applyQueueEvent(queue, added(item("a", "first"), 0)) ?? queue;
  queue = applyQueueEvent(queue, added(item("b", "second"), 1)) ?? queue;
  queue = applyQueueEvent(queue, added(item("c", "now"), 0)) ?? queue;
  assert.deepEqual(queue.map((q) => q.id), ["c", "a", "b"]);
});

test("an edit replaces the item in place; started and removed ones leave", () => {
  let queue = [item("a", "first"), item("b", "second"), item("c", "third")];
  queue = applyQueueEvent(queue, { type: "queue.updated", properties: { sessionID: S, item: item("b", "edited") } }) ?? queue;
  assert.deepEqual(queue.map(queuedText), ["first", "edited", "third"]);
  queue = applyQueueEvent(queue, { type: "queue.removed", properties: { sessionID: S, id: "c", reason: "removed" } }) ?? queue;
  queue = applyQueueEvent(queue, { type: "queue.started", properties: { sessionID: S, id: "a" } }) ?? queue;
  assert.deepEqual(queue.map((q) => q.id), ["b"]);
});

test("other events are not queue events", () => {
  assert.equal(applyQueueEvent([], { type: "session.idle", properties: { sessionID: S } }), undefined);
});

test("attachments are named beside the text", () => {
  const q: QueuedPrompt = { id: "a", sessionID: S, time: 1, parts: [{ type: "text", text: "look" }, { type: "file", path: "/p/src/calc.py" }, { type: "agent", name: "general" }] };
  assert.deepEqual(queuedExtras(q), ["calc.py", "@general"]);
});

test("the reducer keeps the current session's queue only, and a snapshot replaces it", () => {
  const state = initialState();
  loadSnapshot(state, { session: { id: S } as never, messages: [], permissions: [], questions: [], todos: [], changes: [], busy: true, queue: [item("x", "old")] });
  state.dirty.queue = false;
  applyEvent(state, added(item("a", "mine"), 1));
  applyEvent(state, { type: "queue.added", properties: { sessionID: "ses_other", item: { ...item("b", "theirs"), sessionID: "ses_other" }, position: 0 } });
  assert.deepEqual(state.queue.map((q) => q.id), ["x", "a"]);
  assert.equal(state.dirty.queue, true);
});
