// A background sub-agent's report as it reaches its parent: a user message whose one part is a
// synthetic text part marked `metadata.context.kind: "subagent"` (docs/protocol.md). The transcript
// shows it as the sub-agent's, folded, instead of an empty "You". No DOM in `reportOf`: unit-tested.
import type { Part } from "../shared/protocol.ts";
import { h } from "./dom.ts";

export interface Report {
  label: string; // "@general: run the tests"
  text: string;
}

/** The report a part carries, if it is one. */
export function reportOf(part: Part): Report | undefined {
  if (part.type !== "text" || !part.synthetic) return undefined;
  const context = (part.metadata as { context?: { kind?: unknown; label?: unknown } } | undefined)?.context;
  if (context?.kind !== "subagent") return undefined;
  return { label: typeof context.label === "string" ? context.label : "a sub-agent", text: part.text };
}

/** Whether a message's parts are only sub-agent reports (its head then names no "You"). */
export function onlyReports(parts: Part[]): boolean {
  return parts.length > 0 && parts.every((p) => reportOf(p) !== undefined);
}

/** The report, folded: its label as the summary, its text inside. */
export function reportBlock(report: Report): HTMLElement {
  return h("details", { class: "subagent-report" }, h("summary", {}, `Report of the background sub-agent ${report.label}`), h("div", { class: "user-text" }, report.text));
}
