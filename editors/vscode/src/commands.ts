// The palette commands. Explain and Fix send the code (as a file part with its range); Fix also sends
// the diagnostics VS Code holds for that range — every language server's — through agent/diagnostics.
import * as vscode from "vscode";
import { sendDiagnostics } from "./client/diagnostics";
import { selectionAttachment } from "./chat/actions";
import { exportSession } from "./chat/sessionTools";
import { explainText, fixText } from "./chat/codeActions";
import { showMcpServers } from "./chat/mcpServers";
import type { ChatView } from "./chat/view";
import type { DiffDocuments } from "./diff/provider";
import { newWorktreeSession, showWorktrees } from "./worktrees/commands";

export function registerCommands(view: ChatView, diffs: DiffDocuments): vscode.Disposable[] {
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
    vscode.commands.registerCommand("agentls.newWorktreeSession", () => newWorktreeSession(view)),
    vscode.commands.registerCommand("agentls.worktrees", () => showWorktrees(view, diffs)),
    vscode.commands.registerCommand("agentls.focus", () => view.focusPrompt()),
    vscode.commands.registerCommand("agentls.stop", () => view.abort()),
    vscode.commands.registerCommand("agentls.restartServer", () => view.client.restart()),
    vscode.commands.registerCommand("agentls.mcpServers", () => showMcpServers(view.client)),
    vscode.commands.registerCommand("agentls.exportSession", () => exportSession(view.client, view.sessionID)),
    vscode.commands.registerCommand("agentls.askAboutSelection", async () => {
      const editor = editorOrWarn();
      if (editor === undefined) return;
      await view.reveal();
      view.post({ type: "attach", attachments: [selectionAttachment(editor)] });
      await view.focusPrompt();
    }),
    vscode.commands.registerCommand("agentls.explainCode", async () => {
      const editor = editorOrWarn();
      if (editor === undefined) return;
      const attachment = selectionAttachment(editor);
      await view.reveal();
      await view.prompt(explainText(attachment.label), [attachment], undefined, undefined, { newIfBusy: true });
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
      const label = selection.isEmpty ? `${attachment.label}:${range.start.line + 1}` : attachment.label;
      const text = fixText(label, problems.map((d) => ({ line: d.range.start.line, message: d.message, source: d.source })));
      await view.reveal();
      await view.prompt(text, [attachment], undefined, undefined, { newIfBusy: true });
    }),
  ];
}
