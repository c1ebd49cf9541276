// The transcript: one element per message and per part, redrawn only when the reducer marks them.
// Streaming text is rendered incrementally: the stable Markdown prefix once, the tail each frame.
import type { HookPart, MessageInfo, Part, ToolPart } from "../shared/protocol.ts";
import { button, h, type Post, setMarkdown } from "./dom.ts";
import { addCodeActions } from "./codeblocks.ts";
import { hookSummary, lineRange, toolSummary, turnEnding, userReply } from "./derive.ts";
import { CutScanner, heldBackTail, isFence } from "./markdown.ts";
import type { ChatState, MessageView } from "./state.ts";
import { childSession, stepsOf, type Subtasks } from "./subtasks.ts";
import { subtaskBox } from "./subtaskview.ts";
import { onlyReports, type Report, reportBlock, reportOf } from "./subagentReport.ts";

interface TextView {
  scanner: CutScanner;
  stable: number;
  blocks: HTMLElement;
  tail: HTMLElement;
  /** What the tail shows, to skip a frame's re-render when it did not change. */
  tailText: string;
  /** The open fenced block the tail streams as plain text: where its fence starts, its text node. */
  code?: { fenceStart: number; node: Text; length: number };
}

// How long a frame may spend rendering newly stable Markdown blocks of one text (at least one block).
const BLOCK_BUDGET_MS = 6;
// How long a frame may spend building the messages of an older page (at least one message).
const OLDER_BUDGET_MS = 5;
// A message's height until it is first drawn (chat.css's contain-intrinsic-size).
const MESSAGE_HEIGHT_PX = 120;

const STATUS_ICON: Record<string, string> = { pending: "○", running: "◌", completed: "✓", error: "✗" };
// What a screen reader says for each glyph (the glyph itself is hidden from it).
const STATUS_TEXT: Record<string, string> = { pending: "pending", running: "running", completed: "done", error: "failed", rejected: "rejected" };

export class Transcript {
  // A log: a screen reader announces what is added (a new message, a dialog), politely; a message
  // is aria-busy while it streams, so its text is read once it is complete, not at every delta.
  readonly root = h("div", { id: "transcript", role: "log", "aria-live": "polite", "aria-relevant": "additions", "aria-label": "Conversation", tabindex: "0" });
  private readonly messageEls = new Map<string, HTMLElement>();
  private readonly partEls = new Map<string, HTMLElement>();
  private readonly texts = new Map<string, TextView>();
  /** Texts with stable blocks still to render: the view draws them again next frame. */
  readonly behind = new Set<string>();
  readonly dialogs = h("div", { id: "dialogs" });
  /** Above the first message: where older messages load (webview/virtual.ts). */
  readonly top = h("div", { id: "older" });
  private subtasks: Subtasks = new Map();

  constructor(private readonly post: Post) {
    this.root.append(this.top, this.dialogs);
  }

  reset(): void {
    // A whole session drawn at once (a switch, a reload) is not news: the live region is quiet until
    // it is on screen (settle), then announces what comes after.
    this.root.setAttribute("aria-live", "off");
    this.behind.clear();
    this.messageEls.clear();
    this.partEls.clear();
    this.texts.clear();
    this.root.replaceChildren(this.top, this.dialogs);
  }

  /** After a frame: once a reset's transcript is drawn, additions are announced again. */
  settle(): void {
    if (this.root.getAttribute("aria-live") === "off" && this.behind.size === 0) {
      requestAnimationFrame(() => this.root.setAttribute("aria-live", "polite"));
    }
  }

