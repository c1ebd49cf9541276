// Pending hunks in the editor itself: a gutter bar and a line background on the agent's lines (theme
// colours; a border that high-contrast themes draw), a marker where the agent removed lines, and a
// CodeLens "Keep | Undo" above each hunk. Placement follows the user's typing (hunks.ts `place`).
import * as vscode from "vscode";
import { trace } from "../trace";
import { type Hunk, type Placed, byAgent, lensLines, linesLabel, place } from "./hunks";
import type { ReviewState } from "./state";

export class HunkDecorations implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly added: vscode.TextEditorDecorationType;
  private readonly removed: vscode.TextEditorDecorationType;
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly cache = new Map<string, { version: number; hunks: Hunk[]; placed: Placed[] }>();
  readonly onDidChangeCodeLenses = this.lensEmitter.event;

  constructor(
    private readonly state: ReviewState,
    media: vscode.Uri,
  ) {
    this.added = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
      // Transparent in most themes; high-contrast themes give it a colour, so the lines stay marked there.
      borderColor: new vscode.ThemeColor("diffEditor.insertedTextBorder"),
      borderStyle: "dashed",
      borderWidth: "1px 0",
      gutterIconPath: vscode.Uri.joinPath(media, "hunk-gutter.svg"),
      gutterIconSize: "contain",
      overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    this.removed = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      gutterIconPath: vscode.Uri.joinPath(media, "hunk-removed.svg"),
      gutterIconSize: "contain",
      overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.deletedForeground"),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    this.disposables.push(
      this.added,
      this.removed,
      this.lensEmitter,
      state.onDidChange(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === "file" && state.inFile(e.document.uri.toString()).length > 0) this.later();
      }),
    );
  }

  /** Where the pending hunks of `document` are now (kept per document version and hunk list). */
  placed(document: vscode.TextDocument): Placed[] {
    const hunks = this.state.inFile(document.uri.toString());
    if (hunks.length === 0) return [];
    const key = document.uri.toString();
    const cached = this.cache.get(key);
    if (cached && cached.version === document.version && cached.hunks === hunks) return cached.placed;
    const lines: string[] = [];
    for (let i = 0; i < document.lineCount; i++) lines.push(document.lineAt(i).text);
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop(); // the line after a final newline
    const placed = place(lines, hunks);
    this.cache.set(key, { version: document.version, hunks, placed });
    if (this.cache.size > 50) this.cache.delete(this.cache.keys().next().value ?? key);
    return placed;
  }

  /** Where a pending hunk is now: placed in its open document, undefined when the file is not open. */
  placedHunk(hunk: Hunk): Placed | undefined {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === hunk.uri);
    return document === undefined ? undefined : this.placed(document).find((p) => p.hunk.id === hunk.id);
  }

  /** Re-place after typing, once the burst of changes is over (placing is per keystroke otherwise). */
  private later(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), 150);
  }

  refresh(): void {
    const started = performance.now();
    let count = 0;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.scheme !== "file") continue;
      const placed = this.placed(editor.document);
      count += placed.length;
      editor.setDecorations(this.added, placed.filter((p) => p.end > p.start).map((p) => this.addedOption(editor.document, p)));
      editor.setDecorations(this.removed, placed.filter((p) => p.end === p.start).map((p) => this.removedOption(editor.document, p)));
    }
    this.lensEmitter.fire();
    trace("reviewDecorated", { hunks: count, ms: performance.now() - started });
  }

  private addedOption(document: vscode.TextDocument, p: Placed): vscode.DecorationOptions {
    const range = new vscode.Range(p.start, 0, Math.max(p.start, p.end - 1), 0);
    const was = p.hunk.before.map((l) => l.replace(/\r?\n$/, "")).join("\n");
    const hover = new vscode.MarkdownString(`**agentls** changed ${linesLabel(p.hunk, p.start)}`);
    if (p.hunk.agent) hover.appendText(` (${byAgent(p.hunk)})`); // the description is the model's text, not markdown
    if (was) hover.appendMarkdown("; before:").appendCodeblock(was, document.languageId);
    else hover.appendMarkdown(" (new lines)");
    return { range, hoverMessage: hover };
  }

  private removedOption(document: vscode.TextDocument, p: Placed): vscode.DecorationOptions {
    const line = Math.min(p.start, Math.max(0, document.lineCount - 1));
    const was = p.hunk.before.map((l) => l.replace(/\r?\n$/, "")).join("\n");
    const hover = new vscode.MarkdownString(`**agentls** removed ${p.hunk.before.length} line(s)`);
    if (p.hunk.agent) hover.appendText(` (${byAgent(p.hunk)})`);
    hover.appendMarkdown(" here:").appendCodeblock(was, document.languageId);
    return {
      range: new vscode.Range(line, 0, line, 0),
      hoverMessage: hover,
      renderOptions: {
        after: {
          contentText: `  ⌫ ${p.hunk.before.length} line(s) removed by the agent`,
          color: new vscode.ThemeColor("editorCodeLens.foreground"),
          fontStyle: "italic",
        },
      },
    };
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const lenses: vscode.CodeLens[] = [];
    for (const group of lensLines(this.placed(document))) {
      const range = new vscode.Range(group[0].start, 0, group[0].start, 0);
      const label = group.map((p) => [linesLabel(p.hunk, p.start), byAgent(p.hunk)].filter(Boolean).join(" ")).join(", ");
      const changes = group.length === 1 ? "change" : `${group.length} changes`;
      const ids = group.map((p) => p.hunk.id);
      const arg = ids.length === 1 ? ids[0] : ids;
      lenses.push(
        new vscode.CodeLens(range, { title: "$(check) Keep", tooltip: `Keep the agent's ${changes} (${label})`, command: "agentls.review.keepHunk", arguments: [arg] }),
        new vscode.CodeLens(range, { title: "$(discard) Undo", tooltip: `Undo the agent's ${changes} (${label}), keeping your edits`, command: "agentls.review.undoHunk", arguments: [arg] }),
      );
    }
    return lenses;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
