// What the view shows that is computed from the state: usage figures and tool-card summaries.
import type { HookPart, JsonObject, ToolPart } from "../shared/protocol.ts";
import { countChanges } from "../src/diff/patch.ts";
import type { ChatState } from "./state.ts";

export interface Usage {
  tokens: number; // what the last assistant message put in the context: input + cache read + output
  cost: number;
  context?: number;
  percent?: number;
}

export function usage(state: ChatState): Usage {
  let cost = 0;
  let last: { tokens: number; model: string } | undefined;
  for (const id of state.order) {
    const info = state.messages.get(id)?.info;
    if (info?.role !== "assistant") continue;
    cost += info.cost;
    const t = info.tokens;
    const used = t.input + t.cache.read + t.output;
    if (used > 0) last = { tokens: used, model: `${info.providerID}/${info.modelID}` };
  }
  const result: Usage = { tokens: last?.tokens ?? 0, cost };
  const context = last ? state.config?.modelLimits?.[last.model]?.context : undefined;
  if (context !== undefined && context > 0 && last) {
    result.context = context;
    result.percent = Math.round((last.tokens / context) * 100);
  }
  return result;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

export interface ToolSummary {
  title: string;
  status: ToolPart["state"]["status"];
  file?: string;
  patch?: string;
  additions?: number;
  deletions?: number;
  command?: string;
  output?: string;
  error?: string;
  /** The call ended because the user said no (a rejected permission, a dismissed question). */
  rejected?: boolean;
}

/** The card of a tool call: its title, and for edits the +N −M and patch, for bash the command and output. */
export function toolSummary(part: ToolPart): ToolSummary {
  const state = part.state;
  const input: JsonObject = state.input ?? {};
  const metadata: JsonObject = ("metadata" in state ? state.metadata : undefined) ?? {};
  const file = str(input.filePath) ?? str(input.path) ?? str(metadata.filepath);
  const title = ("title" in state ? str(state.title) : undefined) ?? file ?? str(input.command) ?? str(input.pattern) ?? "";
  const summary: ToolSummary = { title, status: state.status };
  if (part.tool === "edit" || part.tool === "write" || part.tool === "multiedit" || part.tool === "patch") {
    summary.file = file;
    const patch = str(metadata.diff);
    if (patch !== undefined) {
      summary.patch = patch;
      const counted = countChanges(patch);
      summary.additions = num(metadata.additions) ?? counted.additions;
      summary.deletions = num(metadata.deletions) ?? counted.deletions;
    }
  }
  if (part.tool === "bash") summary.command = str(input.command);
  if (state.status === "completed") summary.output = state.output;
  else if (state.status === "running") summary.output = str(metadata.output);
  else if (state.status === "error") {
    summary.error = state.error;
    if (metadata.rejected === true) summary.rejected = true;
  }
  return summary;
}

/** The lines of an attached range as a chip shows them after the file name (":4", ":1-2"), or "". */
export function lineRange(source: { start?: number; end?: number } | undefined): string {
  if (source?.start === undefined) return "";
  return source.end === undefined || source.end === source.start ? `:${source.start}` : `:${source.start}-${source.end}`;
}

/**
 * How a turn that ended with an error reads under its answer. Only a turn the user stopped reads
 * "Stopped."; one cut by agentls stopping (a crash: the server marks it `aborted` too, with an
 * "interrupted: …" message when it comes back) or by a failure is an error, with its message.
 */
export function turnEnding(error: { name: string; message: string }): { kind: "stopped" | "error"; text: string } {
  const aborted = error.name.toLowerCase().includes("abort");
  if (aborted && !/^interrupted\b/i.test(error.message)) return { kind: "stopped", text: "Stopped." };
  if (aborted) return { kind: "error", text: `Error: the turn was ${error.message}.` };
  return { kind: "error", text: `Error: ${error.message}` };
}

/** What the user said to a tool call: the answers to its questions, or the feedback of a rejection. */
export function userReply(part: ToolPart): { label: string; text: string } | undefined {
  const state = part.state;
  if (part.tool === "question" && state.status === "completed") {
    const answers = state.metadata?.answers;
    const questions = state.input.questions;
    if (!Array.isArray(answers) || !Array.isArray(questions)) return undefined;
    const lines = questions.map((q, i) => {
      const asked = typeof q === "object" && q !== null ? (q as { question?: unknown }).question : undefined;
      const question = typeof asked === "string" ? asked : `Question ${i + 1}`;
      const answer: unknown = answers[i];
      const chosen = Array.isArray(answer) ? answer.filter((a): a is string => typeof a === "string") : [];
      return `${question} → ${chosen.length ? chosen.join(", ") : "(no answer)"}`;
    });
    return { label: "You answered:", text: lines.join("\n") };
  }
  if (state.status === "error" && state.metadata?.rejected === true) {
    // The server's rejection text (core/session/tool_calls.py) carries the user's words after "said: ".
    const said = /rejected this call and said: ([\s\S]*)$/.exec(state.error);
    if (part.tool === "question") return { label: "You dismissed the question.", text: "" };
    return said ? { label: "You rejected it and said:", text: said[1] } : { label: "You rejected it.", text: "" };
  }
  return undefined;
}

/** A hook's run as the transcript shows it: one line, whether it failed, and where it came from
 * with its output (the line's tooltip). */
export function hookSummary(part: HookPart): { text: string; failed: boolean; detail: string } {
  const ended = part.timedOut ? "timed out" : part.exitCode === undefined ? "did not start" : `exit ${part.exitCode}`;
  const effect = part.effect ? ` · ${part.effect}` : "";
  return {
    text: `Hook ${part.event}: ${part.command} — ${ended}, ${part.durationMs} ms${effect}`,
    failed: part.timedOut || part.exitCode !== 0,
    detail: [part.source, part.output].filter(Boolean).join("\n"),
  };
}
