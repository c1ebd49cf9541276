import assert from "node:assert/strict";
import { test } from "node:test";
import { reversePatch } from "../src/diff/patch.ts";
import { mergeMessage, nameProblem, splitDiff, worktreeRow, worktreeState } from "../src/worktrees/describe.ts";
import { worktreeLabel, worktreeOf, worktreeTooltip } from "../shared/worktree.ts";
import type { Session, WorktreeInfo } from "../shared/protocol.ts";

const info = (over: Partial<WorktreeInfo> = {}): WorktreeInfo => ({
  name: "alpha",
  branch: "agentls/alpha",
  path: "/data/worktrees/project-1/alpha",
  base: "abc123",
  created: 0,
  sessionIDs: ["ses_1"],
  changed: ["calc.py"],
  uncommitted: 1,
  merged: false,
  missing: false,
  ...over,
});

test("a worktree name is checked as the server checks it; empty asks the server for one from the time", () => {
  assert.equal(nameProblem("", []), undefined);
  assert.equal(nameProblem("  fix-parser_2.1 ", []), undefined);
  assert.match(nameProblem("-x", []) ?? "", /starting with a letter or digit/);
  assert.match(nameProblem("a b", []) ?? "", /Letters, digits/);
  assert.match(nameProblem("x".repeat(64), []) ?? "", /at most 63/);
  assert.match(nameProblem("a..b", []) ?? "", /valid git branch name/);
  assert.match(nameProblem("alpha", ["alpha"]) ?? "", /exists already/);
});

test("a worktree's row says its branch, whether it changed, merged or lost its folder", () => {
  assert.deepEqual(worktreeRow(info()), {
    label: "alpha",
    description: "agentls/alpha · 1 file changed · 1 uncommitted · 1 session",
    detail: "calc.py",
  });
  assert.equal(worktreeState(info({ merged: true, uncommitted: 0, sessionIDs: [] })), "merged · 1 file changed");
  assert.equal(worktreeState(info({ changed: [], uncommitted: 0, sessionIDs: ["a", "b"] })), "no changes · 2 sessions");
  assert.match(worktreeState(info({ missing: true })), /missing/);
  const many = worktreeRow(info({ changed: ["a", "b", "c", "d", "e", "f"] }));
  assert.equal(many.detail, "a, b, c, d, e, …");
  assert.equal(worktreeRow(info({ changed: [] })).detail, "/data/worktrees/project-1/alpha");
});

const DIFF = [
  "diff --git a/calc.py b/calc.py",
  "index 1111111..2222222 100644",
  "--- a/calc.py",
  "+++ b/calc.py",
  "@@ -1,3 +1,3 @@",
  " a = 1",
  "-b = 2",
  "+b = 20",
  " c = 3",
  "diff --git a/new.txt b/new.txt",
  "new file mode 100644",
  "index 0000000..3333333",
  "--- /dev/null",
  "+++ b/new.txt",
  "@@ -0,0 +1 @@",
  "+hello",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "index 4444444..0000000",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-bye",
  "",
].join("\n");

test("a branch's diff is cut into its files, each patch giving back the file at the base", () => {
  const files = splitDiff(DIFF);
  assert.deepEqual(files.map((f) => f.file), ["calc.py", "new.txt", "gone.txt"]);
  assert.equal(reversePatch("a = 1\nb = 20\nc = 3\n", files[0].patch), "a = 1\nb = 2\nc = 3\n");
  assert.ok(files[1].patch.includes("+hello") && !files[1].patch.includes("calc.py"));
  assert.deepEqual(splitDiff(""), []);
});

test("after a merge: merged says so; a conflict names its files and that the worktree keeps its version", () => {
  assert.equal(mergeMessage("alpha", { outcome: "merged", message: "agentls/alpha merged into main", files: ["calc.py"] }), "agentls/alpha merged into main.");
  const conflict = mergeMessage("beta", {
    outcome: "conflict",
    message: "merging agentls/beta into main left conflicts in 1 file(s): resolve them and commit, or back out with `git merge --abort`",
    files: ["calc.py"],
  });
  assert.match(conflict, /git merge --abort/);
  assert.match(conflict, /Conflicting: calc\.py\./);
  assert.match(conflict, /the worktree beta still holds its version/);
  assert.match(mergeMessage("x", { outcome: "refused", message: "a detached HEAD", files: [] }), /^Not merged: a detached HEAD\.$/);
});

test("a session's worktree label: none for the checkout's, the name with the branch and path in the tooltip", () => {
  const base = { id: "ses_1", projectID: "p", title: "t", directory: "/p", time: { created: 0, updated: 0 } } as Session;
  assert.equal(worktreeOf(base), undefined);
  const w = { name: "alpha", branch: "agentls/alpha", path: "/wt/alpha" };
  const session = { ...base, worktree: w } as Session;
  assert.deepEqual(worktreeOf(session), w);
  assert.equal(worktreeLabel(w), "worktree: alpha");
  assert.match(worktreeTooltip(w), /\/wt\/alpha on the branch agentls\/alpha/);
});
