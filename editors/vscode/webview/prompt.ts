// The prompt box: multi-line; Enter sends, Shift+Enter breaks the line; `@` picks files to attach; a
// button attaches the editor's selection; files dropped from VS Code attach as the @ pick does; images
// pasted, dropped or picked go as thumbnail chips; agent and model pickers. While a turn runs the box
// stays usable: Enter queues the prompt, Ctrl+Enter steers the running turn with it, "Stop and send"
// aborts the turn and sends it; Send becomes Stop.
import { type Attachment, IMAGE_TYPES, MAX_IMAGE_BYTES } from "../src/chat/messages.ts";
import { chipLabel, EditorChip } from "./context.ts";
import { button, h, type Post } from "./dom.ts";
import { DROPPED_URI_TYPES, droppedUris } from "./drop.ts";
import type { PromptMode } from "../shared/protocol.ts";
import type { ChatState } from "./state.ts";

const IDLE_PLACEHOLDER = "Ask agentls… (Enter to send, Shift+Enter for a new line, @ to attach files)";
const BUSY_PLACEHOLDER = "Queue a message… (Enter: run it after this turn, Ctrl+Enter: steer this turn with it)";

export interface Draft {
  text: string;
  attachments: Attachment[];
  agent?: string;
  model?: string;
}

export class PromptBox {
  readonly root = h("div", { id: "prompt" });
  private readonly chips = h("div", { class: "chips" });
  readonly input = h("textarea", { id: "prompt-input", rows: "3", placeholder: IDLE_PLACEHOLDER, "aria-label": "Prompt" });
  private readonly agent = h("select", { id: "agent-picker", title: "Agent", "aria-label": "Agent" });
  private readonly model = h("select", { id: "model-picker", title: "Model", "aria-label": "Model" });
  private readonly send: HTMLButtonElement;
  /** Shown while a turn runs: what a prompt sent now does. */
  readonly busyActions: HTMLElement;
  private attachments: Attachment[] = [];
  private busy = false;
  /** The editor note's chip (webview/context.ts). */
  readonly editorChip = new EditorChip(() => this.input.focus());

