// Context items (docs/protocol.md, agent/context/resolve): the `@` pick offers @folder @problems
// @terminal @changes @symbol @url @session besides files. What only VS Code knows is gathered here —
// diagnostics from vscode.languages.getDiagnostics, the active terminal's selection (or the last
// command's output through shell integration), a workspace symbol's definition through
// vscode.executeWorkspaceSymbolProvider — and the server formats and counts every item; the chip
// shows that count, and the prompt sends exactly the text it counted. The editor note (the active
// file, cursor line and selection) follows the editor while `agentls.context.editor` is on.
import * as path from "node:path";
import * as vscode from "vscode";
import type { ContextItem, EditorItem, Problem, ProblemsItem, Session } from "../../shared/protocol";
import type { Attachment, ResolvedContext } from "./messages";
import type { ChatHost } from "./host";

/** An item as the server takes it (`kind` plus the kind's fields). */
export type RawItem = ContextItem;

interface ContextPick extends vscode.QuickPickItem {
  context?: string;
  uri?: vscode.Uri;
}

const KINDS: { kind: string; detail: string }[] = [
  { kind: "folder", detail: "a folder's tree (and, if you like, its files' text)" },
  { kind: "problems", detail: "the diagnostics of every language server, of the workspace or the active file" },
  { kind: "terminal", detail: "the active terminal's selection, or its last command's output" },
  { kind: "changes", detail: "the working tree's git diff, staged and unstaged" },
  { kind: "symbol", detail: "a workspace symbol's definition, found by the language servers" },
  { kind: "url", detail: "a web page, fetched like the webfetch tool" },
  { kind: "session", detail: "the summary or final answer of an earlier session" },
];
const SEVERITIES: Problem["severity"][] = ["error", "warning", "information", "hint"];
const MAX_PROBLEMS = 2000;

/** The context entries the `@` pick lists before the files. */
export function contextPicks(): ContextPick[] {
  return [
    { label: "Context", kind: vscode.QuickPickItemKind.Separator },
    ...KINDS.map((k) => ({ label: `@${k.kind}`, detail: k.detail, context: k.kind })),
    { label: "Files", kind: vscode.QuickPickItemKind.Separator },
  ];
}

/** The kind of a picked entry (undefined: a file). */
export function pickedContext(item: vscode.QuickPickItem): string | undefined {
  return (item as ContextPick).context;
}

/** Resolve `items` on the server: each with its text and token count, or its error. */
export async function resolveItems(view: ChatHost, items: RawItem[]): Promise<ResolvedContext[]> {
  const params: Record<string, unknown> = { items };
  if (view.sessionID) params.sessionID = view.sessionID;
  const answer = await view.client.request<{ items: ResolvedContext[] }>("agent/context/resolve", params);
  return answer.items;
}

/** Ask what the item of `kind` holds (a folder, a symbol …), gather it, resolve it: the chip's attachment. */
export async function contextAttachment(view: ChatHost, kind: string, terminals: TerminalOutputs): Promise<Attachment | undefined> {
  const chosen = await gather(view, kind, terminals);
  if (chosen === undefined) return undefined;
  const [resolved] = await resolveItems(view, [chosen.item]);
  if (resolved.error) {
    void vscode.window.showWarningMessage(`agentls: @${kind}: ${resolved.error}`);
    return undefined;
  }
  return { label: chosen.label, context: resolved };
}

async function gather(view: ChatHost, kind: string, terminals: TerminalOutputs): Promise<{ item: RawItem; label: string } | undefined> {
  switch (kind) {
    case "folder":
      return pickFolder();
    case "problems":
      return pickProblems();
    case "terminal":
      return terminalItem(terminals);
    case "changes":
      return { item: { kind }, label: "changes" };
    case "symbol":
      return pickSymbol();
    case "url": {
      // Fetching may ask permission, which is a dialog of a session: the chat's, made now if it has none.
      if (view.sessionID === undefined) await view.currentSession();
      const url = await vscode.window.showInputBox({ title: "@url", prompt: "The http(s) URL to attach (fetched like the webfetch tool)", placeHolder: "https://…" });
      return url ? { item: { kind, url: url.trim() }, label: `url:${url.trim()}` } : undefined;
    }
    case "session":
      return pickSession(view);
    default:
      return undefined;
  }
}

