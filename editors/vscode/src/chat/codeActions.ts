// The lightbulb's "Ask agent to fix …" and "Explain with agent" (code actions of the server) and the
// editor's Fix/Explain commands, run in the chat view: the view reveals itself and the turn runs in
// its session (a new one when the current is busy), so its permission dialogs are seen. The prompt
// names every diagnostic the request carried.
import * as vscode from "vscode";
import type { Range } from "../../shared/protocol";
import type { Attachment } from "./messages";
import type { ChatView } from "./view";

/** A diagnostic as a prompt names it. */
export interface Problem {
  line: number; // 0-based
  message: string;
  source?: string;
}

/** The argument of the server's `agentls.fix` / `agentls.explain` code-action commands. */
interface Target {
  uri: string;
  range: Range;
  diagnostic?: { range: Range; message: string; source?: string };
  diagnostics?: { range: Range; message: string; source?: string }[];
}

export function describe(p: Problem): string {
  return `line ${p.line + 1}: ${p.message}${p.source ? ` [${p.source}]` : ""}`;
}

export function fixText(label: string, problems: readonly Problem[]): string {
  return problems.length > 0
    ? `Fix these problems in ${label}:\n${problems.map(describe).join("\n")}`
    : `Find what is wrong in ${label} and fix it.`;
}

export function explainText(label: string): string {
  return `Explain this code from ${label}.`;
}

function isTarget(value: unknown): value is Target {
  const t = value as Target | undefined;
  return typeof t?.uri === "string" && typeof t.range?.start?.line === "number" && typeof t.range.end?.line === "number";
}

/** Run a server code action's command in the chat view (the language client hands them here). */
export async function runCodeAction(view: ChatView, command: string, args: unknown[]): Promise<void> {
  const target = args[0];
  if (!isTarget(target)) throw new Error(`agentls: ${command} got no file and range to work on`);
  const uri = vscode.Uri.parse(target.uri);
  const { start, end } = target.range;
  const lines = end.line > start.line ? `${start.line + 1}-${end.line + 1}` : `${start.line + 1}`;
  const label = `${vscode.workspace.asRelativePath(uri)}:${lines}`;
  const attachment: Attachment = { uri: target.uri, label, range: target.range };
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const d of [...(target.diagnostic ? [target.diagnostic] : []), ...(target.diagnostics ?? [])]) {
    const key = JSON.stringify([d.range, d.message, d.source]);
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ line: d.range.start.line, message: d.message, source: d.source });
  }
  const text = command === "agentls.explain" ? explainText(label) : fixText(label, problems);
  await view.reveal();
  // Not awaited: the turn runs in the view; the lightbulb is done once the prompt is sent.
  void view.prompt(text, [attachment], undefined, undefined, { newIfBusy: true });
}
