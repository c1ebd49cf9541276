// Worktree sessions from VS Code: "New Worktree Session…" (a session in its own git worktree and
// branch), and "Worktrees" (each one's changes, merge, a window of its own, discard). The server does
// the git work (`agent/worktree/*`); this asks, shows and says what happened.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ChatView } from "../chat/view";
import type { DiffDocuments } from "../diff/provider";
import { reversePatch } from "../diff/patch";
import { trace } from "../trace";
import type { WorktreeDiffResult, WorktreeInfo, WorktreeListResult, WorktreeMergeResult } from "../../shared/protocol";
import { mergeMessage, type MergeHow, nameProblem, splitDiff, worktreeRow } from "./describe";

const errorText = (err: unknown): string => (err as Error).message ?? String(err);

/** The project's worktrees, or undefined after saying why there are none to have (not git, no server). */
async function listOrSay(view: ChatView): Promise<WorktreeListResult | undefined> {
  let list: WorktreeListResult;
  try {
    list = await view.client.request<WorktreeListResult>("agent/worktree/list", {});
  } catch (err) {
    void vscode.window.showErrorMessage(`agentls: could not list the worktrees: ${errorText(err)}`);
    return undefined;
  }
  if (!list.available) {
    void vscode.window.showWarningMessage(`agentls: worktree sessions are not available here: ${list.reason ?? "the folder is not in a git repository"}`);
    return undefined;
  }
  return list;
}

/** Ask for a name (empty: from the time) and start a session in a new worktree of the project. */
export async function newWorktreeSession(view: ChatView): Promise<void> {
  const list = await listOrSay(view);
  if (list === undefined) return;
  const taken = list.worktrees.map((w) => w.name);
  const name = await vscode.window.showInputBox({
    title: "New Worktree Session",
    prompt: "The session works in its own git worktree on the branch agentls/NAME; your checkout stays as it is. Empty: a name from the time.",
    placeHolder: "Worktree name (e.g. fix-parser), or empty",
    validateInput: (typed) => nameProblem(typed, taken),
  });
  if (name === undefined) return;
  await view.reveal();
  try {
    await view.createWorktreeSession(name.trim());
  } catch (err) {
    void vscode.window.showErrorMessage(`agentls: no worktree session started: ${errorText(err)}`);
    return;
  }
  await view.focusPrompt();
}

type Action = vscode.QuickPickItem & { run: (w: WorktreeInfo) => Promise<void> };

/** "agentls: Worktrees": pick a worktree, then what to do with it. */
export async function showWorktrees(view: ChatView, diffs: DiffDocuments): Promise<void> {
  const list = await listOrSay(view);
  if (list === undefined) return;
  if (list.worktrees.length === 0) {
    const start = "New Worktree Session…";
    if ((await vscode.window.showInformationMessage("agentls: no worktrees yet.", start)) === start) await newWorktreeSession(view);
    return;
  }
  const rows = list.worktrees.map((w) => ({ ...worktreeRow(w), worktree: w }));
  const picked = await vscode.window.showQuickPick(rows, { title: "agentls Worktrees", placeHolder: "A worktree to show, merge, open or discard", matchOnDescription: true, matchOnDetail: true });
  if (picked === undefined) return;
  const w = picked.worktree;
  const actions: Action[] = [
    { label: "Show Changes", detail: "The branch's changes against where it started, file by file", run: (x) => showChanges(view, diffs, x) },
    { label: "Merge…", detail: "Into the branch your checkout has (merge, squash or fast-forward)", run: (x) => merge(view, x) },
    { label: "Open in New Window", detail: w.path, run: (x) => openWindow(x) },
    { label: "Discard…", detail: `Remove the worktree and its branch ${w.branch}`, run: (x) => discard(view, x) },
  ];
  const action = await vscode.window.showQuickPick(actions, { title: `Worktree ${w.name} (${w.branch})`, placeHolder: "What to do with it" });
  if (action === undefined) return;
  try {
    await action.run(w);
  } catch (err) {
    void vscode.window.showErrorMessage(`agentls: ${action.label.replace("…", "")} failed for the worktree ${w.name}: ${errorText(err)}`);
  }
}

