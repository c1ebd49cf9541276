import assert from "node:assert/strict";
import { test } from "node:test";
import { countChanges, reversePatch } from "../src/diff/patch.ts";
import type { ToolPart } from "../shared/protocol.ts";
import { fixture } from "./fixtures.ts";

test("the edit's recorded patch turns the file after it back into the file before it", () => {
  const f = fixture("edit-turn");
  const edit = f.messages.flatMap((m) => m.parts).find((p): p is ToolPart => p.type === "tool" && p.tool === "edit");
  assert.ok(edit && edit.state.status === "completed");
  const patch = String(edit.state.metadata.diff);
  const after = "def add(a, b):\n    return a + b\n";
  assert.equal(reversePatch(after, patch), "def add(a, b):\n    return a - b\n");
  assert.deepEqual(countChanges(patch), { additions: 1, deletions: 1 });
});

test("a patch that no longer fits the file is reported, not misapplied", () => {
  const patch = "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-old\n+new\n";
  assert.equal(reversePatch("something else\n", patch), undefined);
  assert.equal(reversePatch("new\n", patch), "old\n");
});

test("several hunks apply from the bottom up", () => {
  const patch = "@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -5,1 +5,2 @@\n e\n+F\n";
  assert.equal(reversePatch("A\nb\nc\nd\ne\nF\n", patch), "a\nb\nc\nd\ne\n");
});
