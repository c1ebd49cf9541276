// The host's side of a code block's Copy and Insert buttons (the view posts the block's text).
import * as vscode from "vscode";
import { trace } from "../trace";

export async function copyCode(text: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  vscode.window.setStatusBarMessage("agentls: code copied", 2000);
}

/**
 * The code in place of the active editor's selection (at its cursor when nothing is selected), in
 * every selection of a multi-cursor editor, as one undo step. The chat view in the side bar does not
 * take the active editor away, so it is the one the user was in.
 */
export async function insertCode(text: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (editor === undefined) {
    void vscode.window.showWarningMessage("agentls: open a file to insert the code into (Insert puts it at the editor's cursor).");
    return;
  }
  const done = await editor.edit((builder) => {
    for (const selection of editor.selections) builder.replace(selection, text);
  });
  trace("codeInserted", { file: vscode.workspace.asRelativePath(editor.document.uri), applied: done });
  if (!done) {
    void vscode.window.showWarningMessage(`agentls: the code could not be inserted into ${vscode.workspace.asRelativePath(editor.document.uri)} (is it read-only?).`);
    return;
  }
  await vscode.window.showTextDocument(editor.document, editor.viewColumn);
}
