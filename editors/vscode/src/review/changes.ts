// The Changes view: the files with pending hunks of the current session and their hunks, per-file
// Keep/Undo as inline actions, Keep all / Undo all in the title; a badge counts the pending hunks.
// A hunk is labelled by the line the editor's decoration marks now (it moves as the user types above it).
import * as path from "node:path";
import * as vscode from "vscode";
import type { HunkDecorations } from "./decorations";
import { type Hunk, byAgent, linesLabel } from "./hunks";
import type { ReviewState } from "./state";

export const CHANGES_VIEW = "agentls.changes";

export type ChangeItem = { kind: "file"; file: string; uri: string; hunks: Hunk[] } | { kind: "hunk"; hunk: Hunk };

export class ChangesView implements vscode.TreeDataProvider<ChangeItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ChangeItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly tree: vscode.TreeView<ChangeItem>;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly state: ReviewState,
    private readonly decorations: HunkDecorations,
  ) {
    this.tree = vscode.window.createTreeView(CHANGES_VIEW, { treeDataProvider: this, showCollapseAll: true });
    // The decorations are placed again after typing: the labels follow them.
    this.disposables.push(this.tree, this.changed, state.onDidChange(() => this.update()), decorations.onDidChangeCodeLenses(() => this.changed.fire(undefined)));
    this.update();
  }

  private update(): void {
    const count = this.state.count;
    this.tree.badge = count > 0 ? { value: count, tooltip: `${count} agent change${count === 1 ? "" : "s"} to review` } : undefined;
    this.tree.message = count === 0 ? "No agent changes to review." : undefined;
    this.changed.fire(undefined);
  }

  getChildren(item?: ChangeItem): ChangeItem[] {
    if (item === undefined) {
      return [...this.state.byFile].map(([file, hunks]) => ({ kind: "file" as const, file, uri: hunks[0].uri, hunks }));
    }
    return item.kind === "file" ? item.hunks.map((hunk) => ({ kind: "hunk" as const, hunk })) : [];
  }

  getTreeItem(item: ChangeItem): vscode.TreeItem {
    if (item.kind === "file") {
      const uri = vscode.Uri.parse(item.uri);
      const tree = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.Expanded);
      tree.id = `file:${item.file}`;
      tree.description = `${path.dirname(item.file) === "." ? "" : path.dirname(item.file) + " · "}${item.hunks.length} change${item.hunks.length === 1 ? "" : "s"}`;
      tree.contextValue = "agentlsChangedFile";
      tree.command = { command: "agentls.review.open", title: "Open", arguments: [item.hunks[0].id] };
      return tree;
    }
    const hunk = item.hunk;
    const label = linesLabel(hunk, this.decorations.placedHunk(hunk)?.start);
    const tree = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    tree.id = `hunk:${hunk.id}`;
    const first = hunk.after.find((l) => l.trim()) ?? hunk.before.find((l) => l.trim()) ?? "";
    const by = byAgent(hunk);
    tree.description = by ? `${by} · ${first.trim().slice(0, 60)}` : first.trim().slice(0, 60);
    tree.tooltip = by ? `${hunk.file}: ${label}, ${by}` : `${hunk.file}: ${label}`;
    tree.iconPath = new vscode.ThemeIcon(hunk.after.length === 0 ? "diff-removed" : hunk.before.length === 0 ? "diff-added" : "diff-modified");
    tree.contextValue = "agentlsHunk";
    tree.command = { command: "agentls.review.open", title: "Open", arguments: [hunk.id] };
    return tree;
  }

  getParent(item: ChangeItem): ChangeItem | undefined {
    if (item.kind === "file") return undefined;
    const hunks = this.state.byFile.get(item.hunk.file) ?? [];
    return { kind: "file", file: item.hunk.file, uri: item.hunk.uri, hunks };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
