// A task card's sub-agent: its steps nested under the card, folded by default (a summary line says
// how many and whether it still runs), and "Open as session" to read the child on its own.
import type { Part } from "../shared/protocol.ts";
import { button, h, type Post } from "./dom.ts";
import { toolSummary } from "./derive.ts";
import type { ChildSteps } from "./subtasks.ts";

const ICON: Record<string, string> = { pending: "○", running: "◌", completed: "✓", error: "✗" };
// What a screen reader says for each glyph (as the tool cards say it).
const SAID: Record<string, string> = { pending: "pending", running: "running", completed: "done", error: "failed", rejected: "rejected" };
const TEXT_CHARS = 400;

function step(part: Part): HTMLElement | null {
  if (part.type === "tool") {
    const s = toolSummary(part);
    const status = s.rejected ? "rejected" : s.status;
    return h(
      "li",
      { class: `subtask-step tool status-${status}` },
      h("span", { class: `icon ${status}`, "aria-hidden": "true" }, s.rejected ? "⊘" : (ICON[s.status] ?? "")),
      h("span", { class: "sr-only" }, `${SAID[status] ?? status}: `),
      h("span", { class: "tool-name" }, part.tool),
      h("span", { class: "tool-title" }, s.title),
    );
  }
  if (part.type === "text" && !part.synthetic && part.text.trim() !== "") {
    const text = part.text.length > TEXT_CHARS ? `${part.text.slice(0, TEXT_CHARS)}…` : part.text;
    return h("li", { class: "subtask-step text" }, text);
  }
  return null;
}

/** The nested steps of the children of one task card (`open`: the fold as the user left it). */
export function subtaskBox(children: ChildSteps[], child: string, open: boolean, post: Post): HTMLElement {
  const steps = children.flatMap((c) => c.parts.map(step).filter((e): e is HTMLElement => e !== null));
  const running = children.some((c) => c.busy);
  const count = `${steps.length} step${steps.length === 1 ? "" : "s"}${running ? ", running" : ""}`;
  const details = h(
    "details",
    { class: "subtask", open },
    h("summary", {}, `Sub-agent: ${count}`),
    steps.length > 0 ? h("ol", { class: "subtask-steps" }, ...steps) : h("div", { class: "subtask-empty" }, running ? "Starting…" : "No steps"),
  );
  const openAs = button("Open as session", () => post({ type: "switchSession", sessionID: child }), { class: "link subtask-open", title: "Show the sub-agent's session on its own" });
  return h("div", { class: "subtask-box" }, details, openAs);
}
