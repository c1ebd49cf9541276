// Everything around the transcript: session bar and list, status line, todos, changes, dialogs.
import type { PermissionRequest, PlanReviewRequest, QuestionRequest } from "../shared/protocol.ts";
import { button, h, type Post } from "./dom.ts";
import { usage } from "./derive.ts";
import type { ChatState } from "./state.ts";
import { SessionSearch } from "./search.ts";
import { worktreeLabel, worktreeOf, worktreeTooltip } from "../shared/worktree.ts";
import { alsoOpenIn } from "../shared/watchers.ts";
import type { SessionWorktree } from "../shared/protocol.ts";

/**
 * A session's title with, for a worktree session, its label on a line of its own under it: a narrow
 * side bar then cuts neither (the checkout's sessions keep the title alone).
 */
function withWorktree(title: HTMLElement, worktree: SessionWorktree | undefined, branch = false): HTMLElement {
  return worktree === undefined ? title : h("div", { class: "titled-worktree" }, title, worktreeTag(worktree, branch));
}

/** The worktree label of a session working in one: its name (`branch`: and its branch beside it). */
function worktreeTag(worktree: SessionWorktree, branch = false): HTMLElement {
  return h(
    "div",
    { class: "worktree-line" },
    h("span", { class: "worktree-tag", title: worktreeTooltip(worktree), "data-worktree": worktree.name, "data-path": worktree.path }, worktreeLabel(worktree)),
    branch ? h("span", { class: "worktree-branch", title: worktree.path }, `on ${worktree.branch}`) : null,
  );
}

function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

/** The first clause of an authentication error ("no API key for anthropic/claude-…"), capitalised. */
export function authHeadline(message: string): string {
  const refused = /^(\S+) returned HTTP (\d+)/.exec(message);
  if (refused) return `${refused[1]} refused the API key (HTTP ${refused[2]})`;
  const head = message.split(/[:\n]/)[0].trim().replace(/\.$/, "");
  const short = head.length > 100 ? `${head.slice(0, 99)}…` : head;
  return short ? short[0].toUpperCase() + short.slice(1) : "The model's provider refused the API key";
}

export class Chrome {
  readonly bar = h("div", { id: "bar" });
  readonly sessionList = h("div", { id: "sessions", hidden: true });
  /** The menu's search box stays (it keeps the focus and the typed text); the rows below it change. */
  readonly search: SessionSearch;
  private readonly sessionRows = h("div", { class: "session-rows" });
  /** One line of fixed height, always there: the turn's state and usage, the buttons a prompt sent
   * while a turn runs uses (placed in it by main.ts), and the changes waiting for review. Nothing in
   * it appears or goes away by changing its height, so the transcript never jumps during a turn. */
  readonly status = h("div", { id: "status", role: "group", "aria-label": "Status" });
  private readonly statusText = h("span", { id: "status-text", role: "status" });
  private readonly review = button("", () => this.post({ type: "reviewChanges" }), {
    id: "review-changes",
    class: "link",
    hidden: true,
    title: "Go to the first agent change waiting for Keep or Undo in the editor (the Changes list is in the panel: agentls Review)",
  });
  readonly notice = h("div", { id: "notice", hidden: true });
  readonly panels = h("div", { id: "panels" });
  private listOpen = false;

  /** Where the keys were before a dialog took them, to give them back once it is answered. */
  private focusBeforeDialog: HTMLElement | null = null;

  constructor(
    private readonly post: Post,
    private readonly focusPrompt: () => void,
    redraw: () => void = () => undefined,
  ) {
    this.search = new SessionSearch(post, redraw);
    this.sessionList.append(this.search.root, this.sessionRows);
    this.status.append(this.statusText, this.review);
  }

  /** Put `el` (the prompt's busy actions) in the status line, before the review button. */
  holdInStatus(el: HTMLElement): void {
    this.status.insertBefore(el, this.review);
  }

  toggleList(open?: boolean): void {
    this.listOpen = open ?? !this.listOpen;
    this.sessionList.hidden = !this.listOpen;
    this.bar.querySelector(".session-title")?.setAttribute("aria-expanded", String(this.listOpen));
  }

