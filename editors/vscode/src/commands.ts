// The palette commands. Explain and Fix send the code (as a file part with its range); Fix also sends
// the diagnostics VS Code holds for that range — every language server's — through agent/diagnostics.
import * as vscode from "vscode";
import { sendDiagnostics } from "./client/diagnostics";
import { selectionAttachment } from "./chat/actions";
import type { ChatView } from "./chat/view";

function describe(d: vscode.Diagnostic): string {
  const source = d.source ? ` [${d.source}]` : "";
  return `line ${d.range.start.line + 1}: ${d.message}${source}`;
}

export function registerCommands(view: ChatView): vscode.Disposable[] {
  const editorOrWarn = (): vscode.TextEditor | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) void vscode.window.showInformationMessage("agentls: open a file first.");
    return editor;
  };
  return [
    vscode.commands.registerCommand("agentls.newChat", async () => {
      await view.reveal();
      await view.actions.newSession();
    }),
    vscode.commands.registerCommand("agentls.focus", () => view.reveal()),
    vscode.commands.registerCommand("agentls.stop", () => view.abort()),
    vscode.commands.registerCommand("agentls.restartServer", () => view.client.restart()),
    vscode.commands.registerCommand("agentls.askAboutSelection", async () => {
      const editor = editorOrWarn();
      if (editor === undefined) return;
      await view.reveal();
      view.post({ type: "attach", attachments: [selectionAttachment(editor)] });
      view.post({ type: "focusPrompt" });
    }),
    vscode.commands.registerCommand("agentls.explainCode", async () => {
      const editor = editorOrWarn();
      if (editor === undefined) return;
      const attachment = selectionAttachment(editor);
      await view.reveal();
      await view.prompt(`Explain this code from ${attachment.label}.`, [attachment]);
    }),
    vscode.commands.registerCommand("agentls.fixCode", async () => {
      const editor = editorOrWarn();
      if (editor === undefined) return;
      const uri = editor.document.uri;
      const selection = editor.selection;
      const range = selection.isEmpty ? editor.document.lineAt(selection.active.line).range : selection;
      const problems = vscode.languages.getDiagnostics(uri).filter((d) => d.range.intersection(range) !== undefined);
      sendDiagnostics((m, p) => view.client.notify(m, p), uri);
      const attachment = selectionAttachment(editor);
      const text =
        problems.length > 0
          ? `Fix these problems in ${attachment.label}:\n${problems.map(describe).join("\n")}`
          : `Fix the problem in ${attachment.label} (line ${range.start.line + 1}).`;
      await view.reveal();
      await view.prompt(text, [attachment]);
    }),
  ];
}
