// The refactoring queries of `agent/editorQuery` (docs/protocol.md): rename, code actions (listed, then
// one resolved, then its command run) and format, asked of every language server VS Code runs through
// its own `vscode.execute*Provider` commands. Only a code action's command changes anything here: the
// rest comes back as text edits, which the server applies as the agent's own edit (permission, review,
// undo). Positions are VS Code's UTF-16 ones, which the language client negotiates.
import * as vscode from "vscode";
import type { Range, WireCodeAction, WireEdit, WireResolvedAction, WireTextEdit } from "../../shared/protocol";

interface Params {
  query: string;
  uri?: string;
  position?: { line: number; character: number };
  range?: Range;
  newName?: string;
  title?: string;
  only?: string[];
  token?: string;
}

// A code action resolved for the agent keeps its command here until the server asks to run it.
const pending = new Map<string, vscode.Command>();
let nextToken = 0;
// How many of the offered actions VS Code resolves (fills in `edit`) when one is chosen.
const RESOLVE_ALL = 1000;

function wireRange(range: vscode.Range): Range {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

function vsRange(range: Range): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

function wireEdits(edits: readonly vscode.TextEdit[]): WireTextEdit[] {
  return edits.map((e) => ({ range: wireRange(e.range), newText: e.newText }));
}

function wireEdit(edit: vscode.WorkspaceEdit): WireEdit {
  // entries() holds the text edits; VS Code does not show file operations through its API.
  return { changes: edit.entries().map(([uri, edits]) => ({ uri: uri.toString(), edits: wireEdits(edits) })), fileOperations: [] };
}

async function document(params: Params): Promise<vscode.TextDocument> {
  if (params.uri === undefined) throw new Error(`${params.query}: the request names no uri`);
  return vscode.workspace.openTextDocument(vscode.Uri.parse(params.uri));
}

function fileName(doc: vscode.TextDocument): string {
  return vscode.workspace.asRelativePath(doc.uri);
}

async function rename(params: Params): Promise<WireEdit> {
  const doc = await document(params);
  if (params.position === undefined || params.newName === undefined) throw new Error("rename: the request names no position or newName");
  const at = new vscode.Position(params.position.line, params.position.character);
  const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>("vscode.executeDocumentRenameProvider", doc.uri, at, params.newName);
  if (edit === undefined) throw new Error(`no language server in VS Code renames symbols in ${fileName(doc)}`);
  return wireEdit(edit);
}

type Offered = vscode.CodeAction | vscode.Command;

function isCommand(item: Offered): item is vscode.Command {
  return typeof (item as vscode.Command).command === "string";
}

async function offered(params: Params, resolve: number): Promise<Offered[]> {
  const doc = await document(params);
  if (params.range === undefined) throw new Error(`${params.query}: the request names no range`);
  const kind = params.only !== undefined && params.only.length > 0 ? params.only[0] : undefined;
  const found = await vscode.commands.executeCommand<Offered[] | undefined>("vscode.executeCodeActionProvider", doc.uri, vsRange(params.range), kind, resolve);
  return found ?? [];
}

function kindOf(item: Offered): string {
  return isCommand(item) ? "" : (item.kind?.value ?? "");
}

async function listed(params: Params): Promise<WireCodeAction[]> {
  return (await offered(params, 0)).map((item) => ({
    title: item.title,
    kind: kindOf(item),
    isPreferred: !isCommand(item) && item.isPreferred === true,
    disabled: !isCommand(item) && item.disabled !== undefined ? item.disabled.reason : "",
    diagnostics: isCommand(item) ? [] : (item.diagnostics ?? []).map((d) => d.message),
  }));
}

function chosen(params: Params, items: Offered[]): Offered | undefined {
  if (params.title) return items.find((item) => item.title === params.title);
  const wanted = params.only ?? [];
  const ofKind = items.filter((item) => !isCommand(item) && item.disabled === undefined && wanted.some((k) => kindOf(item) === k || kindOf(item).startsWith(k + ".")));
  return ofKind.find((item) => !isCommand(item) && item.isPreferred) ?? ofKind[0];
}

async function resolved(params: Params): Promise<WireResolvedAction | null> {
  const item = chosen(params, await offered(params, RESOLVE_ALL));
  if (item === undefined) return null; // gone: the server tells the model to list the actions again
  const command = isCommand(item) ? item : item.command;
  const out: WireResolvedAction = { title: item.title, kind: kindOf(item) };
  if (!isCommand(item) && item.edit !== undefined) out.edit = wireEdit(item.edit);
  if (command !== undefined) {
    const token = String(++nextToken);
    pending.set(token, command);
    out.command = { title: command.title || command.command, command: command.command };
    out.token = token;
  }
  return out;
}

/** Run a resolved action's command; the documents it changed are saved and named (the step's review shows them). */
async function run(params: Params): Promise<unknown> {
  const command = params.token === undefined ? undefined : pending.get(params.token);
  if (command === undefined || params.token === undefined) throw new Error(`no resolved code action has the token ${params.token}`);
  pending.delete(params.token);
  const changed = new Map<string, vscode.TextDocument>();
  const watch = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.contentChanges.length > 0) changed.set(e.document.uri.toString(), e.document);
  });
  try {
    await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
  } finally {
    watch.dispose();
  }
  for (const doc of changed.values()) if (doc.isDirty) await doc.save();
  return { changed: [...changed.keys()] };
}

/** The user's indentation for the document: its editor's when one shows it, else the settings. */
function formatting(doc: vscode.TextDocument): vscode.FormattingOptions {
  const shown = vscode.window.visibleTextEditors.find((e) => e.document === doc);
  const config = vscode.workspace.getConfiguration("editor", doc);
  const tabSize = typeof shown?.options.tabSize === "number" ? shown.options.tabSize : config.get<number>("tabSize", 4);
  const insertSpaces = typeof shown?.options.insertSpaces === "boolean" ? shown.options.insertSpaces : config.get<boolean>("insertSpaces", true);
  return { tabSize, insertSpaces };
}

async function format(params: Params): Promise<WireTextEdit[]> {
  const doc = await document(params);
  const options = formatting(doc);
  const edits =
    params.range === undefined
      ? await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>("vscode.executeFormatDocumentProvider", doc.uri, options)
      : await vscode.commands.executeCommand<vscode.TextEdit[] | undefined>("vscode.executeFormatRangeProvider", doc.uri, vsRange(params.range), options);
  if (edits === undefined) throw new Error(`no formatter in VS Code formats ${fileName(doc)}`);
  return wireEdits(edits);
}

/** The answer to a refactoring query, or undefined for a query this module does not answer. */
export function answerRefactorQuery(params: Params): Promise<unknown> | undefined {
  switch (params.query) {
    case "rename":
      return rename(params);
    case "codeActions":
      return listed(params);
    case "codeAction":
      return resolved(params);
    case "runCommand":
      return run(params);
    case "format":
      return format(params);
    default:
      return undefined;
  }
}

export const REFACTOR_QUERIES = ["rename", "codeActions", "format"];
