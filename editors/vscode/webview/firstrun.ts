// The first-run setup, shown while no model is configured: a provider and a model from what the
// server knows, the API key (kept by VS Code's SecretStorage, never in settings.json), and one
// sentence on what the agent may do without asking.
import type { FirstRunInfo, ProviderInfo } from "../src/chat/messages.ts";
import type { AgentConfig } from "../shared/protocol.ts";
import { button, h, type Post } from "./dom.ts";

export const PERMISSIONS_SENTENCE =
  "File edits and commands ask before they run; read-only commands (ls, cat, git status, grep…) run without asking. Change it in the agentls.permission setting.";

export class FirstRun {
  readonly root = h("section", { id: "first-run", hidden: true, "aria-labelledby": "first-run-title" });
  private readonly provider = h("select", { id: "setup-provider" });
  private readonly model = h("input", { id: "setup-model", type: "text", list: "setup-models", autocomplete: "off", spellcheck: "false", placeholder: "type or pick a model" });
  private readonly models = h("datalist", { id: "setup-models" });
  private readonly key = h("input", { id: "setup-key", type: "password", autocomplete: "off", spellcheck: "false" });
  private readonly keyHint = h("p", { class: "setup-hint", id: "setup-key-hint" });
  private readonly error = h("p", { class: "setup-error", role: "alert", hidden: true });
  private providers: ProviderInfo[] = [];

  constructor(private readonly post: Post) {
    this.provider.addEventListener("change", () => this.drawProvider());
    const save = button("Save and start", () => this.save(), { id: "setup-save", class: "primary" });
    this.key.setAttribute("aria-describedby", "setup-key-hint");
    for (const input of [this.model, this.key]) {
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          this.save();
        }
      });
    }
    this.root.append(
      h("h2", { id: "first-run-title" }, "Set up agentls"),
      h("p", {}, "No model is set yet. Pick a provider and one of its models, and enter your API key."),
      h("label", { for: "setup-provider" }, "Provider"),
      this.provider,
      h("label", { for: "setup-model" }, "Model"),
      this.model,
      this.models,
      h("label", { for: "setup-key" }, "API key"),
      this.key,
      this.keyHint,
      this.error,
      h("div", { class: "setup-row" }, save, button("Open settings", () => this.post({ type: "openSetting", setting: "agentls.model" }), { class: "secondary" })),
      h("p", { class: "setup-permissions", id: "setup-permissions" }, PERMISSIONS_SENTENCE),
    );
  }

  setInfo(info: FirstRunInfo): void {
    const chosen = this.provider.value;
    this.providers = info.providers;
    this.provider.replaceChildren(...info.providers.map((p) => h("option", { value: p.id, selected: p.id === chosen }, p.id)));
    this.error.hidden = info.error === undefined;
    this.error.textContent = info.error ?? "";
    this.drawProvider();
  }

  /** Shown while the server has no default model (and hidden as soon as it has one). */
  draw(config: AgentConfig | null): void {
    this.root.hidden = config === null || Boolean(config.defaultModel);
  }

  private drawProvider(): void {
    const p = this.providers.find((x) => x.id === this.provider.value);
    this.models.replaceChildren(...(p?.models ?? []).map((m) => h("option", { value: m })));
    if (p === undefined) this.keyHint.textContent = "";
    else if (p.hasKey) this.keyHint.textContent = `A key for ${p.id} is already set${p.keyEnv ? ` (${p.keyEnv} or the config)` : ""}: leave this empty to use it.`;
    else this.keyHint.textContent = `Kept in VS Code's secret storage, not in settings.json${p.keyEnv ? ` (or set ${p.keyEnv} before starting VS Code)` : ""}.`;
  }

  private save(): void {
    const provider = this.provider.value;
    const model = this.model.value.trim();
    const p = this.providers.find((x) => x.id === provider);
    const problem = !provider ? "Pick a provider." : !model ? "Type or pick a model." : !this.key.value.trim() && p?.keyEnv && !p.hasKey ? `Enter the API key for ${provider}.` : "";
    this.error.hidden = problem === "";
    this.error.textContent = problem;
    if (problem) return;
    this.post({ type: "setup", provider, model, apiKey: this.key.value.trim() || undefined });
    this.key.value = "";
  }
}