  drawBar(state: ChatState): void {
    const title = state.session?.title ?? "New session";
    this.bar.replaceChildren(
      withWorktree(button(`≡ ${title}`, () => this.toggleList(), {
        class: "session-title",
        title: `${title} — rename, fork, delete, or switch sessions`,
        // Read as the session's name and what the button opens, not as "identical to".
        "aria-label": `Session: ${title}. Sessions menu`,
        "aria-expanded": String(this.listOpen),
        "aria-controls": "sessions",
      }), worktreeOf(state.session ?? undefined), true),
      button("New", () => this.post({ type: "newSession" }), { class: "icon-button", title: "New session", "aria-label": "New session" }),
      button("+ Worktree", () => this.post({ type: "newWorktreeSession" }), {
        class: "icon-button new-worktree",
        title: "New session in a worktree: its own git branch and folder, your checkout untouched",
        "aria-label": "New session in a worktree",
      }),
    );
  }

  /** The session menu: what can be done to the current session, then the list to switch to another. */
  drawSessions(state: ChatState): void {
    const id = state.session?.id;
    const actions = id
      ? h(
          "div",
          { class: "session-actions" },
          button("Rename", () => this.post({ type: "renameSession", sessionID: id }), { class: "link", title: "Rename this session", "aria-label": "Rename session" }),
          button("Fork", () => this.post({ type: "forkSession", sessionID: id }), { class: "link", title: "A copy of this session to go on in another direction", "aria-label": "Fork session" }),
          button("Delete", () => this.post({ type: "deleteSession", sessionID: id }), { class: "link danger", title: "Delete this session", "aria-label": "Delete session" }),
          button("Export", () => this.post({ type: "exportSession", sessionID: id }), { class: "link", title: "This session as Markdown, in a new editor", "aria-label": "Export session as Markdown" }),
          button("Open in tab", () => this.post({ type: "openInTab", sessionID: id }), { class: "link", title: "This session in an editor tab, beside the others", "aria-label": "Open session in an editor tab" }),
        )
      : null;
    if (this.search.active) {
      const open = (sessionID: string): void => {
        this.toggleList(false);
        this.post({ type: "switchSession", sessionID });
      };
      this.sessionRows.replaceChildren(...(actions ? [actions] : []), ...this.search.rows(open));
      return;
    }
    const rows = state.sessions.map((s) =>
      h(
        "div",
        { class: `session-row${s.id === state.session?.id ? " current" : ""}`, "data-session": s.id },
        withWorktree(button(s.title, () => {
          this.toggleList(false);
          this.post({ type: "switchSession", sessionID: s.id });
        }, { class: "link session-link" }), worktreeOf(s)),
        h("span", { class: "when" }, ago(s.time.updated)),
        // Any session, not only the current one, can be renamed or deleted from the list.
        button("Rename", () => this.post({ type: "renameSession", sessionID: s.id }), { class: "link row-rename", title: `Rename "${s.title}"`, "aria-label": `Rename session ${s.title}` }),
        button("Delete", () => this.post({ type: "deleteSession", sessionID: s.id }), { class: "link danger row-delete", title: `Delete "${s.title}"`, "aria-label": `Delete session ${s.title}` }),
      ),
    );
    const last = state.sessions[state.sessions.length - 1];
    const more = state.moreSessions && last ? button("More…", () => this.post({ type: "moreSessions", before: last.id }), { class: "link" }) : null;
    this.sessionRows.replaceChildren(...(actions ? [actions] : []), ...(rows.length ? rows : [h("div", { class: "empty" }, "No sessions yet.")]), ...(more ? [more] : []));
  }

