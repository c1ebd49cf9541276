// A sub-agent's steps under its task card, on the stream recorded from a real `agentls serve`
// (tests/vscode/record_fixtures.py, scenario "subagent": a task whose child edits calc.py, asking first).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Part } from "../shared/protocol.ts";
import { loadSnapshot, messagesOf } from "../webview/state.ts";
import { childSession, stepsOf } from "../webview/subtasks.ts";
import { fixture, freshState, play } from "./fixtures.ts";

const f = fixture("subagent");
const taskPart = f.messages.flatMap((m) => m.parts).find((p) => childSession(p) !== undefined) as Part;
const child = childSession(taskPart) as string;
const childParts = (f.children?.[child] ?? []).filter((m) => m.info.role === "assistant").flatMap((m) => m.parts);

const shape = (parts: Part[]): string[] => parts.map((p) => `${p.type}:${p.id}:${p.type === "tool" ? p.state.status : p.type === "text" ? p.text : ""}`);

describe("sub-agent", () => {
  test("the child's steps stream under the task card, not into the transcript", () => {
    const state = play(freshState(f), f.events);
    assert.deepEqual(messagesOf(state), f.messages);
    const [steps] = stepsOf(state.subtasks, taskPart.id);
    assert.ok(steps !== undefined, "the task card follows its child");
    assert.deepEqual(shape(steps.parts), shape(childParts));
    assert.ok(steps.parts.some((p) => p.type === "tool" && p.tool === "edit" && p.state.status === "completed"));
    assert.equal(steps.busy, false);
  });

  test("the card is redrawn as the child streams, and is known before the child's first step", () => {
    const state = freshState(f);
    let marked = 0;
    play(state, f.events, (event) => {
      const sid = event.type === "message.part.updated" ? event.properties.part.sessionID : event.type === "message.part.delta" ? event.properties.sessionID : undefined;
      if (sid === child) {
        assert.ok(state.subtasks.has(child), "a child event before the card named its child");
        if (state.dirty.parts.has(taskPart.id)) marked++;
        state.dirty.parts.clear();
      }
    });
    assert.ok(marked >= childParts.length, `the card was redrawn ${marked} times`);
  });

  test("the child's permission dialog shows in the parent's view, naming the task, and closes", () => {
    const state = freshState(f);
    let seen = false;
    play(state, f.events, (event) => {
      if (event.type === "permission.asked") {
        assert.equal(event.properties.request.sessionID, child);
        assert.deepEqual(state.permissions.map((r) => r.id), [event.properties.request.id]);
        assert.equal(state.permissions[0].task?.description, "fix add");
        assert.equal(state.permissions[0].task?.subagent, "general");
        seen = true;
      }
    });
    assert.ok(seen);
    assert.equal(state.permissions.length, 0);
  });

  test("a reload shows the same steps as the stream (from the snapshot's children)", () => {
    const state = freshState(f);
    loadSnapshot(state, { session: f.session, messages: f.messages, children: f.children, permissions: [], questions: [], todos: [], changes: [], busy: false });
    const [steps] = stepsOf(state.subtasks, taskPart.id);
    assert.deepEqual(shape(steps.parts), shape(childParts));
  });
});
