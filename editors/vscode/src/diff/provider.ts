// Read-only virtual documents for diff editors: the agent's proposed text before the user allows an
// edit, and the before/after of a change. Contents live in memory under `agentls-diff:` URIs.
import * as path from "node:path";
import * as vscode from "vscode";
import { reversePatch } from "./patch";

export const SCHEME = "agentls-diff";

/** A "proposed" diff shown for a permission dialog, closed when the dialog or its turn ends. */
export interface Proposed {
  uri: vscode.Uri;
  requestID?: string;
  sessionID?: string;
}

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private counter = 0;
  private proposed: Proposed[] = [];
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "";
  }

  /** A virtual document holding `text`, named like `file` so the editor picks its language. */
  private put(kind: string, file: string, text: string): vscode.Uri {
    this.counter += 1;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${kind}/${this.counter}/${path.basename(file)}` });
    this.contents.set(uri.toString(), text);
    // Keep the store from growing without bound in a long session.
    if (this.contents.size > 200) {
      const oldest = this.contents.keys().next().value;
      if (oldest !== undefined) this.contents.delete(oldest);
    }
    return uri;
  }

  /** Diff between what the buffer holds now and the text the agent proposes (before the user allows it). */
  async showProposed(file: string, after: string, title: string, requestID?: string, sessionID?: string): Promise<void> {
    const target = vscode.Uri.file(file);
    let left: vscode.Uri;
    try {
      await vscode.workspace.fs.stat(target);
      left = target; // the live buffer: unsaved user text included
    } catch {
      left = this.put("new", file, "");
    }
    const right = this.put("proposed", file, after);
    this.proposed.push({ uri: right, requestID, sessionID });
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: true });
  }

  /** Close the tabs of the proposed diffs `which` picks (their dialog was answered, or the turn ended). */
  async closeProposed(which: (p: Proposed) => boolean): Promise<void> {
    const done = this.proposed.filter(which);
    if (done.length === 0) return;
    this.proposed = this.proposed.filter((p) => !which(p));
    const uris = new Set(done.map((p) => p.uri.toString()));
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && uris.has(tab.input.modified.toString()));
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
  }

  /** A read-only document holding `text` (a diff editor's side), named like `file`. */
  virtual(kind: string, file: string, text: string): vscode.Uri {
    return this.put(kind, file, text);
  }

  async showChange(file: string, before: string, after: string, title: string): Promise<void> {
    const left = this.put("before", file, before);
    const right = this.put("after", file, after);
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: true });
  }

  /** Diff of a change known only by its patch, against the file as it is now. */
  async showPatch(file: string, patch: string, title: string): Promise<boolean> {
    const uri = vscode.Uri.file(file);
    let current = "";
    try {
      current = (await vscode.workspace.openTextDocument(uri)).getText();
    } catch {
      current = ""; // deleted since: the patch then describes its removal
    }
    const before = reversePatch(current, patch);
    if (before === undefined) return false;
    await this.showChange(file, before, current, title);
    return true;
  }

  dispose(): void {
    this.changed.dispose();
    this.contents.clear();
  }
}