  drawStatus(state: ChatState): void {
    const u = usage(state);
    const bits: string[] = [];
    const st = state.status;
    if (st.type === "busy") bits.push("Working…");
    else if (st.type === "retry") {
      const wait = st.next ? Math.max(0, Math.ceil((st.next - Date.now()) / 1000)) : 0;
      bits.push(`Retrying in ${wait}s (attempt ${st.attempt ?? 1})${st.message ? `: ${st.message}` : ""}`);
    } else bits.push("Idle");
    // Next to the status: a narrow side bar cuts the tokens and cost first.
    if (state.watchers.length > 0) bits.push(alsoOpenIn(state.watchers));
    if (u.tokens > 0) bits.push(`${formatTokens(u.tokens)} tokens`);
    if (u.percent !== undefined) bits.push(`${u.percent}% of context`);
    if (u.cost > 0) bits.push(`$${u.cost.toFixed(4)}`);
    this.status.className = `status-${st.type}`;
    this.statusText.textContent = bits.join(" · ");
    const pending = state.reviewPending;
    this.review.hidden = pending === 0;
    this.review.textContent = `Review ${pending} change${pending === 1 ? "" : "s"}`;
    this.review.setAttribute("aria-label", `${pending} agent change${pending === 1 ? "" : "s"} to review: go to the first`);
    const phase = state.server.phase;
    const phaseText =
      phase === "restarting" ? "The agentls server stopped; restarting it…" : phase === "missing" ? (state.server.message ? "" : "The agentls server was not found (see the notification).") : phase === "stopped" ? "The agentls server is not running." : "";
    if (state.errorKind === "auth" && state.error !== null) {
      // One short line and the way out, not the provider's paragraph (its whole text is the tooltip),
      // and not again for the small model's titles: the same missing key.
      const warnings = state.warnings.filter((w) => !/api key/i.test(w)).map((w) => `Warning: ${w}`);
      // The host's "the turn failed…" repeats the error: only what it adds (the prompt is back).
      const back = state.server.message?.includes("back in the box") === true;
      const headline = authHeadline(state.error);
      const line = back ? `The turn failed: ${headline[0].toLowerCase()}${headline.slice(1)}; your prompt is back in the box. ` : `${headline}. `;
      const said = [phaseText, back ? "" : state.server.message].filter(Boolean).join(" ");
      const text = `${said ? `${said} ` : ""}${line}`;
      this.notice.hidden = false;
      // Drawn again only when it says something else: a header redraw (a status or effort event)
      // must not replace the button under a click that has begun.
      const shown = JSON.stringify([text, state.error, warnings]);
      if (shown === this.noticeShown) return;
      this.noticeShown = shown;
      this.notice.replaceChildren(
        h("span", { class: "notice-text", title: state.error }, text),
        button("Set API Key", () => this.post({ type: "setApiKey" }), { id: "set-api-key", class: "link", title: "Enter or replace a provider's API key (agentls: Set API Key…)" }),
        ...(warnings.length > 0 ? [h("span", {}, ` ${warnings.join(" ")}`)] : []),
      );
      return;
    }
    this.noticeShown = "";
    const warnings = state.warnings.map((w) => `Warning: ${w}`);
    const text = [phaseText, state.server.message, state.error, ...warnings].filter(Boolean).join(" ");
    this.notice.hidden = text === "";
    this.notice.textContent = text;
  }

  /** What the notice with its Set API Key button last showed ("" when it shows plain text). */
  private noticeShown = "";

  drawPanels(state: ChatState): void {
    const panels: HTMLElement[] = [];
    if (state.todos.length > 0) {
      const done = state.todos.filter((t) => t.status === "completed").length;
      panels.push(
        h(
          "details",
          { class: "todos", open: true },
          h("summary", {}, `Todos ${done}/${state.todos.length}`),
          h("ul", {}, ...state.todos.map((t) => h("li", { class: `todo ${t.status}` }, h("input", { type: "checkbox", disabled: true, checked: t.status === "completed" }), ` ${t.content}`))),
        ),
      );
    }
    if (state.changes.length > 0) {
      panels.push(
        h(
          "details",
          { class: "changes" },
          h("summary", {}, `Changes (${state.changes.length} ${state.changes.length === 1 ? "file" : "files"})`),
          ...state.changes.map((c) => h("div", { class: "change-row" }, button(c.file, () => this.post({ type: "openChange", file: c.file }), { class: "link" }), h("span", { class: "diffstat" }, `+${c.additions} −${c.deletions}`))),
        ),
      );
    }
    if (state.session?.revert) {
      panels.push(h("div", { class: "reverted-banner" }, "Messages after the revert point are undone. ", button("Unrevert", () => this.post({ type: "unrevert" }), { class: "link" })));
    }
    this.panels.replaceChildren(...panels);
  }

