// The transcript: one element per message and per part, redrawn only when the reducer marks them.
// Streaming text is rendered incrementally: the stable Markdown prefix once, the tail each frame.
import type { MessageInfo, Part, ToolPart } from "../src/protocol.ts";
import { button, h, type Post, setMarkdown } from "./dom.ts";
import { toolSummary } from "./derive.ts";
import { stableCut } from "./markdown.ts";
import type { ChatState, MessageView } from "./state.ts";

interface TextView {
  stable: number;
  blocks: HTMLElement;
  tail: HTMLElement;
}

const STATUS_ICON: Record<string, string> = { pending: "○", running: "◌", completed: "✓", error: "✗" };

export class Transcript {
  readonly root = h("div", { id: "transcript" });
  private readonly messageEls = new Map<string, HTMLElement>();
  private readonly partEls = new Map<string, HTMLElement>();
  private readonly texts = new Map<string, TextView>();
  readonly dialogs = h("div", { id: "dialogs" });

  constructor(private readonly post: Post) {
    this.root.append(this.dialogs);
  }

  reset(): void {
    this.messageEls.clear();
    this.partEls.clear();
    this.texts.clear();
    this.root.replaceChildren(this.dialogs);
  }

  draw(state: ChatState): void {
    const d = state.dirty;
    if (d.transcript) this.drawOrder(state);
    for (const id of d.messages) {
      const view = state.messages.get(id);
      if (view !== undefined) this.drawMessage(state, view);
    }
    for (const id of d.parts) {
      if (d.messages.has(state.partOwner.get(id) ?? "")) continue; // drawn with its message
      const owner = state.messages.get(state.partOwner.get(id) ?? "");
      const part = owner?.parts.find((p) => p.id === id);
      const el = this.partEls.get(id);
      if (part !== undefined && el !== undefined && owner !== undefined) this.drawPart(el, part, owner.info.role);
    }
  }

  private drawOrder(state: ChatState): void {
    const keep = new Set(state.order);
    for (const [id, el] of this.messageEls) {
      if (!keep.has(id)) {
        el.remove();
        this.messageEls.delete(id);
      }
    }
    const revertFrom = state.session?.revert?.messageID;
    let previous: Element | null = null;
    for (const id of state.order) {
      let el = this.messageEls.get(id);
      const view = state.messages.get(id);
      if (view === undefined) continue;
      if (el === undefined) {
        el = h("div", { class: `message ${view.info.role}`, "data-id": id });
        this.messageEls.set(id, el);
        this.drawMessage(state, view);
      }
      el.classList.toggle("reverted", revertFrom !== undefined && id >= revertFrom);
      const wanted: Element | null = previous === null ? this.root.firstElementChild : previous.nextElementSibling;
      if (wanted !== el) this.root.insertBefore(el, wanted);
      previous = el;
    }
    // Dialogs stay at the end of the transcript, after the message that asked.
    if (this.root.lastElementChild !== this.dialogs) this.root.append(this.dialogs);
  }

  private drawMessage(state: ChatState, view: MessageView): void {
    const el = this.messageEls.get(view.info.id);
    if (el === undefined) return;
    const head = this.messageHead(state, view.info);
    const parts = h("div", { class: "parts" });
    for (const part of view.parts) {
      let partEl = this.partEls.get(part.id);
      if (partEl === undefined) {
        partEl = h("div", { class: `part ${part.type}`, "data-part": part.id });
        this.partEls.set(part.id, partEl);
        this.drawPart(partEl, part, view.info.role);
      } else if (state.dirty.parts.has(part.id)) {
        this.drawPart(partEl, part, view.info.role);
      }
      parts.append(partEl);
    }
    const error = view.info.role === "assistant" ? view.info.error : undefined;
    const footer = error
      ? h("div", { class: error.name.toLowerCase().includes("abort") ? "stopped" : "error" }, error.name.toLowerCase().includes("abort") ? "Stopped." : `Error: ${error.message}`)
      : null;
    el.replaceChildren(...[head, parts, footer].filter((x): x is HTMLElement => x !== null));
  }

