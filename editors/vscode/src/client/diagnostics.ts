// The diagnostics VS Code holds for a file — from every language server the user runs, not only
// agentls — forwarded to the agent with `agent/diagnostics` (after its edits, and for Fix).
import * as vscode from "vscode";
import type { Range } from "../../shared/protocol";

export interface WireDiagnostic {
  range: Range;
  message: string;
  severity?: number;
  source?: string;
  code?: string | number;
}

type Notify = (method: string, params: unknown) => void;

// A language server usually re-checks a file within a few hundred milliseconds of a change; after
// this long the current report is sent as it is (the file may have no checker at all).
const SETTLE_MS = 1000;

function wireRange(range: vscode.Range): Range {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

function wireCode(code: vscode.Diagnostic["code"]): string | number | undefined {
  if (code === undefined || typeof code === "string" || typeof code === "number") return code;
  return code.value;
}

export function toWire(diagnostics: readonly vscode.Diagnostic[]): WireDiagnostic[] {
  return diagnostics.map((d) => ({
    range: wireRange(d.range),
    message: d.message,
    // VS Code counts severities from 0 (Error), LSP from 1.
    severity: d.severity + 1,
    source: d.source,
    code: wireCode(d.code),
  }));
}

export function sendDiagnostics(notify: Notify, uri: vscode.Uri): void {
  notify("agent/diagnostics", { uri: uri.toString(), diagnostics: toWire(vscode.languages.getDiagnostics(uri)) });
}

/** Send each file's diagnostics once its checkers have reported on the new text (or after a while). */
export function sendFreshDiagnostics(notify: Notify, uris: readonly vscode.Uri[]): void {
  const waiting = new Map(uris.map((u) => [u.toString(), u]));
  if (waiting.size === 0) return;
  const flush = (key: string): void => {
    const uri = waiting.get(key);
    if (uri === undefined) return;
    waiting.delete(key);
    sendDiagnostics(notify, uri);
    if (waiting.size === 0) {
      listener.dispose();
      clearTimeout(timer);
    }
  };
  const listener = vscode.languages.onDidChangeDiagnostics((event) => {
    for (const uri of event.uris) flush(uri.toString());
  });
  const timer = setTimeout(() => {
    for (const key of [...waiting.keys()]) flush(key);
  }, SETTLE_MS);
}
