// The session's background work above the prompt box: a pill that says what runs ("2 background
// agents · 1 shell running") and opens into a list — each sub-agent with its step, tool, tokens and
// time, and buttons to open its transcript, send it a message or stop it; each background shell with
// its command, age and last lines, and a stop button. Hidden while the session has none.
import type { BackgroundAgent, BackgroundShell } from "../shared/protocol.ts";
import { type Background, agentState, pillText, running, shellState } from "./backgroundState.ts";
import { button, h, type Post } from "./dom.ts";

export class BackgroundList {
  readonly root = h("details", { id: "background", hidden: true });
  private readonly pill = h("summary", { class: "background-pill" });
  private readonly list = h("ul", { class: "background-list", "aria-label": "Background work" });
  private shown: Background = { agents: [], shells: [] };
  private ticker: number | undefined;

  constructor(private readonly post: Post) {
    this.root.append(this.pill, this.list);
  }

  draw(bg: Background): void {
    this.shown = bg;
    const empty = bg.agents.length === 0 && bg.shells.length === 0;
    this.root.hidden = empty;
    const now = running(bg);
    this.root.classList.toggle("running", now.agents + now.shells > 0);
    this.pill.textContent = empty ? "" : pillText(bg);
    this.list.replaceChildren(...bg.agents.map((a) => this.agentRow(a)), ...bg.shells.map((s) => this.shellRow(s)));
    // Elapsed times move while something runs: their text is updated in place once a second (the
    // rows and their buttons stay, so a click is never lost to a redraw).
    if (now.agents + now.shells > 0) this.ticker ??= window.setInterval(() => this.tick(), 1000);
    else if (this.ticker !== undefined) {
      window.clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private tick(): void {
    const at = Date.now();
    const states = this.list.querySelectorAll<HTMLElement>(".background-state");
    const texts = [...this.shown.agents.map((a) => agentState(a, at)), ...this.shown.shells.map((s) => shellState(s, at))];
    states.forEach((el, i) => {
      if (texts[i] !== undefined && el.textContent !== texts[i]) el.textContent = texts[i];
    });
  }

  private agentRow(a: BackgroundAgent): HTMLLIElement {
    const live = a.status === "running";
    return h(
      "li",
      { class: `background-agent status-${a.status}`, "data-session": a.sessionID },
      h("span", { class: "background-name" }, `@${a.agent}`),
      h("span", { class: "background-title", title: a.description }, a.description),
      h("span", { class: "background-state" }, agentState(a, Date.now())),
      h(
        "span",
        { class: "background-actions" },
        button("Open", () => this.post({ type: "switchSession", sessionID: a.sessionID }), { class: "link background-open", title: "Show the sub-agent's transcript" }),
        live && button("Message", () => this.post({ type: "backgroundMessage", sessionID: a.sessionID, description: a.description }), { class: "secondary background-message", title: "Send the sub-agent a message its next step sees" }),
        live && button("Stop", () => this.post({ type: "backgroundStop", sessionID: a.sessionID }), { class: "secondary background-stop", title: "Stop the sub-agent and its commands" }),
      ),
    );
  }

  private shellRow(s: BackgroundShell): HTMLLIElement {
    const lastLine = s.tail.split("\n").filter((l) => l.trim() !== "").pop() ?? "";
    return h(
      "li",
      { class: `background-shell status-${s.status}`, "data-shell": s.id },
      h("span", { class: "background-name" }, s.id),
      h("code", { class: "background-title", title: s.command }, s.command),
      h("span", { class: "background-state" }, shellState(s, Date.now())),
      h(
        "span",
        { class: "background-actions" },
        s.status === "running" && button("Stop", () => this.post({ type: "shellStop", shellID: s.id }), { class: "secondary shell-stop", title: "Kill the command and its children" }),
      ),
      lastLine && h("pre", { class: "background-tail", title: s.tail }, lastLine),
    );
  }
}
