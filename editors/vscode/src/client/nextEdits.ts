// Next edits (docs/protocol.md, "Next edits"): the language client shows the server's inline
// completions; VS Code asks for them as the user types or moves, so an edit that becomes ready
// while the cursor rests on its line would wait for the next keystroke. The server says when one
// is ready (`agent/nextEdit/ready`), and the suggestion is asked for again at once.
import * as vscode from "vscode";
import type { NextEditReady } from "../../shared/protocol";
import { trace } from "../trace";

export function showNextEdit(ready: NextEditReady): void {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.uri.toString() !== vscode.Uri.parse(ready.uri).toString()) return;
  if (editor.selection.active.line !== ready.line) return;
  trace("nextEditShown", { line: ready.line });
  void vscode.commands.executeCommand("editor.action.inlineSuggest.trigger");
}
