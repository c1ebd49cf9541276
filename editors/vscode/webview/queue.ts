// The queued prompts above the prompt box: what was sent while a turn ran and waits for it to end, in
// the order they will run. Each can be edited in place (Enter saves, Escape cancels) or removed; the
// keys then go back to the prompt box, so the user keeps typing where they were.
import type { QueuedPrompt } from "../shared/protocol.ts";
import { button, h, type Post } from "./dom.ts";
import { queuedExtras, queuedText } from "./queueState.ts";

export class QueueList {
  readonly root = h("ol", { id: "queue", "aria-label": "Queued messages", hidden: true });
  /** The id of the item being edited, and its editor (kept across redraws while the user types). */
  private editing: { id: string; input: HTMLTextAreaElement } | undefined;
  private shown: QueuedPrompt[] = [];

  constructor(
    private readonly post: Post,
    private readonly focusPrompt: () => void,
  ) {}

  draw(queue: QueuedPrompt[]): void {
    if (this.editing !== undefined && !queue.some((q) => q.id === this.editing?.id)) {
      // It started or left the queue while being edited: nothing left to edit.
      const hadFocus = this.root.contains(document.activeElement);
      this.editing = undefined;
      if (hadFocus) this.focusPrompt();
    }
    this.shown = queue;
    this.root.hidden = queue.length === 0;
    this.root.replaceChildren(...queue.map((item, i) => this.row(item, i + 1)));
    this.editing?.input.focus();
  }

  private row(item: QueuedPrompt, n: number): HTMLLIElement {
    const text = queuedText(item);
    const extras = queuedExtras(item);
    const label = `Queued message ${n}`;
    if (this.editing?.id === item.id) {
      return h("li", { class: "queued editing", "data-id": item.id, "aria-label": label }, h("span", { class: "queued-n", "aria-hidden": "true" }, `${n}`), this.editing.input);
    }
    return h(
      "li",
      { class: "queued", "data-id": item.id, "aria-label": `${label}: ${text}${extras.length ? ` (with ${extras.join(", ")})` : ""}` },
      h("span", { class: "queued-n", "aria-hidden": "true" }, `${n}`),
      h("span", { class: "queued-text", title: text }, text || "(attachments only)"),
      ...extras.map((e) => h("span", { class: "chip" }, e)),
      h(
        "span",
        { class: "queued-actions" },
        button("Edit", () => this.edit(item), { class: "secondary queued-edit", title: "Edit this queued message", "aria-label": `Edit ${label.toLowerCase()}` }),
        button("×", () => this.remove(item), { class: "secondary queued-remove", title: "Remove it from the queue", "aria-label": `Remove ${label.toLowerCase()}` }),
      ),
    );
  }

  private edit(item: QueuedPrompt): void {
    const input = h("textarea", { class: "queued-input", rows: "2", "aria-label": "Edit the queued message (Enter saves, Escape cancels)" });
    input.value = queuedText(item);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        const text = input.value;
        this.finish();
        // Emptied: the user means to drop it.
        if (text.trim()) this.post({ type: "queueUpdate", queueID: item.id, text });
        else this.post({ type: "queueRemove", queueID: item.id });
      } else if (event.key === "Escape") {
        // Escape here cancels the edit; it must not reach the view's Escape, which stops the turn.
        event.preventDefault();
        event.stopPropagation();
        this.finish();
      }
    });
    this.editing = { id: item.id, input };
    this.draw(this.shown);
    input.setSelectionRange(input.value.length, input.value.length);
  }

  private finish(): void {
    this.editing = undefined;
    this.draw(this.shown);
    this.focusPrompt();
  }

  private remove(item: QueuedPrompt): void {
    this.post({ type: "queueRemove", queueID: item.id });
    this.focusPrompt();
  }
}
