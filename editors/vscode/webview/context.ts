// The context chips of the prompt box: a context item's chip shows its token count (what the model
// request will spend on it); the editor note's chip (✎ file:line) follows the editor and can be
// removed for the prompt being written — it comes back with the next one.
import type { Attachment } from "../src/chat/messages.ts";
import { button, h } from "./dom.ts";

/** The text of a chip: a context item with its token count, else the attachment's label. */
export function chipLabel(a: Attachment): string {
  return a.context !== undefined ? `@${a.label} · ${a.context.tokens.toLocaleString("en-US")} tok` : a.label;
}

export class EditorChip {
  readonly root = h("span", { class: "chip editor-chip", hidden: "" });
  private chip: { label: string; tokens?: number } | undefined;
  private removed = false;

  constructor(private readonly changed: () => void) {}

  /** The note's chip as the host sends it (none: the setting is off or no file is open). */
  set(chip: { label: string; tokens?: number } | undefined): void {
    this.chip = chip;
    this.draw();
  }

  /** Whether the note goes with the prompt being sent; the chip comes back for the next one. */
  take(): boolean {
    const send = this.chip !== undefined && !this.removed;
    this.removed = false;
    this.draw();
    return send;
  }

  private draw(): void {
    const chip = this.chip;
    this.root.hidden = chip === undefined || this.removed;
    if (chip === undefined) return this.root.replaceChildren();
    const tokens = chip.tokens === undefined ? "" : ` · ${chip.tokens.toLocaleString("en-US")} tok`;
    this.root.title = "The active file and line (and selection) go with the prompt as a short note";
    this.root.replaceChildren(
      h("span", { class: "chip-label", title: `${chip.label}${tokens}` }, `✎ ${chip.label}${tokens} `),
      button("×", () => {
        this.removed = true;
        this.draw();
        this.changed();
      }, { class: "chip-remove", title: "Leave the editor note out of this prompt", "aria-label": `Remove the editor note ${chip.label}` }),
    );
  }
}
