// The view's intents that need the editor's own UI: input boxes, quick picks, diff editors, links.
import * as path from "node:path";
import * as vscode from "vscode";
import type { DiffDocuments } from "../diff/provider";
import type { Session } from "../protocol";
import type { Attachment, FromWebview } from "./messages";
import type { ChatView } from "./view";

const SAFE_LINK = /^(https?|mailto):/i;

export function selectionAttachment(editor: vscode.TextEditor): Attachment {
  const uri = editor.document.uri;
  const name = vscode.workspace.asRelativePath(uri);
  const s = editor.selection;
  if (s.isEmpty) return { uri: uri.toString(), label: name };
  return {
    uri: uri.toString(),
    label: `${name}:${s.start.line + 1}-${s.end.line + 1}`,
    range: {
      start: { line: s.start.line, character: s.start.character },
      end: { line: s.end.line, character: s.end.character },
    },
  };
}

export class Actions {
  constructor(
    private readonly view: ChatView,
    private readonly diffs: DiffDocuments,
  ) {}

  private request<R>(method: string, params: unknown): Promise<R> {
    return this.view.client.request<R>(method, params);
  }

  async handle(message: FromWebview): Promise<void> {
    switch (message.type) {
      case "newSession":
        return this.newSession();
      case "switchSession":
        return this.view.select(message.sessionID);
      case "moreSessions":
        return this.view.sendSessions(message.before);
      case "renameSession":
        return this.rename(message.sessionID);
      case "deleteSession":
        return this.delete(message.sessionID);
      case "forkSession": {
        const params = message.messageID ? { sessionID: message.sessionID, messageID: message.messageID } : { sessionID: message.sessionID };
        const forked = await this.request<Session>("agent/session/fork", params);
        await this.view.select(forked.id);
        return this.view.sendSessions();
      }
      case "permission":
        return this.permission(message.requestID, message.reply, message.feedback === true);
      case "showPermissionDiff":
        return this.showPermissionDiff(message.requestID);
      case "question":
        return this.request("agent/question/reply", { requestID: message.requestID, answers: message.answers });
      case "questionReject":
        return this.request("agent/question/reject", { requestID: message.requestID });
      case "revert":
        await this.request("agent/session/revert", { sessionID: this.view.sessionID, messageID: message.messageID });
        return this.view.refresh();
      case "unrevert":
        await this.request("agent/session/unrevert", { sessionID: this.view.sessionID });
        return this.view.refresh();
      case "openChange":
        return this.openChange(message.file);
      case "openToolDiff":
        return this.openPatch(message.file, message.patch);
      case "pickFiles":
        return this.pickFiles(message.mention === true);
      case "attachSelection":
        return this.attachSelection();
      case "openLink":
        // Only web and mail links leave the view; command:, file: and javascript: never do.
        if (SAFE_LINK.test(message.href)) await vscode.env.openExternal(vscode.Uri.parse(message.href));
        return;
      case "openFile":
        await vscode.window.showTextDocument(this.fileUri(message.file));
        return;
      default:
        return;
    }
  }

  private fileUri(file: string): vscode.Uri {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
    return vscode.Uri.file(path.isAbsolute(file) ? file : path.join(root, file));
  }

  async newSession(): Promise<void> {
    const session = await this.request<Session>("agent/session/create", {});
    await this.view.select(session.id);
    await this.view.sendSessions();
  }

  private async rename(sessionID: string): Promise<void> {
    const current = await this.request<Session>("agent/session/get", { sessionID });
    const title = await vscode.window.showInputBox({ prompt: "Rename the session", value: current.title });
    if (title === undefined || !title.trim()) return;
    await this.request("agent/session/update", { sessionID, title: title.trim() });
    await this.view.sendSessions();
  }

  private async delete(sessionID: string): Promise<void> {
    const session = await this.request<Session>("agent/session/get", { sessionID });
    const answer = await vscode.window.showWarningMessage(`Delete the session "${session.title}"?`, { modal: true }, "Delete");
    if (answer !== "Delete") return;
    await this.request("agent/session/delete", { sessionID });
    if (this.view.sessionID === sessionID) await this.view.select(undefined);
    await this.view.sendSessions();
  }

  private async permission(requestID: string, reply: string, feedback: boolean): Promise<void> {
    const params: Record<string, unknown> = { requestID, reply };
    if (feedback) {
      const message = await vscode.window.showInputBox({ prompt: "Tell the agent what to do instead" });
      if (message === undefined) return; // dismissed: the dialog stays open
      if (message.trim()) params.message = message.trim();
    }
    await this.request("agent/permission/reply", params);
  }

  async showPermissionDiff(requestID: string): Promise<void> {
    const request = this.view.permissions.get(requestID);
    const meta = request?.metadata ?? {};
    const file = typeof meta.filepath === "string" ? meta.filepath : undefined;
    const after = typeof meta.after === "string" ? meta.after : undefined;
    if (file === undefined) return;
    const name = path.basename(file);
    if (after !== undefined) {
      await this.diffs.showProposed(file, after, `${name} ↔ proposed by agentls`);
    } else if (typeof meta.diff === "string") {
      await this.openPatch(file, meta.diff);
    }
  }

  private async openChange(file: string): Promise<void> {
    const { files } = await this.request<{ files: { file: string; patch?: string }[] }>("agent/session/diff", { sessionID: this.view.sessionID });
    const change = files.find((f) => f.file === file);
    if (change?.patch) await this.openPatch(file, change.patch);
  }

  private async openPatch(file: string, patch: string): Promise<void> {
    const uri = this.fileUri(file);
    const shown = await this.diffs.showPatch(uri.fsPath, patch, `${path.basename(uri.fsPath)} (agentls change)`);
    if (!shown) void vscode.window.showInformationMessage(`agentls: ${path.basename(uri.fsPath)} changed again since; opening it as it is.`);
    if (!shown) await vscode.window.showTextDocument(uri);
  }

  async pickFiles(mention: boolean): Promise<void> {
    const files = await vscode.workspace.findFiles("**/*", "**/{node_modules,.git,.venv,__pycache__}/**", 5000);
    const items = files
      .map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri }))
      .sort((a, b) => a.label.localeCompare(b.label));
    // One file per pick: `@`, a few letters, Enter. (A multi-select pick returns nothing on Enter
    // unless the user ticked boxes, which is not what `@name⏎` means.)
    const picked = await vscode.window.showQuickPick(items, { placeHolder: "A file to attach", matchOnDescription: true });
    if (picked === undefined) return;
    this.view.post({ type: "attach", attachments: [{ uri: picked.uri.toString(), label: picked.label }], mention });
  }

  async attachSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      void vscode.window.showInformationMessage("agentls: open a file and select code to attach it.");
      return;
    }
    this.view.post({ type: "attach", attachments: [selectionAttachment(editor)] });
  }
}