async function pickFolder(): Promise<{ item: RawItem; label: string } | undefined> {
  const files = await vscode.workspace.findFiles("**/*", "**/{node_modules,.git,.venv,__pycache__}/**", 5000);
  const folders = new Set<string>(["."]);
  for (const uri of files) {
    for (let dir = path.dirname(vscode.workspace.asRelativePath(uri, false)); dir !== "." && !folders.has(dir); dir = path.dirname(dir)) folders.add(dir);
  }
  const items = [...folders].sort().map((f) => ({ label: f === "." ? "./" : `${f}/`, folder: f }));
  const picked = await vscode.window.showQuickPick(items, { title: "@folder", placeHolder: "The folder whose tree to attach" });
  if (picked === undefined) return undefined;
  const how = await vscode.window.showQuickPick(["Tree only", "Tree and files (up to 8,000 tokens)"], { title: `@folder ${picked.label}` });
  if (how === undefined) return undefined;
  return { item: { kind: "folder", path: picked.folder, files: how !== "Tree only" }, label: `folder:${picked.label}` };
}

async function pickProblems(): Promise<{ item: RawItem; label: string } | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const choices = [{ label: "The whole workspace", uri: undefined as vscode.Uri | undefined }];
  if (active && active.scheme === "file") choices.push({ label: `The active file: ${vscode.workspace.asRelativePath(active)}`, uri: active });
  const picked = choices.length === 1 ? choices[0] : await vscode.window.showQuickPick(choices, { title: "@problems" });
  if (picked === undefined) return undefined;
  const all: [vscode.Uri, readonly vscode.Diagnostic[]][] = picked.uri ? [[picked.uri, vscode.languages.getDiagnostics(picked.uri)]] : vscode.languages.getDiagnostics();
  const problems: Problem[] = [];
  for (const [uri, diagnostics] of all) {
    if (uri.scheme !== "file") continue;
    for (const d of diagnostics) {
      problems.push({ path: uri.fsPath, line: d.range.start.line, column: d.range.start.character, severity: SEVERITIES[d.severity] ?? "error", message: d.message, source: d.source ?? "" });
    }
  }
  const item: ProblemsItem = { kind: "problems", problems: problems.slice(0, MAX_PROBLEMS) };
  if (picked.uri) item.path = picked.uri.fsPath;
  return { item, label: picked.uri ? `problems:${vscode.workspace.asRelativePath(picked.uri)}` : "problems" };
}

async function pickSymbol(): Promise<{ item: RawItem; label: string } | undefined> {
  const query = await vscode.window.showInputBox({ title: "@symbol", prompt: "The name of the symbol (a function, class, …) whose definition to attach" });
  if (!query) return undefined;
  const found = (await vscode.commands.executeCommand<vscode.SymbolInformation[]>("vscode.executeWorkspaceSymbolProvider", query)) ?? [];
  const items = found
    .filter((s) => s.location.uri.scheme === "file")
    // TypeScript names a function `greet()`: the bare name is what the user typed and the model reads.
    .map((s) => ({ label: s.name.replace(/\(\)$/, ""), description: `${vscode.workspace.asRelativePath(s.location.uri)}:${s.location.range.start.line + 1}`, symbol: s }));
  if (items.length === 0) {
    void vscode.window.showWarningMessage(`agentls: the language servers know no symbol matching "${query}".`);
    return undefined;
  }
  const exact = items.filter((i) => i.label === query);
  const only = exact.length === 1 ? exact[0] : items.length === 1 ? items[0] : undefined;
  const picked = only ?? await vscode.window.showQuickPick(items, { title: "@symbol", matchOnDescription: true });
  if (picked === undefined) return undefined;
  const { uri, range } = picked.symbol.location;
  const full = await definitionRange(uri, range);
  const document = await vscode.workspace.openTextDocument(uri);
  const text = document.getText(new vscode.Range(full.start.line, 0, full.end.line, document.lineAt(full.end.line).text.length));
  const item: RawItem = { kind: "symbol", name: picked.label, path: uri.fsPath, line: full.start.line, text, symbolKind: vscode.SymbolKind[picked.symbol.kind].toLowerCase() };
  return { item, label: `symbol:${picked.label}` };
}

/** The whole definition: the document symbol whose name range holds `at` (a workspace symbol's range may be its name only). */
async function definitionRange(uri: vscode.Uri, at: vscode.Range): Promise<vscode.Range> {
  const symbols = (await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>("vscode.executeDocumentSymbolProvider", uri)) ?? [];
  let best: vscode.Range | undefined;
  const visit = (list: (vscode.DocumentSymbol | vscode.SymbolInformation)[]): void => {
    for (const s of list) {
      const range = "range" in s ? s.range : s.location.range;
      if (range.contains(at.start) && (best === undefined || best.contains(range))) best = range;
      if ("children" in s) visit(s.children);
    }
  };
  visit(symbols);
  return best ?? at;
}

