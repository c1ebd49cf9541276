// Who else shows the session (`session.watchers`, attached to the agent host): the reducer keeps
// the current session's list, a snapshot brings the list the extension kept, and the line names them.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Session } from "../shared/protocol.ts";
import { alsoOpenIn, watcherNames } from "../shared/watchers.ts";
import { applyEvent, initialState, loadSnapshot } from "../webview/state.ts";

const session = (id: string): Session => ({ id, projectID: "p", title: id, directory: "/p", time: { created: 1, updated: 1 } }) as Session;
const snapshot = (id: string, watchers?: string[]) => ({ session: session(id), messages: [], permissions: [], questions: [], todos: [], changes: [], busy: false, watchers });

test("the current session's watchers are kept, another session's are not", () => {
  const state = initialState();
  loadSnapshot(state, snapshot("ses_a"));
  assert.deepEqual(state.watchers, []);
  applyEvent(state, { type: "session.watchers", properties: { sessionID: "ses_b", clients: ["Zed"] } });
  assert.deepEqual(state.watchers, []);
  applyEvent(state, { type: "session.watchers", properties: { sessionID: "ses_a", clients: ["Neovim", "Zed"] } });
  assert.deepEqual(state.watchers, ["Neovim", "Zed"]);
  assert.equal(state.dirty.header, true);
  loadSnapshot(state, snapshot("ses_b", ["Zed"])); // switched: the list the extension kept for it
  assert.deepEqual(state.watchers, ["Zed"]);
});

test("the names: one each, a name twice counted, nothing when no one else shows it", () => {
  assert.equal(alsoOpenIn([]), "");
  assert.equal(alsoOpenIn(["Neovim", "Zed"]), "also open in Neovim, Zed");
  assert.equal(watcherNames(["Neovim", "Visual Studio Code", "Neovim"]), "Neovim ×2, Visual Studio Code");
});