/** The branch's changes in the multi-file diff editor: the base on the left, the worktree's files on the right. */
async function showChanges(view: ChatView, diffs: DiffDocuments, w: WorktreeInfo): Promise<void> {
  const { diff } = await view.client.request<WorktreeDiffResult>("agent/worktree/diff", { name: w.name });
  const files = splitDiff(diff);
  if (files.length === 0) {
    void vscode.window.showInformationMessage(`agentls: the worktree ${w.name} has no changes.`);
    return;
  }
  const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
  for (const { file, patch } of files) {
    const modified = vscode.Uri.file(path.join(w.path, file));
    let after = "";
    try {
      after = new TextDecoder().decode(await vscode.workspace.fs.readFile(modified));
    } catch {
      after = ""; // deleted in the worktree: the patch says what it held
    }
    const before = reversePatch(after, patch);
    if (before === undefined) {
      // Changed again since the server read it: the patch as it came, not a wrong left side.
      const doc = await vscode.workspace.openTextDocument({ content: diff, language: "diff" });
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    resources.push([modified, diffs.virtual("base", file, before), modified]);
  }
  trace("worktreeChanges", { name: w.name, files: files.map((f) => f.file) });
  await vscode.commands.executeCommand("vscode.changes", `${w.name}: changes of ${w.branch}`, resources);
}

const HOW: (vscode.QuickPickItem & { how: MergeHow })[] = [
  { label: "Merge", detail: "A merge commit: the branch's commits stay as they are", how: "merge" },
  { label: "Squash", detail: "The branch's changes as one new commit", how: "squash" },
  { label: "Fast-forward Only", detail: "Only if your branch has not moved since the worktree started", how: "ff-only" },
];

/**
 * Merge the worktree's branch into the checkout's. A conflict is left to the user, with its files to
 * open and the way back named; the worktree keeps its own version either way.
 */
async function merge(view: ChatView, w: WorktreeInfo): Promise<void> {
  const how = await vscode.window.showQuickPick(HOW, { title: `Merge ${w.branch} into your branch`, placeHolder: "How to merge it" });
  if (how === undefined) return;
  const result = await view.client.request<WorktreeMergeResult>("agent/worktree/merge", { name: w.name, how: how.how });
  trace("worktreeMerge", { name: w.name, how: how.how, outcome: result.outcome, files: result.files });
  const message = `agentls: ${mergeMessage(w.name, result)}`;
  if (result.outcome === "merged") {
    void vscode.window.showInformationMessage(message);
    return;
  }
  if (result.outcome === "refused") {
    void vscode.window.showErrorMessage(message);
    return;
  }
  const buttons = result.files.slice(0, 3).map((f) => `Open ${f}`);
  const choice = await vscode.window.showWarningMessage(message, ...buttons);
  const file = choice === undefined ? undefined : result.files[buttons.indexOf(choice)];
  if (file !== undefined) await vscode.window.showTextDocument(checkoutFile(file));
}

/** A repository path in the user's checkout: under the workspace folder, or the nearest folder above it that has it. */
function checkoutFile(file: string): vscode.Uri {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  for (let dir = root; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, file);
    if (fs.existsSync(candidate)) return vscode.Uri.file(candidate);
    if (path.dirname(dir) === dir) return vscode.Uri.file(path.join(root, file));
  }
}

async function openWindow(w: WorktreeInfo): Promise<void> {
  if (w.missing) throw new Error(`its folder ${w.path} is gone`);
  await vscode.commands.executeCommand("vscode.openFolder", vscode.Uri.file(w.path), { forceNewWindow: true });
}

async function discard(view: ChatView, w: WorktreeInfo): Promise<void> {
  const unmerged = w.merged || w.changed.length === 0 ? "" : ` Its ${w.changed.length} changed file(s) are not merged and will be lost.`;
  const answer = await vscode.window.showWarningMessage(
    `Discard the worktree ${w.name}?`,
    { modal: true, detail: `This removes ${w.path} and the branch ${w.branch}.${unmerged}` },
    "Discard",
  );
  if (answer !== "Discard") return;
  await view.client.request("agent/worktree/discard", { name: w.name });
  void vscode.window.showInformationMessage(`agentls: the worktree ${w.name} and its branch ${w.branch} are gone.`);
  await view.sendSessions();
}
