// The review's commands: keep/undo the hunk at the cursor (or one a CodeLens or the Changes view
// names), per file, all; jump to the next/previous pending hunk; open a hunk.
import * as vscode from "vscode";
import type { DiffDocuments } from "../diff/provider";
import type { ChangeItem } from "./changes";
import { resolveConflicts } from "./conflicts";
import type { HunkDecorations } from "./decorations";
import { hunkAt, nextHunk, type Placed } from "./hunks";
import type { ReviewState } from "./state";

type HunkArg = string | string[] | ChangeItem | undefined;

export function registerReviewCommands(state: ReviewState, decorations: HunkDecorations, diffs: DiffDocuments): vscode.Disposable[] {
  const atCursor = (): Placed | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) return undefined;
    return hunkAt(decorations.placed(editor.document), editor.selection.active.line);
  };
  // One hunk, or the hunks of one CodeLens line (decorations.ts), or the one at the cursor.
  const hunkIDs = (arg: HunkArg): string[] | undefined => {
    if (typeof arg === "string") return [arg];
    if (Array.isArray(arg)) return arg;
    if (arg?.kind === "hunk") return [arg.hunk.id];
    const at = atCursor()?.hunk.id;
    return at === undefined ? undefined : [at];
  };
  const fileUri = (arg: HunkArg): string | undefined => {
    if (typeof arg === "object" && !Array.isArray(arg) && arg.kind === "file") return arg.uri;
    const editor = vscode.window.activeTextEditor;
    return editor?.document.uri.scheme === "file" ? editor.document.uri.toString() : undefined;
  };
  const none = (what: string) => void vscode.window.showInformationMessage(`agentls: ${what}`);
  const undo = async (choice: { hunkIDs?: string[]; uri?: string }) => {
    const result = await state.undo(choice);
    if (result.conflicts.length > 0) await resolveConflicts(state, diffs, result);
  };

  const jump = async (direction: 1 | -1) => {
    const editor = vscode.window.activeTextEditor;
    const placed = editor ? decorations.placed(editor.document) : [];
    const target = editor ? nextHunk(placed, editor.selection.active.line, direction) : undefined;
    if (editor && target) {
      const at = new vscode.Position(target.start, 0);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      return;
    }
    // No hunk in this file: go to the first pending hunk of the next file that has one.
    const files = [...state.byFile.values()];
    if (files.length === 0) return none("no agent changes to review");
    const current = editor?.document.uri.toString();
    const index = files.findIndex((hunks) => hunks[0].uri === current);
    const next = index < 0 ? files[direction === 1 ? 0 : files.length - 1] : files[(index + direction + files.length) % files.length];
    await openHunk(decorations, direction === 1 ? next[0].id : next[next.length - 1].id, state);
  };

  return [
    vscode.commands.registerCommand("agentls.review.keepHunk", async (arg?: HunkArg) => {
      const ids = hunkIDs(arg);
      if (ids === undefined) return none("no agent change at the cursor");
      await state.keep({ hunkIDs: ids });
    }),
    vscode.commands.registerCommand("agentls.review.undoHunk", async (arg?: HunkArg) => {
      const ids = hunkIDs(arg);
      if (ids === undefined) return none("no agent change at the cursor");
      await undo({ hunkIDs: ids });
    }),
    vscode.commands.registerCommand("agentls.review.keepFile", async (arg?: HunkArg) => {
      const uri = fileUri(arg);
      if (uri !== undefined) await state.keep({ uri });
    }),
    vscode.commands.registerCommand("agentls.review.undoFile", async (arg?: HunkArg) => {
      const uri = fileUri(arg);
      if (uri !== undefined) await undo({ uri });
    }),
    vscode.commands.registerCommand("agentls.review.keepAll", () => state.keep()),
    vscode.commands.registerCommand("agentls.review.undoAll", () => undo({})),
    vscode.commands.registerCommand("agentls.review.next", () => jump(1)),
    vscode.commands.registerCommand("agentls.review.previous", () => jump(-1)),
    vscode.commands.registerCommand("agentls.review.open", (id: string) => openHunk(decorations, id, state)),
  ];
}

async function openHunk(decorations: HunkDecorations, id: string, state: ReviewState): Promise<void> {
  const hunk = state.get(id);
  if (hunk === undefined) return;
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(hunk.uri));
  const placed = decorations.placed(document).find((p) => p.hunk.id === id);
  const at = new vscode.Position(placed?.start ?? 0, 0);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(at, at), preview: false });
}
