// An undo that overlaps the user's later edits comes back from the server as a conflict and changes
// nothing. The user sees both sides (the agent's lines and theirs, in a diff editor) and picks: keep
// their version (the hunk is kept), or put back the lines from before the agent (their edit of those
// lines goes, because they chose so). Dismissing leaves the hunk pending. Never silent.
import * as vscode from "vscode";
import type { DiffDocuments } from "../diff/provider";
import { trace } from "../trace";
import { type Hunk, type HunkConflict, type ReviewResult, place } from "./hunks";
import type { ReviewState } from "./state";

const COMPARE = "Compare";
const MINE = "Keep Mine";
const ORIGINAL = "Use Original";

export async function resolveConflicts(state: ReviewState, diffs: DiffDocuments, result: ReviewResult): Promise<void> {
  for (const conflict of result.conflicts) {
    const hunk = state.get(conflict.hunkID);
    if (hunk === undefined) continue;
    await resolveOne(state, diffs, conflict, hunk);
  }
}

async function resolveOne(state: ReviewState, diffs: DiffDocuments, conflict: HunkConflict, hunk: Hunk): Promise<void> {
  const text = (lines: string[]) => lines.map((l) => l.replace(/\r?\n$/, "")).join("\n");
  const question = `agentls: the agent's change to ${conflict.file} was not undone: ${conflict.reason}. Which version should stay?`;
  trace("reviewConflict", { hunkID: conflict.hunkID, reason: conflict.reason });
  for (;;) {
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail: `The agent wrote:\n${text(conflict.agent)}\n\nNow there:\n${text(conflict.current)}` }, COMPARE, MINE, ORIGINAL);
    trace("reviewConflictChoice", { hunkID: conflict.hunkID, choice: choice ?? null });
    if (choice === COMPARE) {
      await diffs.showChange(conflict.file, text(conflict.agent) + "\n", text(conflict.current) + "\n", `${conflict.file}: the agent's lines ↔ yours now`);
      continue;
    }
    if (choice === MINE) await state.keep({ hunkIDs: [hunk.id] });
    else if (choice === ORIGINAL) await putOriginal(state, conflict, hunk);
    return;
  }
}

/** Replace what stands where the agent's lines were with the lines from before the agent. */
async function putOriginal(state: ReviewState, conflict: HunkConflict, hunk: Hunk): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(hunk.uri));
  const lines: string[] = [];
  for (let i = 0; i < document.lineCount; i++) lines.push(document.lineAt(i).text);
  const [where] = place(lines, [{ ...hunk, after: conflict.current }]);
  if (!where.found) {
    void vscode.window.showErrorMessage(`agentls: cannot find the changed lines in ${conflict.file} any more; edit them by hand.`);
    return;
  }
  const eol = document.eol === vscode.EndOfLine.CRLF ? "\r\n" : "\n";
  const original = hunk.before.map((l) => l.replace(/\r?\n$/, "") + eol).join("");
  const range = new vscode.Range(where.start, 0, where.end, 0);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, range, original, { label: "Use the original lines", needsConfirmation: false });
  if (await vscode.workspace.applyEdit(edit)) await state.keep({ hunkIDs: [hunk.id] });
}
