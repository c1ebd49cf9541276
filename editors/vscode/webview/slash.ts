// The `/` menu of the prompt box: typing `/` at the start of the prompt lists the commands (the
// server's built-ins and the user's own, from `agent/commands`, asked again each time the menu opens,
// and the view's own built-ins), filtered as the user types. Arrow keys move, Enter or a click runs
// (or, for a command that takes arguments, writes `/name ` to type them after), Tab completes, Escape
// closes. The keys stay in the prompt box throughout; the box is the list's combobox for screen readers.
import { h, type Post } from "./dom.ts";
import { CLIENT_COMMANDS, filterCommands, mergeCommands, parseCommand, type SlashCommand, typedCommand } from "./slashState.ts";

import type { Attachment } from "../src/chat/messages.ts";

export type RunCommand = (command: SlashCommand, args: string, attachments: Attachment[]) => void;

export class SlashMenu {
  readonly root = h("div", { id: "slash-menu", role: "listbox", "aria-label": "Commands", hidden: true });
  private commands: SlashCommand[] = mergeCommands([]);
  private errors: string[] = [];
  private shown: SlashCommand[] = [];
  private active = 0;
  /** The user moved the highlight (arrows): a refreshed list keeps it on that command; else the top. */
  private moved = false;

  constructor(
    private readonly input: HTMLTextAreaElement,
    keys: HTMLElement,
    private readonly post: Post,
    private readonly run: RunCommand,
  ) {
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", "slash-menu");
    input.setAttribute("aria-expanded", "false");
    input.addEventListener("input", () => this.update());
    input.addEventListener("click", () => this.update());
    input.addEventListener("blur", () => this.close());
    // Capture on the prompt box: the menu's keys must not also send the prompt or stop the turn.
    keys.addEventListener("keydown", (event) => this.key(event), true);
    // mousedown, not click: the prompt box keeps the focus (a blur would close the menu first). On the
    // list, not each row: the rows are redrawn when the server's list arrives.
    this.root.addEventListener("mousedown", (event) => {
      event.preventDefault();
      const name = (event.target as Element | null)?.closest<HTMLElement>(".slash-item")?.dataset.name;
      const command = this.shown.find((c) => c.name === name);
      if (command !== undefined) this.accept(command, false);
    });
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  /** The server's answer to `agent/commands` (asked when the menu opens). */
  setCommands(commands: SlashCommand[], errors: string[]): void {
    this.commands = mergeCommands(commands);
    this.errors = errors;
    if (this.isOpen) this.update();
  }

  /** `/name arguments` typed in full and sent: run it, when `name` is a command (else it is a prompt). */
  runTyped(text: string, attachments: Attachment[]): boolean {
    const parsed = parseCommand(text, this.commands);
    if (parsed === undefined) return false;
    this.close();
    this.run(parsed.command, parsed.arguments, attachments);
    return true;
  }

  private update(): void {
    const typed = typedCommand(this.input.value, this.input.selectionStart ?? 0);
    if (typed === undefined) return this.close();
    if (!this.isOpen) {
      // Files are read again at each request: a command file saved a moment ago is in the list.
      this.post({ type: "listCommands" });
      this.active = 0;
      this.moved = false;
    }
    const before = this.shown[this.active]?.name;
    this.shown = filterCommands(this.commands, typed);
    // The project's commands arrive with the server's list, above the built-ins: until the user
    // moves it, the highlight stays on the top row rather than following the command it was on.
    const keep = this.moved ? this.shown.findIndex((c) => c.name === before) : -1;
    this.active = keep >= 0 ? keep : 0;
    this.draw();
  }

  /** What the list shows now: an update that changes nothing (the same list again) redraws nothing. */
  private drawn = "";

  private draw(): void {
    this.root.hidden = false;
    this.input.setAttribute("aria-expanded", "true");
    const key = JSON.stringify([this.shown, this.active, this.errors]);
    if (key === this.drawn) return;
    this.drawn = key;
    const rows = this.shown.map((c, i) => {
      const row = h(
        "div",
        { id: `slash-${i}`, class: i === this.active ? "slash-item active" : "slash-item", role: "option", "aria-selected": i === this.active ? "true" : "false", "data-name": c.name, title: c.source ?? "" },
        h(
          "div",
          { class: "slash-line" },
          h("span", { class: "slash-name" }, `/${c.name}`),
          c.hint ? h("span", { class: "slash-hint" }, ` ${c.hint}`) : null,
          c.kind === "user" ? h("span", { class: "slash-kind", title: c.source ?? "" }, "yours") : null,
          c.kind === "mcp" ? h("span", { class: "slash-kind", title: "A prompt of this MCP server" }, (c.source ?? "").replace(/^mcp:/, "MCP ")) : null,
        ),
        h("div", { class: "slash-desc" }, c.description),
      );
      return row;
    });
    const empty = rows.length === 0 ? [h("div", { class: "slash-empty" }, "No such command")] : [];
    const errors = this.errors.map((e) => h("div", { class: "slash-error", role: "note" }, `Not loaded: ${e}`));
    this.root.replaceChildren(...rows, ...empty, ...errors);
    if (rows.length > 0) {
      this.input.setAttribute("aria-activedescendant", `slash-${this.active}`);
      rows[this.active].scrollIntoView({ block: "nearest" });
    } else this.input.removeAttribute("aria-activedescendant");
  }

  close(): void {
    if (!this.isOpen) return;
    this.root.hidden = true;
    this.shown = [];
    this.drawn = "";
    this.input.setAttribute("aria-expanded", "false");
    this.input.removeAttribute("aria-activedescendant");
  }

  private key(event: KeyboardEvent): void {
    if (!this.isOpen || event.target !== this.input || event.isComposing) return;
    const n = this.shown.length;
    const stop = (): void => {
      event.preventDefault();
      event.stopPropagation();
    };
    if (event.key === "ArrowDown" && n > 0) {
      stop();
      this.active = (this.active + 1) % n;
      this.moved = true;
      this.draw();
    } else if (event.key === "ArrowUp" && n > 0) {
      stop();
      this.active = (this.active - 1 + n) % n;
      this.moved = true;
      this.draw();
    } else if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
      if (n === 0) return; // no match: Enter sends the text as a prompt
      stop();
      this.accept(this.shown[this.active], event.key === "Tab");
    } else if (event.key === "Escape") {
      stop();
      this.close();
    }
  }

