// The search box of the session menu: what the user types goes to agent/session/search (through the
// host, debounced); while a query is there the menu lists its hits, each with the words around the
// match (matched words marked), instead of the recent sessions.
import type { FromWebview } from "../src/chat/messages.ts";
import type { SearchHit } from "../shared/protocol.ts";
import { button, h } from "./dom.ts";

const DEBOUNCE_MS = 200;

/** `snippet` as text nodes with the `highlights` ([start, end) UTF-16 offsets) in <mark>. */
export function marked(snippet: string, highlights: [number, number][]): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  for (const [start, end] of [...highlights].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > snippet.length) continue;
    if (start > at) out.push(snippet.slice(at, start));
    out.push(h("mark", {}, snippet.slice(start, end)));
    at = end;
  }
  if (at < snippet.length) out.push(snippet.slice(at));
  return out;
}

export class SessionSearch {
  readonly input = h("input", { id: "session-search", type: "search", placeholder: "Search sessions", "aria-label": "Search sessions", autocomplete: "off" });
  readonly root = h("div", { class: "session-search" }, this.input);
  private timer: number | undefined;
  private hits: SearchHit[] = [];
  private error: string | undefined;
  private answered = "";

  constructor(
    private readonly post: (message: FromWebview) => void,
    private readonly changed: () => void,
  ) {
    this.input.addEventListener("input", () => {
      window.clearTimeout(this.timer);
      this.timer = window.setTimeout(() => this.send(), DEBOUNCE_MS);
      if (this.query === "") this.changed();
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        window.clearTimeout(this.timer);
        this.send();
      }
    });
  }

  get query(): string {
    return this.input.value.trim();
  }

  /** Whether the menu shows search hits (a query was typed). */
  get active(): boolean {
    return this.query !== "";
  }

  private send(): void {
    if (this.query !== "") this.post({ type: "searchSessions", query: this.query });
  }

  /** The host's answer for `query` (an answer for an older query is dropped). */
  results(query: string, hits: SearchHit[], error?: string): void {
    if (query !== this.query) return;
    this.answered = query;
    this.hits = hits;
    this.error = error;
    this.changed();
  }

  /** The rows of the hits, each switching to its session (`open`). */
  rows(open: (sessionID: string) => void): HTMLElement[] {
    if (this.answered !== this.query) return [h("div", { class: "empty" }, "Searching…")];
    if (this.error !== undefined) return [h("div", { class: "empty search-error" }, this.error)];
    if (this.hits.length === 0) return [h("div", { class: "empty" }, `No session mentions “${this.query}”.`)];
    return this.hits.map((hit) =>
      h(
        "div",
        { class: "session-row search-hit", "data-session": hit.session.id },
        button(hit.session.title, () => open(hit.session.id), { class: "link session-link" }),
        h("div", { class: "snippet" }, ...marked(hit.snippet, hit.highlights)),
      ),
    );
  }
}