async function pickSession(view: ChatHost): Promise<{ item: RawItem; label: string } | undefined> {
  const { sessions } = await view.client.request<{ sessions: Session[] }>("agent/session/list", { limit: 50 });
  const items = sessions.filter((s) => s.id !== view.sessionID).map((s) => ({ label: s.title, description: s.id, id: s.id }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage("agentls: there is no earlier session to attach.");
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: "@session", placeHolder: "The session whose summary or final answer to attach" });
  return picked ? { item: { kind: "session", session: picked.id }, label: `session:${picked.label}` } : undefined;
}

async function terminalItem(terminals: TerminalOutputs): Promise<{ item: RawItem; label: string } | undefined> {
  const terminal = vscode.window.activeTerminal;
  if (terminal === undefined) {
    void vscode.window.showWarningMessage("agentls: open a terminal (and select text in it, or run a command) to attach it.");
    return undefined;
  }
  // The last command's output when shell integration reported one (the user may still want the
  // selection instead); without it, the selection. (Copying an empty selection makes VS Code warn,
  // so it is only tried when the user asks for it or there is nothing else.)
  const last = terminals.last(terminal);
  let text = last;
  if (last) {
    const firstLine = last.split("\n", 1)[0];
    const choice = await vscode.window.showQuickPick([`Last command's output: ${firstLine}`, "The selected text"], { title: "@terminal" });
    if (choice === undefined) return undefined;
    if (choice === "The selected text") text = await selectedText();
  } else {
    text = await selectedText();
  }
  if (!text) {
    void vscode.window.showWarningMessage(`agentls: select text in the terminal "${terminal.name}" to attach it (its last command's output is known only with shell integration).`);
    return undefined;
  }
  return { item: { kind: "terminal", name: terminal.name, text }, label: "terminal" };
}

/**
 * The active terminal's selection, through the clipboard (put back as it was): the API has no other
 * way. A clipboard the editor may not read (a browser that was not granted it) reads as no selection.
 */
async function selectedText(): Promise<string> {
  let saved: string;
  try {
    saved = await vscode.env.clipboard.readText();
  } catch {
    return "";
  }
  await vscode.env.clipboard.writeText("");
  try {
    await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
    return await vscode.env.clipboard.readText();
  } catch {
    return "";
  } finally {
    await vscode.env.clipboard.writeText(saved);
  }
}

/** Each terminal's last command and its output, as shell integration reports them. */
export class TerminalOutputs implements vscode.Disposable {
  private readonly outputs = new WeakMap<vscode.Terminal, string>();
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.window.onDidStartTerminalShellExecution(async ({ terminal, execution }) => {
      let output = `$ ${execution.commandLine.value}\n`;
      for await (const data of execution.read()) output += data;
      // Escape sequences (colours, cursor moves) are noise to the model.
      this.outputs.set(terminal, output.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").replace(/\r/g, ""));
    });
  }

  last(terminal: vscode.Terminal): string {
    return this.outputs.get(terminal) ?? "";
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** The editor note: follows the active editor and its selection, resolved for its chip's token count. */
export class EditorContext implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private editor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;

  constructor(private readonly view: ChatHost) {
    const soon = (): void => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.show(), 300);
    };
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        // Focus moving to the chat (a webview) leaves no text editor active: the last one stays.
        if (editor !== undefined && editor.document.uri.scheme === "file") this.editor = editor;
        soon();
      }),
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor === this.editor) soon();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("agentls.context.editor")) soon();
      }),
    );
  }

  /** The note's item, or undefined (the setting is off, no file editor was active). */
  item(): EditorItem | undefined {
    const editor = this.editor;
    if (!vscode.workspace.getConfiguration("agentls").get<boolean>("context.editor", true)) return undefined;
    if (editor === undefined || editor.document.isClosed || editor.document.uri.scheme !== "file") return undefined;
    const s = editor.selection;
    const item: EditorItem = { kind: "editor", path: editor.document.uri.fsPath, line: s.active.line };
    if (!s.isEmpty) item.selection = { startLine: s.start.line, endLine: s.end.line, text: editor.document.getText(s) };
    return item;
  }

  /** Post the chip (label and tokens) to the view; none when the note is off. */
  async show(): Promise<void> {
    const item = this.item();
    if (item === undefined) return this.view.post({ type: "editorContext" });
    const label = `${vscode.workspace.asRelativePath(item.path as string)}:${(item.line as number) + 1}`;
    let tokens: number | undefined;
    try {
      if (this.view.client.running) tokens = (await resolveItems(this.view, [item]))[0]?.tokens;
    } catch {
      tokens = undefined; // the chip shows without its count until the server answers
    }
    this.view.post({ type: "editorContext", chip: { label, tokens } });
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
