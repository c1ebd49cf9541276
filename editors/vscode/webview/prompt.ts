// The prompt box: multi-line; Enter sends, Shift+Enter breaks the line; `@` picks files to attach; a
// button attaches the editor's selection; agent and model pickers; Send becomes Stop while busy.
import type { Attachment } from "../src/chat/messages.ts";
import { button, h, type Post } from "./dom.ts";
import type { ChatState } from "./state.ts";

export interface Draft {
  text: string;
  attachments: Attachment[];
  agent?: string;
  model?: string;
}

export class PromptBox {
  readonly root = h("div", { id: "prompt" });
  private readonly chips = h("div", { class: "chips" });
  readonly input = h("textarea", { id: "prompt-input", rows: "3", placeholder: "Ask agentls… (Enter to send, Shift+Enter for a new line, @ to attach files)", "aria-label": "Prompt" });
  private readonly agent = h("select", { id: "agent-picker", title: "Agent", "aria-label": "Agent" });
  private readonly model = h("select", { id: "model-picker", title: "Model", "aria-label": "Model" });
  private readonly send: HTMLButtonElement;
  private attachments: Attachment[] = [];
  private busy = false;

  constructor(
    private readonly post: Post,
    private readonly save: (draft: Draft) => void,
    draft: Draft | undefined,
  ) {
    this.send = button("Send", () => (this.busy ? this.post({ type: "abort" }) : this.submit()), { id: "send", class: "primary" });
    this.input.value = draft?.text ?? "";
    this.attachments = draft?.attachments ?? [];
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        if (!this.busy) this.submit();
      } else if (event.key === "@" && !event.ctrlKey && !event.metaKey) {
        // The `@` stays in the text; the picked files become attachments.
        this.post({ type: "pickFiles" });
      }
    });
    this.input.addEventListener("input", () => this.persist());
    this.agent.addEventListener("change", () => this.persist());
    this.model.addEventListener("change", () => this.persist());
    this.root.append(
      this.chips,
      this.input,
      h(
        "div",
        { class: "prompt-row" },
        this.agent,
        this.model,
        button("@", () => this.post({ type: "pickFiles" }), { class: "icon-button", title: "Attach files", "aria-label": "Attach files" }),
        button("+ Selection", () => this.post({ type: "attachSelection" }), { class: "secondary", title: "Attach the editor's selection", id: "attach-selection" }),
        this.send,
      ),
    );
    this.drawChips();
    this.pendingAgent = draft?.agent;
    this.pendingModel = draft?.model;
  }

  private pendingAgent: string | undefined;
  private pendingModel: string | undefined;

  private persist(): void {
    this.save({ text: this.input.value, attachments: this.attachments, agent: this.agent.value || undefined, model: this.model.value || undefined });
  }

  private submit(): void {
    const text = this.input.value;
    if (!text.trim() && this.attachments.length === 0) return;
    this.post({ type: "prompt", text, attachments: this.attachments, agent: this.agent.value || undefined, model: this.model.value || undefined });
    this.input.value = "";
    this.attachments = [];
    this.drawChips();
    this.persist();
  }

  attach(attachments: Attachment[]): void {
    for (const a of attachments) {
      if (!this.attachments.some((b) => b.uri === a.uri && JSON.stringify(b.range) === JSON.stringify(a.range))) this.attachments.push(a);
    }
    this.drawChips();
    this.persist();
    this.input.focus();
  }

  private drawChips(): void {
    this.chips.replaceChildren(
      ...this.attachments.map((a, i) =>
        h("span", { class: "chip" }, `${a.label} `, button("×", () => {
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
    const config = state.config;
    if (config !== null && this.agent.options.length === 0) {
      const agents = config.agents.filter((a) => a.mode !== "subagent");
      this.agent.replaceChildren(...agents.map((a) => h("option", { value: a.name, title: a.description, selected: a.name === (this.pendingAgent ?? config.defaultAgent) }, a.name)));
      this.model.replaceChildren(...config.models.map((m) => h("option", { value: m, selected: m === (this.pendingModel ?? config.defaultModel) }, m)));
    }
  }
}
