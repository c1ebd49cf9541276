// The view's intents that need the editor's own UI: input boxes, quick picks, diff editors, links.
import * as path from "node:path";
import * as vscode from "vscode";
import type { DiffDocuments } from "../diff/provider";
import type { ProviderKeys } from "../keys";
import { applySetup } from "./firstrun";
import type { Session } from "../../shared/protocol";
import { type Attachment, type FromWebview, IMAGE_TYPES, MAX_IMAGE_BYTES } from "./messages";
import { copyCode, insertCode } from "./codeblock";
import { contextAttachment, contextPicks, pickedContext, TerminalOutputs } from "./contextItems";
import { mcpAttachment, mcpPicks, type McpPick } from "./mcpResources";
import { bestMatch } from "./match";
import { exportSession, olderMessages, searchSessions } from "./sessionTools";
import { removeQueued, updateQueued } from "./queue";
import { messageBackground, stopBackground, stopShell } from "./background";
import { listCommands, runCommand } from "./slash";
import { setEffort, setMode } from "./pickers";
import type { ChatHost } from "./host";
import { proposals } from "../review/proposal";
import { worktreeOf } from "../../shared/worktree";

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
    private readonly view: ChatHost,
    private readonly diffs: DiffDocuments,
    private readonly keys: ProviderKeys,
  ) {}

  private request<R>(method: string, params: unknown): Promise<R> {
    return this.view.client.request<R>(method, params);
  }

  async handle(message: FromWebview): Promise<void> {
    switch (message.type) {
      case "newSession":
        return this.newSession();
      case "newWorktreeSession":
        return void (await vscode.commands.executeCommand("agentls.newWorktreeSession"));
      case "switchSession":
        return this.view.select(message.sessionID);
      case "backgroundStop":
        return stopBackground(this.view.client, message.sessionID);
      case "backgroundMessage":
        return messageBackground(this.view.client, message.sessionID, message.description);
      case "shellStop":
        return stopShell(this.view.client, message.shellID);
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
      case "plan": // the plan's own editor does the asking (src/plan/review.ts)
        return void (await vscode.commands.executeCommand(`agentls.plan.${message.action}`, message.requestID));
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
      case "reviewChanges":
        // Review happens in the editor: the next pending hunk, with its Keep / Undo lenses.
        await vscode.commands.executeCommand("agentls.review.next");
        return;
      case "openToolDiff":
        return this.openPatch(message.file, message.patch);
      case "pickFiles":
        return this.pickFiles(message.mention === true);
      case "pickImages":
        return this.pickImages();
      case "attachUris":
        return this.attachDropped(message.uris);
      case "warn":
        void vscode.window.showWarningMessage(`agentls: ${message.message}`);
        return;
      case "attachSelection":
        return this.attachSelection();
      case "openLink":
        // Only web and mail links leave the view; command:, file: and javascript: never do.
        if (SAFE_LINK.test(message.href)) await vscode.env.openExternal(vscode.Uri.parse(message.href));
        return;
      case "openFile":
        await vscode.window.showTextDocument(this.fileUri(message.file));
        return;
      case "setApiKey":
        await vscode.commands.executeCommand("agentls.setApiKey");
        return;
      case "setup":
        if (await applySetup(this.keys, message.provider, message.model, message.apiKey)) await this.view.client.restart();
        this.view.clearNotice();
        return;
      case "openSetting":
        await vscode.commands.executeCommand("workbench.action.openSettings", message.setting);
        return;
      case "queueUpdate":
        return updateQueued(this.view.client, this.sessionID(), message.queueID, message.text);
      case "queueRemove":
        return removeQueued(this.view.client, this.sessionID(), message.queueID);
      case "listCommands":
        return listCommands(this.view);
      case "command":
        return runCommand(this.view, message.command, message.arguments, message.attachments);
      case "setMode":
        return setMode(this.view, message.mode);
      case "setEffort":
        return setEffort(this.view, message.effort);
      case "modelPicked":
        return this.view.pickModel(message.model);
      case "copyCode":
        return copyCode(message.text);
      case "insertCode":
        return insertCode(message.text);
      case "searchSessions": {
        const found = await searchSessions(this.view.client, message.query);
        this.view.post({ type: "searchResults", query: message.query, ...found });
        return;
      }
      case "exportSession":
        return exportSession(this.view.client, message.sessionID ?? this.view.sessionID);
      case "loadOlder": {
        const page = await olderMessages(this.view.client, message.sessionID, message.before);
        this.view.post({ type: "olderMessages", sessionID: message.sessionID, ...page });
        return;
      }
      case "openInTab":
        await vscode.commands.executeCommand("agentls.openSessionInTab", message.sessionID);
        return;
      default:
        return;
    }
  }

  private sessionID(): string {
    const id = this.view.sessionID;
    if (id === undefined) throw new Error("no session is open");
    return id;
  }

  /** A file the session names: a relative path is under where it works (a worktree session's worktree). */
  private fileUri(file: string): vscode.Uri {
    const session = this.view.session;
    const root = worktreeOf(session) !== undefined && session !== undefined ? session.directory : (vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "");
    return vscode.Uri.file(path.isAbsolute(file) ? file : path.join(root, file));
  }

  /** An empty chat: its session is made by the first prompt or choice, so one never used is never stored. */
  async newSession(): Promise<void> {
    await this.view.select(undefined);
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
    const edited = reply === "reject" ? undefined : proposals.edited(requestID); // the user's version (review/proposal.ts)
    if (edited !== undefined) params.edited = edited;
    await this.request("agent/permission/reply", params);
  }

  async showPermissionDiff(requestID: string): Promise<void> {
    const request = this.view.permissions.get(requestID);
    const meta = request?.metadata ?? {};
    const file = typeof meta.filepath === "string" ? meta.filepath : undefined;
    const after = typeof meta.after === "string" ? meta.after : undefined;
    if (file === undefined) return;
    const name = path.basename(file);
    if (after !== undefined && meta.editable === true) {
      await proposals.show(requestID, file, after, `${name} ↔ proposed by agentls`, request?.sessionID);
    } else if (after !== undefined) {
      await this.diffs.showProposed(file, after, `${name} ↔ proposed by agentls`, requestID, request?.sessionID);
    } else if (typeof meta.diff === "string") {
      await this.openPatch(file, meta.diff);
    }
  }

  /** A dialog was answered (here or elsewhere): its "proposed" diff tab has nothing more to show. */
  async dialogClosed(requestID: string): Promise<void> {
    await this.diffs.closeProposed((p) => p.requestID === requestID);
    await proposals.close((id) => id === requestID);
  }

  /** A turn ended: no dialog of it is open any more. */
  async turnEnded(sessionID: string): Promise<void> {
    await this.diffs.closeProposed((p) => p.sessionID === sessionID);
    await proposals.close((_, p) => p.sessionID === sessionID);
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

  /** Each terminal's last command output (shell integration), for @terminal. */
  readonly terminals = new TerminalOutputs();

  async pickFiles(mention: boolean): Promise<void> {
    const files = await vscode.workspace.findFiles("**/*", "**/{node_modules,.git,.venv,__pycache__}/**", 5000);
    const items: { label: string; uri?: vscode.Uri }[] = files
      .map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri }))
      .sort((a, b) => a.label.localeCompare(b.label));
    const mcp = await mcpPicks(this.view);
    const picked = await pickMany<vscode.QuickPickItem & { uri?: vscode.Uri } & McpPick>([...contextPicks(), ...mcp, ...items]);
    if (picked.length === 0) return;
    const attachments = await this.attachments(picked.flatMap((p) => (p.uri ? [p.uri] : [])));
    for (const kind of picked.flatMap((p) => pickedContext(p) ?? [])) {
      const item = await contextAttachment(this.view, kind, this.terminals);
      if (item !== undefined) attachments.push(item);
    }
    for (const pick of picked.filter((p) => p.mcp !== undefined)) {
      const item = await mcpAttachment(this.view, pick);
      if (item !== undefined) attachments.push(item);
    }
    if (attachments.length > 0) this.view.post({ type: "attach", attachments, mention });
  }

  /** "Attach image": image files from anywhere on disk (the open dialog), sent as images. */
  async pickImages(): Promise<void> {
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: true,
      openLabel: "Attach",
      title: "Images to attach",
      filters: { Images: Object.keys(IMAGE_TYPES) },
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    if (uris === undefined || uris.length === 0) return;
    const attachments = await this.attachments(uris);
    if (attachments.length > 0) this.view.post({ type: "attach", attachments });
  }

  /**
   * Files dropped on the prompt from VS Code (the Explorer, an editor tab): attached as the @ pick
   * attaches them. Images may come from anywhere (as from the Image dialog); other files only from
   * the workspace, the one the agent works in. What cannot be attached is named in one warning.
   */
  async attachDropped(dropped: string[]): Promise<void> {
    const uris: vscode.Uri[] = [];
    const refused: string[] = [];
    for (const text of dropped) {
      let uri: vscode.Uri;
      try {
        uri = vscode.Uri.parse(text, true);
      } catch {
        refused.push(`${text} (not a file URI)`);
        continue;
      }
      const name = uri.scheme === "file" ? uri.fsPath : text;
      const inWorkspace = vscode.workspace.getWorkspaceFolder(uri) !== undefined;
      const image = IMAGE_TYPES[path.extname(uri.path).slice(1).toLowerCase()] !== undefined;
      if (uri.scheme !== "file" && !inWorkspace) {
        refused.push(`${name} (not a file of this machine or workspace)`);
        continue;
      }
      if (!image && !inWorkspace) {
        refused.push(`${name} (outside the workspace)`);
        continue;
      }
      let stat: vscode.FileStat;
      try {
        stat = await vscode.workspace.fs.stat(uri);
      } catch {
        refused.push(`${name} (not found)`);
        continue;
      }
      if (stat.type & vscode.FileType.Directory) {
        // asRelativePath gives a workspace folder itself as its absolute path: name it instead.
        const root = vscode.workspace.workspaceFolders?.find((f) => f.uri.toString() === uri.toString());
        const label = root?.name ?? (inWorkspace ? vscode.workspace.asRelativePath(uri) : name);
        refused.push(`${label} (a folder: drop or @-pick its files)`);
        continue;
      }
      uris.push(uri);
    }
    if (refused.length > 0) void vscode.window.showWarningMessage(`agentls: cannot attach ${refused.join(", ")}.`);
    const attachments = await this.attachments(uris);
    if (attachments.length > 0) this.view.post({ type: "attach", attachments });
  }

  /**
   * Attachments for files: an image goes as its content (read here, so the view can show it and the
   * server takes it within the image size limit); any other file by URI, for the server to read.
   */
  private async attachments(uris: vscode.Uri[]): Promise<Attachment[]> {
    const out: Attachment[] = [];
    for (const uri of uris) {
      const label = vscode.workspace.getWorkspaceFolder(uri) ? vscode.workspace.asRelativePath(uri) : path.basename(uri.fsPath);
      const mime = IMAGE_TYPES[path.extname(uri.fsPath).slice(1).toLowerCase()];
      if (mime === undefined) {
        out.push({ uri: uri.toString(), label });
        continue;
      }
      const bytes = await vscode.workspace.fs.readFile(uri);
      if (bytes.byteLength > MAX_IMAGE_BYTES) {
        void vscode.window.showWarningMessage(`agentls: ${label} is ${bytes.byteLength.toLocaleString()} bytes; images can be at most ${MAX_IMAGE_BYTES.toLocaleString()}.`);
        continue;
      }
      out.push({ uri: uri.toString(), label, image: { mime, data: Buffer.from(bytes).toString("base64") } });
    }
    return out;
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


/**
 * A quick pick of several items: tick as many as you like (click a row, or Space on it) and Enter;
 * with none ticked, Enter takes the highlighted row, so `@name⏎` attaches that one file.
 * (`showQuickPick` with `canPickMany` returns nothing on Enter unless boxes were ticked, and a
 * multi-select list highlights no row as you type: the best match for the typed text is highlighted
 * here, so what Enter takes is what the user sees.)
 */
function pickMany<T extends vscode.QuickPickItem>(items: T[]): Promise<readonly T[]> {
  const pick = vscode.window.createQuickPick<T>();
  pick.items = items;
  pick.canSelectMany = true;
  pick.placeholder = "Files to attach (or context: @changes, @problems …): type to filter, Enter for the highlighted one, or tick several";
  return new Promise((resolve) => {
    let result: readonly T[] = [];
    pick.onDidChangeValue((value) => {
      const best = bestMatch(items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator), value);
      pick.activeItems = best === undefined ? [] : [best];
    });
    pick.onDidAccept(() => {
      result = pick.selectedItems.length > 0 ? pick.selectedItems : pick.activeItems.slice(0, 1);
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(result);
    });
    pick.show();
  });
}
