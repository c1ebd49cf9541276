// Loads the recorded event streams (test/fixtures/*.json, or $AGENTLS_FIXTURES when the pytest wrapper
// has just recorded fresh ones from the real server).
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentEvent, MessageWithParts, Session } from "../shared/protocol.ts";
import { applyEvent, type ChatState, initialState, loadSnapshot } from "../webview/state.ts";

export interface Fixture {
  scenario: string;
  session: Session;
  events: AgentEvent[];
  messages: MessageWithParts[];
  /** The messages of the child sessions its task parts ran (the "subagent" scenario). */
  children?: Record<string, MessageWithParts[]>;
}

const dir = process.env.AGENTLS_FIXTURES ?? path.join(import.meta.dirname, "fixtures");

export function fixture(name: string): Fixture {
  return JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), "utf8")) as Fixture;
}

export const SCENARIOS = ["edit-turn", "question", "retry", "abort", "subagent"];

/** A view showing the fixture's session from its start, as after the user created it. */
export function freshState(f: Fixture): ChatState {
  const state = initialState();
  const created = f.events.find((e): e is Extract<AgentEvent, { properties: { info: Session } }> => e.type === "session.created");
  const session = created?.properties.info ?? f.session;
  loadSnapshot(state, { session, messages: [], permissions: [], questions: [], todos: [], changes: [], busy: false });
  return state;
}

/** Apply events one by one, calling `each` after every event. */
export function play(state: ChatState, events: AgentEvent[], each?: (event: AgentEvent, index: number) => void): ChatState {
  events.forEach((event, index) => {
    applyEvent(state, event);
    each?.(event, index);
  });
  return state;
}
