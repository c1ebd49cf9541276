// A next edit that VS Code cannot show as ghost text (a replacement, such as a renamed argument:
// see ghostText.ts) is shown by the extension, with stable API only: the replaced text struck
// through and the new text right after it. Tab accepts it (one edit, one undo step); Escape, typing,
// moving to another line or another editor dismisses it. Everything else stays VS Code's ghost text.
import * as vscode from "vscode";
import { showsAsGhostText } from "./ghostText";
import { trace } from "../trace";

const SHOWN = "agentls.nextEditShown"; // the context key of the keybindings (package.json)

interface Shown {
  editor: vscode.TextEditor;
  version: number;
  range: vscode.Range;
  old: string;
  text: string;
  command: vscode.Command | undefined;
}

type Items = vscode.InlineCompletionItem[] | vscode.InlineCompletionList | null | undefined;

export class InlineEdits implements vscode.Disposable {
  private shown: Shown | undefined;
  private readonly removed = vscode.window.createTextEditorDecorationType({
    textDecoration: "line-through",
    backgroundColor: new vscode.ThemeColor("diffEditor.removedTextBackground"),
  });
  private readonly added = vscode.window.createTextEditorDecorationType({});
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.commands.registerCommand("agentls.nextEdit.accept", () => this.accept()),
      vscode.commands.registerCommand("agentls.nextEdit.dismiss", () => this.dismiss("escape")),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length > 0 && event.document === this.shown?.editor.document) this.dismiss("typed");
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        const shown = this.shown;
        if (shown !== undefined && (event.textEditor !== shown.editor || event.selections[0]?.active.line !== shown.range.start.line)) {
          this.dismiss("moved");
        }
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.dismiss("editor")),
    ];
  }

  /** The server's items as VS Code can show them: those ghost text can show are returned; when
   * none can, a replacement on the cursor's line is shown here instead (and nothing is returned). */
  present(document: vscode.TextDocument, position: vscode.Position, result: Items, token: vscode.CancellationToken): Items {
    const items = result === null || result === undefined ? [] : Array.isArray(result) ? result : result.items;
    const edits = items.flatMap((item) => {
      const range = item.range;
      if (range === undefined || typeof item.insertText !== "string" || !range.isSingleLine || range.start.line !== position.line) return [];
      const edit = { start: range.start.character, end: range.end.character, old: document.getText(range), text: item.insertText };
      return [{ item, range, edit }];
    });
    const ghost = edits.filter(({ edit }) => showsAsGhostText(edit, position.character));
    const replacement = edits.find(({ edit }) => !showsAsGhostText(edit, position.character));
    const editor = vscode.window.activeTextEditor;
    if (ghost.length > 0 || replacement === undefined || token.isCancellationRequested || editor?.document !== document) return result;
    const { item, range, edit } = replacement;
    this.show({ editor, version: document.version, range, old: edit.old, text: edit.text, command: item.command });
    return [];
  }

  private show(shown: Shown): void {
    this.shown = shown;
    shown.editor.setDecorations(this.removed, [shown.range]);
    const after: vscode.DecorationOptions = {
      range: new vscode.Range(shown.range.end, shown.range.end),
      hoverMessage: "agentls next edit: Tab accepts, Escape dismisses",
      renderOptions: {
        after: {
          contentText: shown.text,
          color: new vscode.ThemeColor("editorGhostText.foreground"),
          backgroundColor: new vscode.ThemeColor("diffEditor.insertedTextBackground"),
          fontStyle: "italic",
        },
      },
    };
    shown.editor.setDecorations(this.added, [after]);
    void vscode.commands.executeCommand("setContext", SHOWN, true);
    trace("inlineEditShown", { line: shown.range.start.line, old: shown.old, text: shown.text });
  }

  /** Tab: replace the struck text with the new one, if the document is still as it was shown. */
  private async accept(): Promise<void> {
    const shown = this.shown;
    if (shown === undefined) return;
    this.dismiss("accepted");
    const document = shown.editor.document;
    if (document.version !== shown.version || document.getText(shown.range) !== shown.old) return;
    const applied = await shown.editor.edit((builder) => builder.replace(shown.range, shown.text));
    trace("inlineEditAccepted", { line: shown.range.start.line, applied });
    if (applied && shown.command !== undefined) {
      await vscode.commands.executeCommand(shown.command.command, ...(shown.command.arguments ?? []));
    }
  }

  private dismiss(why: string): void {
    const shown = this.shown;
    if (shown === undefined) return;
    this.shown = undefined;
    shown.editor.setDecorations(this.removed, []);
    shown.editor.setDecorations(this.added, []);
    void vscode.commands.executeCommand("setContext", SHOWN, false);
    if (why !== "accepted") trace("inlineEditDismissed", { line: shown.range.start.line, why });
  }

  dispose(): void {
    this.dismiss("disposed");
    for (const s of this.subscriptions) s.dispose();
    this.removed.dispose();
    this.added.dispose();
  }
}