  draw(state: ChatState): void {
    this.subtasks = state.subtasks;
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
      if (part !== undefined && el !== undefined && owner !== undefined) this.drawPart(el, part, owner.info);
    }
  }

  /** Messages of an older page not in the transcript yet: they go above the first one shown. */
  above(state: ChatState): boolean {
    const first = state.order[0];
    return first !== undefined && this.messageEls.size > 0 && this.messageEls.get(first)?.isConnected !== true;
  }

  private drawOrder(state: ChatState): void {
    const keep = new Set(state.order);
    for (const [id, el] of this.messageEls) {
      if (!keep.has(id)) {
        const parent = el.parentElement;
        el.remove();
        this.messageEls.delete(id);
        if (parent !== null && parent.classList.contains("older-page") && parent.childElementCount === 0) parent.remove();
      }
    }
    // An older page (the messages above the first one shown) is built off the document a slice per
    // frame, within OLDER_BUDGET_MS, and put in at once when it is whole: building a page of answers
    // in one frame held it for 50-100 ms while the user scrolled, and putting it in slice by slice
    // made the browser lay out every message below again at each slice. It goes in as a box of its
    // own (.older-page): off screen, the whole box is skipped by layout, paint and the browser's
    // per-frame walks (content-visibility in chat.css), so scrolling costs what is near the screen
    // rather than a walk over a thousand messages. webview/virtual.ts keeps what is on screen in
    // place when a page lands.
    const shown = this.messageEls.size === 0 ? 0 : state.order.findIndex((id) => this.messageEls.get(id)?.isConnected === true);
    let built = Math.max(shown, 0);
    const start = performance.now();
    while (built > 0 && (built === shown || performance.now() - start < OLDER_BUDGET_MS)) {
      built--;
      const id = state.order[built];
      if (id !== undefined && !this.messageEls.has(id)) this.newMessage(state, id);
    }
    if (built === 0 && shown > 0) {
      const page = h("div", { class: "older-page" });
      for (const id of state.order.slice(0, shown)) {
        const el = this.messageEls.get(id);
        if (el !== undefined) page.append(el);
      }
      // Its size until it is first drawn: its messages' (chat.css).
      page.style.containIntrinsicSize = `auto ${page.childElementCount * MESSAGE_HEIGHT_PX}px`;
      // Older messages are history, not news: the live region is quiet while they go in (settle
      // turns it back on a frame later), or a screen reader would read a whole page aloud.
      this.root.setAttribute("aria-live", "off");
      this.root.insertBefore(page, this.top.nextElementSibling);
    }
    const revertFrom = state.session?.revert?.messageID;
    let previous: Element = this.top;
    for (let i = built === 0 ? 0 : shown; i < state.order.length; i++) {
      const id = state.order[i];
      if (id === undefined) continue;
      const el = this.messageEls.get(id) ?? this.newMessage(state, id);
      if (el === undefined) continue;
      el.classList.toggle("reverted", revertFrom !== undefined && id >= revertFrom);
      const page = el.parentElement;
      if (page !== null && page !== this.root && page.classList.contains("older-page")) {
        previous = page; // an older page's messages stay in its box, in order
        continue;
      }
      const wanted = previous.nextElementSibling;
      if (wanted !== el) this.root.insertBefore(el, wanted);
      previous = el;
    }
    // Dialogs stay at the end of the transcript, after the message that asked.
    if (this.root.lastElementChild !== this.dialogs) this.root.append(this.dialogs);
  }

  private newMessage(state: ChatState, id: string): HTMLElement | undefined {
    const view = state.messages.get(id);
    if (view === undefined) return undefined;
    const el = h("div", { class: `message ${view.info.role}`, "data-id": id });
    this.messageEls.set(id, el);
    this.drawMessage(state, view);
    return el;
  }

  private drawMessage(state: ChatState, view: MessageView): void {
    const el = this.messageEls.get(view.info.id);
    if (el === undefined) return;
    // The parts box stays: re-attaching a long answer's elements would make the browser lay the
    // whole message out again (a message changes at every step start and finish).
    let box = el.querySelector<HTMLElement>(":scope > .parts");
    if (box === null) {
      box = h("div", { class: "parts" });
      el.replaceChildren(box);
    }
    let previous: Element | null = null;
    const keep = new Set<Element>();
    for (const part of view.parts) {
      let partEl = this.partEls.get(part.id);
      if (partEl === undefined) {
        partEl = h("div", { class: `part ${part.type}`, "data-part": part.id });
        this.partEls.set(part.id, partEl);
        this.drawPart(partEl, part, view.info);
      } else if (state.dirty.parts.has(part.id)) {
        this.drawPart(partEl, part, view.info);
      }
      keep.add(partEl);
      const wanted: Element | null = previous === null ? box.firstElementChild : previous.nextElementSibling;
      if (wanted !== partEl) box.insertBefore(partEl, wanted);
      previous = partEl;
    }
    for (const child of [...box.children]) if (!keep.has(child)) child.remove();
    el.querySelector(":scope > .msg-head")?.remove();
    el.querySelector(":scope > .msg-footer")?.remove();
    const head = this.messageHead(state, view.info);
    if (head !== null) el.insertBefore(head, box);
    const info = view.info;
    const error = info.role === "assistant" ? info.error : undefined;
    if (info.role === "assistant") el.setAttribute("aria-busy", String(info.time.completed === undefined && error === undefined));
    if (error) {
      const ending = turnEnding(error);
      el.append(h("div", { class: `msg-footer ${ending.kind}` }, ending.text));
    } else {
      // A turn that failed with no answer to carry its error (a failed compaction, say): it stays here.
      const failed = state.turnErrors.get(info.id);
      if (failed !== undefined) el.append(h("div", { class: "msg-footer error turn-error" }, `Error: ${failed}`));
    }
  }

  private messageHead(state: ChatState, info: MessageInfo): HTMLElement | null {
    if (info.role !== "user") return null;
    const sessionID = state.session?.id ?? "";
    const reported = onlyReports(state.messages.get(info.id)?.parts ?? []);
    return h(
      "div",
      { class: "msg-head" },
      h("span", { class: "who" }, reported ? "Sub-agent" : "You"),
      button("Revert", () => this.post({ type: "revert", messageID: info.id }), { class: "link", title: "Undo the agent's changes from this message on" }),
      button("Fork", () => this.post({ type: "forkSession", sessionID, messageID: info.id }), { class: "link", title: "A new session with the conversation before this message" }),
    );
  }

  private drawPart(el: HTMLElement, part: Part, info: MessageInfo): void {
    const role = info.role;
    switch (part.type) {
      case "text":
        if (reportOf(part) !== undefined) {
          el.hidden = false;
          el.replaceChildren(reportBlock(reportOf(part) as Report));
          return;
        }
        if (part.synthetic || part.ignored) {
          // Not shown (an attached file's text, for the model): an empty block would still break
          // the row of attachment chips around it.
          el.replaceChildren();
          el.hidden = true;
          return;
        }
        el.hidden = false;
        if (role === "user") {
          el.replaceChildren(h("div", { class: "user-text" }, part.text));
          return;
        }
        // Still streaming: the part has not ended, nor has its turn (one cut by a crash never ends its parts).
        this.drawText(el, part.id, part.text, part.time !== undefined && part.time.end === undefined && info.role === "assistant" && info.time.completed === undefined && info.error === undefined);
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
      case "file": {
        // An image the user sent shows as a thumbnail (only inline image data: the CSP allows no other source).
        const image = part.mime.startsWith("image/") && part.url.startsWith(`data:${part.mime};base64,`);
        const name = (part.filename ?? part.source?.path ?? (image ? "image" : part.url)) + lineRange(part.source);
        el.replaceChildren(h("span", { class: image ? "chip image" : "chip", title: name }, image ? h("img", { class: "thumb", src: part.url, alt: "" }) : null, name));
        return;
      }
      case "retry":
        el.replaceChildren(h("div", { class: "retry" }, `Retry ${part.attempt}: ${part.error.message}`));
        return;
      case "compaction":
        el.replaceChildren(h("div", { class: "compaction" }, part.auto ? "— context compacted automatically —" : "— context compacted —"));
        return;
      case "hook":
        el.replaceChildren(hookLine(part));
        return;
      default:
        el.replaceChildren();
    }
  }

  private drawText(el: HTMLElement, id: string, text: string, streaming: boolean): void {
    let view = this.texts.get(id);
    if (view === undefined || text.length < view.scanner.scanned || el.firstChild !== view.blocks) {
      view = { scanner: new CutScanner(), stable: 0, blocks: h("div", { class: "md" }), tail: h("div", { class: "md tail" }), tailText: "" };
      this.texts.set(id, view);
      el.replaceChildren(view.blocks, view.tail);
    }
    // Per frame: scan the lines completed since the last frame, render newly stable blocks within a
    // time budget (the rest next frame), then the tail (the text since the last blank line) — so a
    // frame's work is bounded whatever the answer's length or the size of the text that just came.
    view.scanner.advance(text);
    const cuts = view.scanner.cuts;
    const start = performance.now();
    let next = 0;
    while (next < cuts.length && (next === 0 || performance.now() - start < BLOCK_BUDGET_MS)) {
      const block = h("div", { class: "block" });
      setMarkdown(block, text.slice(view.stable, cuts[next]));
      addCodeActions(block, this.post);
      view.blocks.append(block);
      view.stable = cuts[next];
      next++;
    }
    cuts.splice(0, next);
    if (cuts.length > 0) {
      // Behind: the tail would repeat what the next blocks show; draw it once they are in.
      this.behind.add(id);
      view.tailText = "";
      view.code = undefined;
      view.tail.replaceChildren();
      return;
    }
    this.behind.delete(id);
    const tail = text.slice(view.stable);
    const shownTail = `${streaming ? "…" : "."}${tail}`;
    if (shownTail === view.tailText) return;
    view.tailText = shownTail;
    const fenceStart = view.scanner.fenceStart;
    const lastLine = text.slice(view.scanner.scanned);
    if (fenceStart >= view.stable && !isFence(lastLine)) {
      this.drawOpenFence(view, text, fenceStart);
      return;
    }
    view.code = undefined;
    setMarkdown(view.tail, heldBackTail(tail, streaming));
    addCodeActions(view.tail, this.post);
  }

  /**
   * A tail that ends inside a fenced code block: the Markdown before the fence, then the block's text
   * appended as it arrives, unhighlighted — highlighting a growing block on every frame would cost
   * more each frame; it is highlighted once, when it closes and becomes stable.
   */
  private drawOpenFence(view: TextView, text: string, fenceStart: number): void {
    const bodyStart = text.indexOf("\n", fenceStart) + 1;
    const body = text.slice(bodyStart);
    if (view.code === undefined || view.code.fenceStart !== fenceStart || body.length < view.code.length) {
      const node = document.createTextNode(body);
      const head = h("div", { class: "block" });
      setMarkdown(head, text.slice(view.stable, fenceStart));
      view.tail.replaceChildren(head, h("pre", { class: "hljs streaming" }, h("code", {}, node)));
      view.code = { fenceStart, node, length: body.length };
      return;
    }
    view.code.node.appendData(body.slice(view.code.length));
    view.code.length = body.length;
  }

  private drawTool(el: HTMLElement, part: ToolPart): void {
    const s = toolSummary(part);
    const open = el.querySelector("details")?.open ?? false;
    const head = h(
      "div",
      { class: "tool-head" },
      h("span", { class: `icon ${s.rejected ? "rejected" : s.status}`, "aria-hidden": "true" }, s.rejected ? "⊘" : (STATUS_ICON[s.status] ?? "")),
      h("span", { class: "sr-only" }, `${STATUS_TEXT[s.rejected ? "rejected" : s.status] ?? s.status}: `),
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
      const details = h("details", { class: "output", open: open || (part.tool === "bash" && s.status === "running") }, h("summary", {}, s.rejected ? "Rejected" : s.error ? "Error" : "Output"), h("pre", {}, output));
      body.push(details);
    }
    // What the user answered or said stays in sight (the output below is folded).
    const reply = userReply(part);
    if (reply !== undefined) body.unshift(h("div", { class: "tool-said" }, h("span", { class: "label" }, reply.label), reply.text ? `${reply.text.includes("\n") || part.tool === "question" ? "\n" : " "}${reply.text}` : null));
    // A sub-agent's steps, nested and folded under its task card.
    const child = childSession(part);
    const nested = child === undefined ? null : subtaskBox(stepsOf(this.subtasks, part.id), child, el.querySelector<HTMLDetailsElement>("details.subtask")?.open ?? false, this.post);
    el.className = `part tool status-${s.rejected ? "rejected" : s.status}`;
    el.replaceChildren(head, ...body, ...(nested === null ? [] : [nested]));
  }
}

/** A hook's run as one line; where it came from and its output on hover. */
function hookLine(part: HookPart): HTMLElement {
  const { text, failed, detail } = hookSummary(part);
  return h("div", { class: failed ? "hook failed" : "hook", title: detail }, text);
}
