// Next edits (docs/protocol.md, "Next edits"): the language client shows the server's inline
// completions, but VS Code asks for them only as the user types. An edit that becomes ready while
// the cursor rests on its line, or a cursor moved onto a line whose edit is ready, would wait for
// a keystroke (which changes the line, and so drops the edit). The server says when one is ready
// (`agent/nextEdit/ready`); the suggestion is asked for again then, and when the cursor arrives.
import * as vscode from "vscode";
import type { NextEditReady } from "../../shared/protocol";
import { trace } from "../trace";

const ready = new Map<string, Set<number>>(); // document URI → lines with an edit ready

function trigger(editor: vscode.TextEditor | undefined, uri: string, line: number): void {
  if (editor === undefined || editor.document.uri.toString() !== uri || editor.selection.active.line !== line) return;
  trace("nextEditShown", { line });
  void vscode.commands.executeCommand("editor.action.inlineSuggest.trigger");
}

export function showNextEdit(params: NextEditReady): void {
  const uri = vscode.Uri.parse(params.uri).toString();
  const lines = ready.get(uri) ?? new Set<number>();
  lines.add(params.line);
  ready.set(uri, lines);
  trigger(vscode.window.activeTextEditor, uri, params.line);
}

/** Ask again when the cursor moves onto a line whose edit is ready (one ask per arrival). */
export function watchNextEdits(): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.window.onDidChangeTextEditorSelection((event) => {
      const uri = event.textEditor.document.uri.toString();
      const line = event.selections[0]?.active.line;
      if (line === undefined) return;
      if (ready.get(uri)?.has(line)) trigger(event.textEditor, uri, line);
    }),
    // An edit in a line makes the server drop that line's suggestion: forget it here too.
    vscode.workspace.onDidChangeTextDocument((event) => {
      const lines = ready.get(event.document.uri.toString());
      for (const change of event.contentChanges) {
        for (let line = change.range.start.line; line <= change.range.end.line; line++) lines?.delete(line);
      }
    }),
  );
}

/** VS Code's `InlineCompletionTriggerKind` (0, 1) as LSP's (1, 2), read as VS Code's by the client. */
export function lspTriggerKind(kind: vscode.InlineCompletionTriggerKind): vscode.InlineCompletionTriggerKind {
  return (kind + 1) as vscode.InlineCompletionTriggerKind;
}