  /** Enter or a click: run a command that takes no arguments; else (and on Tab) write `/name ` for them. */
  private accept(command: SlashCommand, complete: boolean): void {
    this.close();
    if (complete || command.hint !== "" && !CLIENT_COMMANDS.includes(command)) {
      this.input.value = `/${command.name} `;
      this.input.setSelectionRange(this.input.value.length, this.input.value.length);
      this.input.dispatchEvent(new Event("input"));
      return;
    }
    this.input.value = "";
    this.input.dispatchEvent(new Event("input"));
    this.run(command, "", []);
  }
}

/** What the prompt box offers the view's own built-ins. */
export interface Pickers {
  choose(kind: "agent" | "model", value: string): string | undefined;
}

/** Run a command picked or typed: the view's own built-ins here, the others in the session. */
export function runSlash(post: Post, pickers: Pickers, command: SlashCommand, args: string, attachments: Attachment[]): void {
  if (command.kind !== "client") {
    post({ type: "command", command: command.name, arguments: args, attachments });
    return;
  }
  switch (command.name) {
    case "new":
      return post({ type: "newSession" });
    case "model":
    case "agent": {
      const why = pickers.choose(command.name, args);
      if (why !== undefined) post({ type: "warn", message: why });
      return;
    }
    case "mode":
      return post({ type: "setMode", mode: args || undefined });
    case "effort":
      return post({ type: "setEffort", effort: args || undefined });
    case "export":
      return post({ type: "exportSession" });
  }
}
