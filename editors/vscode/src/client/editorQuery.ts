// The server's `agent/editorQuery` (docs/protocol.md): the agent asks VS Code's language servers —
// every one the user runs, through VS Code's own `vscode.execute*Provider` commands — for definitions,
// references, hover text, symbols and the diagnostics of a file (the refactoring queries are answered in
// `refactorQueries.ts`). The server bounds the wait; an error thrown here reaches the model as the tool's error.
import * as vscode from "vscode";
import type { Range } from "../../shared/protocol";
import { answerRefactorQuery, REFACTOR_QUERIES } from "./refactorQueries";

/** The queries this client answers, announced in `experimental.agent.editorQueries`. */
export const EDITOR_QUERIES = ["definition", "references", "hover", "documentSymbols", "workspaceSymbols", "diagnostics", ...REFACTOR_QUERIES];

interface QueryParams {
  query: string;
  uri?: string;
  position?: { line: number; character: number };
  text?: string;
}

interface WireLocation {
  uri: string;
  range: Range;
}

interface WireSymbol {
  name: string;
  kind: string;
  containerName?: string;
  location: WireLocation;
}

const SEVERITIES = ["error", "warning", "information", "hint"];

function wireRange(range: vscode.Range): Range {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

function wireLocation(loc: vscode.Location | vscode.LocationLink): WireLocation {
  if ("targetUri" in loc) return { uri: loc.targetUri.toString(), range: wireRange(loc.targetSelectionRange ?? loc.targetRange) };
  return { uri: loc.uri.toString(), range: wireRange(loc.range) };
}

function kindName(kind: vscode.SymbolKind): string {
  return (vscode.SymbolKind[kind] ?? "symbol").toLowerCase();
}

function hoverText(hovers: readonly vscode.Hover[]): string {
  const parts: string[] = [];
  for (const hover of hovers) {
    for (const content of hover.contents) {
      if (typeof content === "string") parts.push(content);
      else if (content instanceof vscode.MarkdownString) parts.push(content.value);
      else parts.push("```" + content.language + "\n" + content.value + "\n```");
    }
  }
  return parts.filter((p) => p.trim() !== "").join("\n\n");
}

/** Document symbols flattened, children named with their parent as container. */
function flatten(uri: vscode.Uri, symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[]): WireSymbol[] {
  const out: WireSymbol[] = [];
  const visit = (symbol: vscode.DocumentSymbol | vscode.SymbolInformation, container: string): void => {
    if ("location" in symbol) {
      out.push({ name: symbol.name, kind: kindName(symbol.kind), containerName: symbol.containerName, location: wireLocation(symbol.location) });
      return;
    }
    out.push({ name: symbol.name, kind: kindName(symbol.kind), containerName: container, location: { uri: uri.toString(), range: wireRange(symbol.selectionRange) } });
    for (const child of symbol.children) visit(child, symbol.name);
  };
  for (const symbol of symbols) visit(symbol, "");
  return out;
}

async function document(params: QueryParams): Promise<vscode.TextDocument> {
  if (params.uri === undefined) throw new Error(`${params.query}: the request names no uri`);
  // Opening (not showing) the file lets its language's extension activate and its server load it.
  return vscode.workspace.openTextDocument(vscode.Uri.parse(params.uri));
}

function position(params: QueryParams): vscode.Position {
  if (params.position === undefined) throw new Error(`${params.query}: the request names no position`);
  return new vscode.Position(params.position.line, params.position.character);
}

export async function answerEditorQuery(params: QueryParams): Promise<unknown> {
  const refactor = answerRefactorQuery(params);
  if (refactor !== undefined) return refactor;
  switch (params.query) {
    case "definition":
    case "references": {
      const doc = await document(params);
      const command = params.query === "definition" ? "vscode.executeDefinitionProvider" : "vscode.executeReferenceProvider";
      const found = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(command, doc.uri, position(params));
      return (found ?? []).map(wireLocation);
    }
    case "hover": {
      const doc = await document(params);
      const hovers = await vscode.commands.executeCommand<vscode.Hover[] | undefined>("vscode.executeHoverProvider", doc.uri, position(params));
      const text = hoverText(hovers ?? []);
      return text === "" ? null : { contents: text };
    }
    case "documentSymbols": {
      const doc = await document(params);
      const symbols = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
        "vscode.executeDocumentSymbolProvider",
        doc.uri,
      );
      return flatten(doc.uri, symbols ?? []);
    }
    case "workspaceSymbols": {
      const symbols = await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", params.text ?? "");
      return (symbols ?? []).map((s) => ({ name: s.name, kind: kindName(s.kind), containerName: s.containerName, location: wireLocation(s.location) }));
    }
    case "diagnostics": {
      const doc = await document(params);
      return vscode.languages.getDiagnostics(doc.uri).map((d) => ({
        range: wireRange(d.range),
        severity: SEVERITIES[d.severity] ?? "error",
        message: d.message,
        source: d.source ?? "",
      }));
    }
    default:
      throw new Error(`unknown editor query: ${params.query}`);
  }
}