  constructor(
    private readonly post: Post,
    private readonly save: (draft: Draft) => void,
    draft: Draft | undefined,
  ) {
    this.send = button("Send", () => {
      if (!this.busy) return this.submit("queue");
      // After Stop the keys go back to the prompt (the button turns into Send under the pointer).
      this.post({ type: "abort" });
      this.input.focus();
    }, { id: "send", class: "primary" });
    const sendAs = (mode: PromptMode) => () => {
      this.submit(mode);
      this.input.focus();
    };
    this.busyActions = h(
      "div",
      { class: "busy-actions", hidden: true, role: "group", "aria-label": "Send while the agent works" },
      button("Queue", sendAs("queue"), { id: "send-queue", class: "secondary", title: "Run this message as its own turn after the current one (Enter)", "aria-keyshortcuts": "Enter" }),
      button("Steer", sendAs("steer"), { id: "send-steer", class: "secondary", title: "Send this message into the running turn: the agent reads it at its next step (Ctrl+Enter)", "aria-keyshortcuts": "Control+Enter" }),
      button("Stop and send", sendAs("interrupt"), { id: "send-interrupt", class: "secondary", title: "Stop the running turn and send this message now" }),
    );
    this.input.value = draft?.text ?? "";
    this.attachments = draft?.attachments ?? [];
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        // Always "queue" (idle, it simply starts a turn): a second Enter pressed before the view has
        // heard that the first turn started must wait its turn, not join the first (the default, steer).
        this.submit(this.busy && (event.ctrlKey || event.metaKey) ? "steer" : "queue");
      } else if (event.key === "@" && !event.ctrlKey && !event.metaKey) {
        // The `@` stays in the text and the picked file's name is written after it (`@calc.py`);
        // the file itself goes with the prompt as an attachment.
        this.mentionAt = this.input.selectionStart + 1;
        this.post({ type: "pickFiles", mention: true });
      }
    });
    this.input.addEventListener("input", () => this.persistSoon());
    // Images pasted into the prompt or dropped on it become attachments; pasted text stays text.
    this.input.addEventListener("paste", (event) => {
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.some(isImage)) {
        event.preventDefault();
        void this.attachImages(files);
      }
    });
    // Files dragged from VS Code (the Explorer, an editor tab) come as URIs, attached as the @ pick
    // attaches them; files dragged from the system come as File objects (images only).
    this.root.addEventListener("dragover", (event) => {
      const types = event.dataTransfer?.types ?? [];
      if (types.includes("Files") || DROPPED_URI_TYPES.some((t) => types.includes(t))) {
        event.preventDefault();
        event.dataTransfer!.dropEffect = "copy";
        this.root.classList.add("drop-target");
      }
    });
    this.root.addEventListener("dragleave", (event) => {
      if (!this.root.contains(event.relatedTarget as Node | null)) this.root.classList.remove("drop-target");
    });
    this.root.addEventListener("drop", (event) => {
      this.root.classList.remove("drop-target");
      const data = event.dataTransfer;
      if (!data) return;
      const uris = droppedUris(data);
      const files = [...data.files];
      if (uris.length > 0) {
        event.preventDefault();
        this.post({ type: "attachUris", uris });
      } else if (files.length > 0) {
        event.preventDefault();
        void this.attachImages(files);
      }
    });
    // A pick the user makes sticks (in the draft too); until then the pickers follow the server's
    // defaults, so a changed agentls.model setting reaches the next prompt.
    this.agent.addEventListener("change", () => {
      this.chosenAgent = this.agent.value || undefined;
      this.persist();
    });
    this.model.addEventListener("change", () => {
      this.chosenModel = this.model.value || undefined;
      this.persist();
      // The effort picker shows the levels of the model the next prompt runs on (docs/protocol.md).
      this.post({ type: "modelPicked", model: this.chosenModel });
    });
    this.root.append(
      // Beside the attachments' chips, not among them: the note is no attachment (webview/context.ts).
      this.editorChip.root,
      this.chips,
      this.input,
      h(
        "div",
        { class: "prompt-row" },
        this.agent,
        this.model,
        h(
          "span",
          { class: "prompt-actions" },
          button("@ Files", () => this.post({ type: "pickFiles" }), { class: "secondary", title: "Attach files (or type @ in the prompt)", "aria-label": "Attach files" }),
          button("Image", () => this.post({ type: "pickImages" }), { class: "secondary", title: "Attach images (or paste or drop them into the prompt)", "aria-label": "Attach image", id: "attach-image" }),
          button("+ Selection", () => this.post({ type: "attachSelection" }), { class: "secondary", title: "Attach the editor's selection", id: "attach-selection" }),
          this.send,
        ),
      ),
    );
    this.drawChips();
    this.chosenAgent = draft?.agent;
    this.chosenModel = draft?.model;
    // A pick kept in the draft (the view was closed and opened again) is the next prompt's model too.
    if (this.chosenModel !== undefined) this.post({ type: "modelPicked", model: this.chosenModel });
  }

  private chosenAgent: string | undefined;
  private chosenModel: string | undefined;
  private shownConfig: ChatState["config"] = null;

  private persist(): void {
    window.clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    this.save({ text: this.input.value, attachments: this.attachments, agent: this.chosenAgent, model: this.chosenModel });
  }

  /** Persist after typing pauses: the draft may hold images of megabytes, not to be copied per key. */
  private persistSoon(): void {
    window.clearTimeout(this.persistTimer);
    this.persistTimer = window.setTimeout(() => this.persist(), 300);
  }

  private persistTimer: number | undefined;

  /** Images from a paste or a drop, as attachments (other files are refused with the reason). */
  private async attachImages(files: File[]): Promise<void> {
    const attachments: Attachment[] = [];
    for (const [i, file] of files.entries()) {
      if (!isImage(file)) {
        this.post({ type: "warn", message: `${file.name || "that file"} is not an image (${Object.keys(IMAGE_TYPES).join(", ")}); attach files with @.` });
      } else if (file.size > MAX_IMAGE_BYTES) {
        this.post({ type: "warn", message: `${file.name || "the image"} is ${file.size.toLocaleString()} bytes; images can be at most ${MAX_IMAGE_BYTES.toLocaleString()}.` });
      } else {
        const ext = Object.keys(IMAGE_TYPES).find((k) => IMAGE_TYPES[k] === file.type) ?? "png";
        // A pasted screenshot is named "image.png" by the browser: number them so the chips differ.
        const pasted = !file.name || file.name === `image.${ext}`;
        const label = pasted ? `pasted-${++this.pastedCount}${files.length > 1 ? `-${i + 1}` : ""}.${ext}` : file.name;
        attachments.push({ label, image: { mime: file.type, data: await base64(file) } });
      }
    }
    if (attachments.length > 0) this.attach(attachments);
  }

  private pastedCount = 0;

  /** Put `text` in the prompt (a prompt given back, a question to ask): before what is typed, never over it. */
  setText(text: string): void {
    const typed = this.input.value;
    if (typed === text || typed.startsWith(`${text}\n`)) return;
    this.input.value = typed.trim() ? `${text}\n${typed}` : text;
    this.input.setSelectionRange(text.length, text.length);
    this.persist();
  }

  /** Text the box takes itself rather than send as a prompt (a `/command`): true when it did. */
  intercept: ((text: string, attachments: Attachment[]) => boolean) | undefined;

  private submit(mode: PromptMode): void {
    const text = this.input.value;
    if (!text.trim() && this.attachments.length === 0) return;
    if (this.intercept?.(text, this.attachments)) {
      this.input.value = "";
      this.attachments = [];
      this.drawChips();
      this.persist();
      return;
    }
    const prompt = { type: "prompt", text, attachments: this.attachments, agent: this.picked(this.agent, this.chosenAgent), model: this.picked(this.model, this.chosenModel), editorContext: this.editorChip.take() } as const;
    this.post({ ...prompt, mode });
    this.input.value = "";
    this.attachments = [];
    this.drawChips();
    this.persist();
  }

  /** A prompt that was not sent (or whose turn failed) back into the box, before anything typed since. */
  restore(text: string, attachments: Attachment[]): void {
    const typed = this.input.value;
    this.input.value = typed.trim() ? `${text}\n\n${typed}` : text;
    for (const a of attachments) if (!this.attachments.includes(a)) this.attachments.push(a);
    this.drawChips();
    this.persist();
    this.input.focus();
  }

  /** Where the name of the file picked for a typed `@` goes (just after that `@`). */
  private mentionAt: number | undefined;

  attach(attachments: Attachment[], mention = false): void {
    const at = this.mentionAt;
    this.mentionAt = undefined;
    if (mention && at !== undefined && this.input.value[at - 1] === "@" && attachments.length > 0) {
      // The chip is the mention: the typed `@` goes, so what the model gets holds each item once
      // (its chip's part), not also its name in the text.
      const before = this.input.value.slice(0, at - 1);
      const after = this.input.value.slice(at);
      const joined = before.endsWith(" ") && after.startsWith(" ") ? after.slice(1) : after;
      this.input.value = before + joined;
      this.input.setSelectionRange(before.length, before.length);
    }
    for (const a of attachments) {
      const same = (b: Attachment): boolean =>
        (a.uri !== undefined && b.uri === a.uri && JSON.stringify(b.range) === JSON.stringify(a.range)) ||
        (a.context !== undefined && b.context?.text === a.context.text);
      if (!this.attachments.some(same)) this.attachments.push(a);
    }
    this.drawChips();
    this.persist();
    this.input.focus();
  }

  private drawChips(): void {
    this.chips.replaceChildren(
      ...this.attachments.map((a, i) =>
        h("span", { class: a.image ? "chip image" : a.context ? "chip context" : "chip", title: a.label }, a.image ? h("img", { class: "thumb", src: `data:${a.image.mime};base64,${a.image.data}`, alt: "" }) : null, h("span", { class: "chip-label" }, `${chipLabel(a)} `), button("×", () => {
          this.attachments.splice(i, 1);
          this.drawChips();
          this.persist();
        }, { class: "chip-remove", title: "Remove", "aria-label": `Remove ${a.label}` })),
      ),
    );
  }

  draw(state: ChatState): void {
    this.busy = state.status.type !== "idle";
    this.send.textContent = this.busy ? "Stop" : "Send";
    this.send.classList.toggle("stop", this.busy);
    this.busyActions.hidden = !this.busy;
    this.input.placeholder = this.busy ? BUSY_PLACEHOLDER : IDLE_PLACEHOLDER;
    const config = state.config;
    if (config !== null && config !== this.shownConfig) {
      // A new config (first load, server restart after a settings change): the lists and defaults may differ.
      this.shownConfig = config;
      const agents = config.agents.filter((a) => a.mode !== "subagent");
      const agent = this.pickable(agents.map((a) => a.name), this.chosenAgent, config.defaultAgent);
      const model = this.pickable(config.models, this.chosenModel, config.defaultModel ?? "");
      this.agent.replaceChildren(...agents.map((a) => h("option", { value: a.name, title: a.description ?? undefined, selected: a.name === agent }, a.name)));
      // No default model (a first run): say so, rather than show the first model as if it were chosen.
      const none = config.defaultModel ? [] : [h("option", { value: "", selected: !config.models.includes(model) }, "no model set")];
      this.model.replaceChildren(...none, ...config.models.map((m) => h("option", { value: m, selected: m === model }, m)));
      this.model.title = `Model (default: ${config.defaultModel})`;
    }
  }

  /**
   * `/agent` or `/model`: pick `value` (as if picked in the list), or, with none, put the keys on the
   * picker. Returns why not when the list has no such value.
   */
  choose(kind: "agent" | "model", value: string): string | undefined {
    const select = kind === "agent" ? this.agent : this.model;
    if (!value) {
      select.focus();
      return undefined;
    }
    const options = [...select.options].map((o) => o.value).filter((v) => v !== "");
    if (!options.includes(value)) return `no ${kind} "${value}"; the ${kind}s are: ${options.join(", ")}`;
    select.value = value;
    select.dispatchEvent(new Event("change"));
    return undefined;
  }

  /** The user's pick while the server still offers it, else the server's default. */
  private pickable(values: string[], chosen: string | undefined, fallback: string): string {
    return chosen !== undefined && values.includes(chosen) ? chosen : fallback;
  }

  /** What the prompt names: only a pick the user made (the server applies its own default otherwise). */
  private picked(select: HTMLSelectElement, chosen: string | undefined): string | undefined {
    return chosen !== undefined && select.value === chosen ? chosen : undefined;
  }
}

function isImage(file: File): boolean {
  return Object.values(IMAGE_TYPES).includes(file.type);
}

/** A file's content as base64 (what the server takes as an image's `data`). */
function base64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error ?? new Error("could not read the image"));
    reader.readAsDataURL(file);
  });
}