  private messageHead(state: ChatState, info: MessageInfo): HTMLElement | null {
    if (info.role !== "user") return null;
    const sessionID = state.session?.id ?? "";
    return h(
      "div",
      { class: "msg-head" },
      h("span", { class: "who" }, "You"),
      button("Revert", () => this.post({ type: "revert", messageID: info.id }), { class: "link", title: "Undo the agent's changes from this message on" }),
      button("Fork", () => this.post({ type: "forkSession", sessionID, messageID: info.id }), { class: "link", title: "A new session with the conversation before this message" }),
    );
  }

  private drawPart(el: HTMLElement, part: Part, role: MessageInfo["role"]): void {
    switch (part.type) {
      case "text":
        if (part.synthetic || part.ignored) {
          el.replaceChildren();
          return;
        }
        if (role === "user") {
          el.replaceChildren(h("div", { class: "user-text" }, part.text));
          return;
        }
        this.drawText(el, part.id, part.text);
        return;
      case "reasoning": {
        const details = el.querySelector("details") ?? h("details", { class: "reasoning" }, h("summary", {}, "Thinking"), h("div", { class: "body" }));
        const body = details.querySelector(".body") as HTMLElement;
        body.textContent = part.text;
        if (details.parentElement !== el) el.replaceChildren(details);
        return;
      }
      case "tool":
        this.drawTool(el, part);
        return;
      case "file":
        el.replaceChildren(h("span", { class: "chip" }, `${part.filename ?? part.source?.path ?? part.url}`));
        return;
      case "retry":
        el.replaceChildren(h("div", { class: "retry" }, `Retry ${part.attempt}: ${part.error.message}`));
        return;
      case "compaction":
        el.replaceChildren(h("div", { class: "compaction" }, part.auto ? "— context compacted automatically —" : "— context compacted —"));
        return;
      default:
        el.replaceChildren();
    }
  }

  private drawText(el: HTMLElement, id: string, text: string): void {
    let view = this.texts.get(id);
    if (view === undefined || text.length < view.stable || el.firstChild !== view.blocks) {
      view = { stable: 0, blocks: h("div", { class: "md" }), tail: h("div", { class: "md tail" }) };
      this.texts.set(id, view);
      el.replaceChildren(view.blocks, view.tail);
    }
    const cut = stableCut(text, view.stable);
    if (cut > view.stable) {
      const block = h("div", { class: "block" });
      setMarkdown(block, text.slice(view.stable, cut));
      view.blocks.append(block);
      view.stable = cut;
    }
    setMarkdown(view.tail, text.slice(view.stable));
  }

  private drawTool(el: HTMLElement, part: ToolPart): void {
    const s = toolSummary(part);
    const open = el.querySelector("details")?.open ?? false;
    const head = h(
      "div",
      { class: "tool-head" },
      h("span", { class: `icon ${s.status}` }, STATUS_ICON[s.status] ?? ""),
      h("span", { class: "tool-name" }, part.tool),
      h("span", { class: "tool-title" }, s.title),
    );
    if (s.additions !== undefined && s.file !== undefined && s.patch !== undefined) {
      const file = s.file;
      const patch = s.patch;
      head.append(button(`+${s.additions} −${s.deletions ?? 0}`, () => this.post({ type: "openToolDiff", file, patch }), { class: "diffstat", title: "Open the diff" }));
    }
    const body: HTMLElement[] = [];
    if (s.command !== undefined) body.push(h("pre", { class: "command" }, `$ ${s.command}`));
    const output = s.error ?? s.output;
    if (output) {
      const details = h("details", { class: "output", open: open || (part.tool === "bash" && s.status === "running") }, h("summary", {}, s.error ? "Error" : "Output"), h("pre", {}, output));
      body.push(details);
    }
    el.className = `part tool status-${s.status}`;
    el.replaceChildren(head, ...body);
  }
}
