import assert from "node:assert/strict";
import { test } from "node:test";
import { showsAsGhostText } from "../src/client/ghostText.ts";

// The line `send(msg="hi")`: the server's item replaces only what changes (columns 5-8, `msg`).
const rename = { start: 5, end: 8, old: "msg", text: "text" };
// The line `send("hi")`: the item inserts `, timeout=5` before the closing parenthesis (column 9).
const insert = { start: 9, end: 9, old: "", text: ", timeout=5" };

test("an insertion at or after the cursor shows as ghost text; before the cursor it does not", () => {
  assert.equal(showsAsGhostText(insert, 9), true);
  assert.equal(showsAsGhostText(insert, 0), true);
  assert.equal(showsAsGhostText(insert, 12), true); // the typed text (none) is a prefix of the new
  assert.equal(showsAsGhostText({ start: 5, end: 8, old: "msg", text: "message" }, 5), true); // m..s..g kept
});

test("a replacement that removes characters never shows as ghost text, wherever the cursor is", () => {
  for (const cursor of [0, 5, 6, 8, 14]) assert.equal(showsAsGhostText(rename, cursor), false, `cursor ${cursor}`);
  assert.equal(showsAsGhostText({ start: 0, end: 4, old: "cout", text: "total" }, 0), false);
});

test("text typed before the cursor must start the new text; case is ignored after the cursor only", () => {
  assert.equal(showsAsGhostText({ start: 0, end: 2, old: "ms", text: "msg" }, 2), true);
  assert.equal(showsAsGhostText({ start: 0, end: 2, old: "mS", text: "msg" }, 2), false);
  assert.equal(showsAsGhostText({ start: 0, end: 2, old: "MS", text: "msg" }, 0), true);
  assert.equal(showsAsGhostText({ start: 0, end: 3, old: "msg", text: "msg" }, 0), false); // no change
});