  drawDialogs(container: HTMLElement, state: ChatState): void {
    // Dialogs still open keep their element, so a half-answered question survives another dialog arriving.
    const shown = new Map<string, HTMLElement>();
    for (const el of container.querySelectorAll<HTMLElement>(":scope > .dialog")) shown.set(el.dataset.request ?? "", el);
    const hadFocus = container.contains(document.activeElement);
    const fresh: HTMLElement[] = [];
    const fetch = (id: string, make: () => HTMLElement): HTMLElement => {
      const el = shown.get(id);
      if (el !== undefined) return el;
      const made = make();
      fresh.push(made);
      return made;
    };
    const wanted = [
      ...state.permissions.map((r) => fetch(r.id, () => this.permission(r))),
      ...state.questions.map((q) => fetch(q.id, () => this.question(q))),
      ...state.plans.map((p) => fetch(p.id, () => this.plan(p))),
    ];
    // Only what changed moves: a dialog taken out and put back would lose the focus inside it.
    for (const el of [...container.children]) if (!wanted.includes(el as HTMLElement)) el.remove();
    wanted.forEach((el, i) => {
      if (container.children[i] !== el) container.insertBefore(el, container.children[i] ?? null);
    });
    // A new dialog takes the focus — the dialog itself, not one of its buttons, so keys typed a moment
    // before it appeared (Enter in the prompt) can never answer it; Tab reaches its choices.
    // One already being answered keeps it (a second dialog waits its turn below it). Only while the
    // chat has the keyboard, though: taking it from the palette or an editor would close the palette
    // and send the rest of the user's typing — Escape, which stops the turn — to the dialog.
    const first = fresh[0];
    if (first !== undefined && !hadFocus && document.hasFocus()) {
      this.focusBeforeDialog = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
      first.focus();
      return;
    }
    // The dialog that had the focus was answered: the next one takes it, else it goes back.
    if (hadFocus && !container.contains(document.activeElement)) {
      const next = container.querySelector<HTMLElement>(":scope > .dialog");
      if (next !== null) next.focus();
      else {
        const back = this.focusBeforeDialog;
        this.focusBeforeDialog = null;
        if (back !== null && back.isConnected) back.focus();
        else this.focusPrompt();
      }
    }
  }

  private permission(request: PermissionRequest): HTMLElement {
    const reply = (r: "once" | "always" | "reject", feedback = false): void => this.post({ type: "permission", requestID: request.id, reply: r, feedback });
    const hasDiff = typeof request.metadata.filepath === "string" && (typeof request.metadata.after === "string" || typeof request.metadata.diff === "string");
    const what = request.title ?? request.patterns.join(", ");
    return h(
      "div",
      { class: "dialog permission", "data-request": request.id, role: "alertdialog", tabindex: "-1", "aria-labelledby": `${request.id}-title`, "aria-describedby": `${request.id}-body` },
      h("div", { class: "dialog-title", id: `${request.id}-title` }, `Allow ${request.permission}?`),
      h("div", { class: "dialog-body", id: `${request.id}-body` }, what),
      request.task ? h("div", { class: "dialog-task" }, `Asked by the task “${request.task.description}” (@${request.task.subagent})`) : null,
      h(
        "div",
        { class: "dialog-actions" },
        hasDiff ? button("Show diff", () => this.post({ type: "showPermissionDiff", requestID: request.id }), { class: "secondary", "data-action": "diff" }) : null,
        button("Allow once", () => reply("once"), { "data-action": "once" }),
        button("Always", () => reply("always"), { class: "secondary", "data-action": "always", title: request.always.length ? `Always allow ${request.always.join(", ")}` : undefined }),
        button("Reject", () => reply("reject"), { class: "secondary", "data-action": "reject" }),
        button("Reject with feedback…", () => reply("reject", true), { class: "secondary", "data-action": "feedback" }),
      ),
    );
  }

