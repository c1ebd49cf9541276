// The session's background work the view shows, from `background.*` events (webview/backgroundState.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent, BackgroundAgent, BackgroundShell } from "../shared/protocol.ts";
import { agentState, applyBackgroundEvent, elapsed, emptyBackground, pillText, shellState } from "../webview/backgroundState.ts";
import { applyEvent, initialState, loadSnapshot } from "../webview/state.ts";
import { onlyReports, reportOf } from "../webview/subagentReport.ts";

const P = "ses_parent";
const agent = (id: string, over: Partial<BackgroundAgent> = {}): BackgroundAgent => ({
  sessionID: id,
  parentID: P,
  agent: "general",
  description: `job ${id}`,
  status: "running",
  started: 1_000,
  step: 0,
  tokens: 0,
  ...over,
});
const shell = (id: string, over: Partial<BackgroundShell> = {}): BackgroundShell => ({ id, sessionID: P, command: "npm run dev", started: 1_000, status: "running", tail: "", ...over });
const updated = (a: BackgroundAgent, sessionID = P): AgentEvent => ({ type: "background.agent.updated", properties: { sessionID, agent: a } });

test("sub-agents are added in order and updated in place", () => {
  let bg = emptyBackground();
  bg = applyBackgroundEvent(bg, updated(agent("a")), P) ?? bg;
  bg = applyBackgroundEvent(bg, updated(agent("b")), P) ?? bg;
  bg = applyBackgroundEvent(bg, updated(agent("a", { step: 2, tool: "bash", tokens: 5120 })), P) ?? bg;
  assert.deepEqual(bg.agents.map((a) => [a.sessionID, a.step, a.tool]), [["a", 2, "bash"], ["b", 0, undefined]]);
  assert.equal(pillText(bg), "2 background agents running");
  const ended: AgentEvent = { type: "background.agent.ended", properties: { sessionID: P, agent: agent("b", { status: "stopped", ended: 5_000 }), summary: "stopped" } };
  bg = applyBackgroundEvent(bg, ended, P) ?? bg;
  assert.equal(pillText(bg), "1 background agent running");
});

test("another session's background work is not this session's", () => {
  const bg = emptyBackground();
  assert.equal(applyBackgroundEvent(bg, updated(agent("x"), "ses_other"), P), bg);
  assert.equal(applyBackgroundEvent(bg, { type: "session.idle", properties: { sessionID: P } }, P), undefined);
});

test("shells come and go with their state; the pill says what runs, then what ended", () => {
  let bg = emptyBackground();
  bg = applyBackgroundEvent(bg, { type: "background.shell.updated", properties: { sessionID: P, shell: shell("shell_1") } }, P) ?? bg;
  assert.equal(pillText(bg), "1 shell running");
  bg = applyBackgroundEvent(bg, { type: "background.shell.updated", properties: { sessionID: P, shell: shell("shell_1", { status: "exited", exitCode: 0 }) } }, P) ?? bg;
  assert.equal(pillText(bg), "Background: 1 item ended");
});

test("each line says the step, tool, tokens and time", () => {
  assert.equal(agentState(agent("a", { step: 1, tool: "bash", tokens: 5120 }), 66_000), "step 2, running bash · 5.1k tokens · 1m 05s");
  assert.equal(agentState(agent("a", { status: "failed", error: "boom", step: 3, ended: 4_000 }), 99_000), "failed: boom · 3 steps · 0 tokens · 3s");
  assert.equal(shellState(shell("s", { status: "exited", exitCode: 2 }), 31_000), "exited with code 2 · started 30s ago");
  assert.equal(elapsed(3_725_000), "1h 02m");
});

test("the reducer keeps the session's background work from the snapshot and its events", () => {
  const state = initialState();
  const session = { id: P, projectID: "p", directory: "/p", title: "t", version: "1", time: { created: 1, updated: 1 } };
  loadSnapshot(state, { session, messages: [], permissions: [], questions: [], todos: [], changes: [], busy: false, background: { agents: [agent("a")], shells: [] } } as never);
  state.dirty.background = false;
  applyEvent(state, updated(agent("a", { status: "completed", ended: 9_000 })));
  assert.equal(state.background.agents[0]?.status, "completed");
  assert.equal(state.dirty.background, true);
});

test("a background sub-agent's report is known by its part's context kind", () => {
  const part = { id: "p", sessionID: P, messageID: "m", type: "text" as const, text: "The report.", synthetic: true, metadata: { context: { kind: "subagent", label: "@general: job" } } };
  assert.deepEqual(reportOf(part), { label: "@general: job", text: "The report." });
  assert.equal(onlyReports([part]), true);
  assert.equal(reportOf({ ...part, metadata: { context: { kind: "folder", label: "src" } } }), undefined);
  assert.equal(reportOf({ ...part, synthetic: false }), undefined);
  assert.equal(onlyReports([part, { ...part, synthetic: false }]), false);
});
