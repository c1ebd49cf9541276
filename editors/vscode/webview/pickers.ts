// The chat header's mode and effort pickers: the session's mode (Ask / Auto-accept / Plan) and how
// hard its model thinks (only the levels the model supports; hidden when it has none). Picking posts
// the change; the pickers show what the server says (`session.mode` / `session.effort` events), so a
// change made elsewhere (the palette, /mode, another client) shows here too.
import type { EffortState, ModeState } from "./state.ts";
import { h, type Post } from "./dom.ts";

export class Pickers {
  private readonly mode = h("select", { id: "mode-picker", title: "Mode: what the agent may do to your files without asking", "aria-label": "Mode" });
  private readonly effort = h("select", { id: "effort-picker", title: "Effort: how hard the model thinks", "aria-label": "Effort" });
  private readonly modeBox = h("label", { class: "picker", hidden: true }, h("span", { class: "picker-label" }, "Mode"), this.mode);
  private readonly effortBox = h("label", { class: "picker", hidden: true }, h("span", { class: "picker-label" }, "Effort"), this.effort);
  readonly root = h("div", { id: "controls", hidden: true }, this.modeBox, this.effortBox);
  private shownMode = "";
  private shownEffort = "";

  constructor(post: Post) {
    this.mode.addEventListener("change", () => post({ type: "setMode", mode: this.mode.value }));
    this.effort.addEventListener("change", () => post({ type: "setEffort", effort: this.effort.value }));
  }

  draw(mode: ModeState | null, effort: EffortState | null): void {
    const modeKey = mode === null ? "" : JSON.stringify(mode);
    if (modeKey !== this.shownMode) {
      this.shownMode = modeKey;
      this.modeBox.hidden = mode === null || mode.modes.length === 0;
      this.mode.replaceChildren(...(mode?.modes ?? []).map((m) => h("option", { value: m.id, title: m.description, selected: m.id === mode?.mode }, m.name)));
      if (mode !== null) this.mode.value = mode.mode;
    }
    const effortKey = effort === null ? "" : JSON.stringify(effort);
    if (effortKey !== this.shownEffort) {
      this.shownEffort = effortKey;
      this.effortBox.hidden = effort === null || effort.levels.length === 0;
      // "default" until one is chosen: the model's configured options apply.
      const levels = ["default", ...(effort?.levels ?? []).filter((l) => l !== "default")];
      this.effort.replaceChildren(...levels.map((l) => h("option", { value: l, selected: l === effort?.effort, title: l === "default" ? "The model's configured options" : undefined }, l === "default" ? "Default" : l)));
      if (effort !== null) this.effort.value = effort.effort;
    }
    this.root.hidden = this.modeBox.hidden && this.effortBox.hidden;
  }
}