  /** A plan waiting for review: read and commented on in its editor; answered here or there. */
  private plan(request: PlanReviewRequest): HTMLElement {
    const act = (action: "open" | "approve" | "revise" | "reject"): void => this.post({ type: "plan", requestID: request.id, action });
    const heading = request.text.split("\n").find((line) => line.trim() !== "")?.replace(/^#+\s*/, "") ?? request.path;
    return h(
      "div",
      { class: "dialog plan-dialog", "data-request": request.id, role: "dialog", tabindex: "-1", "aria-label": `The plan ${request.path} waits for your review` },
      h("div", { class: "dialog-title" }, "The plan waits for your review"),
      h("div", { class: "dialog-body" }, heading, " — ", button(request.path, () => act("open"), { class: "link", "data-action": "open" })),
      h(
        "div",
        { class: "dialog-actions" },
        button("Approve", () => act("approve"), { "data-action": "approve", title: "The build agent carries the plan out" }),
        button("Revise…", () => act("revise"), { class: "secondary", "data-action": "revise", title: "Your comments on the plan's lines (in its editor) and a message go back to the plan agent" }),
        button("Reject…", () => act("reject"), { class: "secondary", "data-action": "reject" }),
      ),
    );
  }

  private question(request: QuestionRequest): HTMLElement {
    const chosen = request.questions.map(() => new Set<string>());
    // Like the prompt box: Enter answers the whole dialog, Shift+Enter breaks the line.
    const submit = (): void => this.post({ type: "question", requestID: request.id, answers: answers() });
    // A question whose options are the only answers (custom false: a yes/no, a fixed list) has no field.
    const typed = request.questions.map((q) => {
      if (q.custom === false) return null;
      const field = h("textarea", { class: "other", rows: "1", placeholder: "Or type your own answer", title: "Enter answers, Shift+Enter breaks the line", "aria-label": "Your own answer" });
      field.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          submit();
        }
      });
      // Grow with the text (a few lines), as the prompt box does.
      field.addEventListener("input", () => {
        field.style.height = "auto";
        field.style.height = `${field.scrollHeight}px`;
      });
      return field;
    });
    const blocks = request.questions.map((q, i) =>
      h(
        "fieldset",
        { class: "question" },
        h("legend", {}, q.header ? h("span", { class: "header" }, `${q.header}: `) : null, q.question, q.multiple ? h("span", { class: "desc" }, " (choose any)") : null),
        ...q.options.map((o) => {
          const input = h("input", { type: q.multiple ? "checkbox" : "radio", name: `${request.id}-${i}`, value: o.label });
          input.addEventListener("change", () => {
            if (!q.multiple) chosen[i].clear();
            if (input.checked) chosen[i].add(o.label);
            else chosen[i].delete(o.label);
          });
          return h("label", { class: "option" }, input, ` ${o.label}`, o.description ? h("span", { class: "desc" }, ` — ${o.description}`) : null);
        }),
        typed[i],
      ),
    );
    // A typed answer goes with the ticked ones; for a single-choice question it replaces the pick.
    const answers = (): string[][] =>
      request.questions.map((q, i) => {
        const own = typed[i]?.value.trim() ?? "";
        if (!own) return [...chosen[i]];
        return q.multiple ? [...chosen[i], own] : [own];
      });
    return h(
      "div",
      { class: "dialog question-dialog", "data-request": request.id, role: "dialog", tabindex: "-1", "aria-label": request.questions.length === 1 ? "A question from the agent" : `${request.questions.length} questions from the agent` },
      ...blocks,
      h(
        "div",
        { class: "dialog-actions" },
        button("Answer", submit, { "data-action": "answer" }),
        button("Dismiss", () => this.post({ type: "questionReject", requestID: request.id }), { class: "secondary", "data-action": "dismiss" }),
      ),
    );
  }
}
