// Long sessions: the view holds the newest page of messages and loads older pages as the user
// scrolls up to them (agent/session/messages with `before`), building each a slice per frame and
// putting it in whole (webview/parts.ts), keeping what is on screen where it was;
// off-screen messages are not laid out or painted (`content-visibility: auto` in chat.css), so a
// thousand-message session costs the browser what is on screen.
import type { FromWebview } from "../src/chat/messages.ts";
import type { MessageWithParts, Part } from "../shared/protocol.ts";
import { button } from "./dom.ts";
import { type ChatState, upsertMessage } from "./state.ts";
import { follow } from "./subtasks.ts";

/** Put an older page of the session's messages before the ones shown. */
export function prependOlder(state: ChatState, sessionID: string, messages: MessageWithParts[], more: boolean): boolean {
  if (state.session?.id !== sessionID) return false;
  for (const m of messages) {
    if (state.messages.has(m.info.id)) continue;
    const view = upsertMessage(state, m.info);
    view.parts = m.parts.map((p) => ({ ...p }) as Part);
    for (const p of view.parts) {
      state.partOwner.set(p.id, m.info.id);
      follow(state.subtasks, p);
    }
  }
  state.moreBefore = more;
  return true;
}

// How far above the screen the top of the transcript asks for the next older page: a page takes some
// frames to come from the server and be built, and a user scrolling up fast should not wait for it.
const AHEAD_PX = 2400;

/**
 * Loads the page before the first message when the top of the transcript comes near the screen, and
 * keeps the screen still when the page is put in above it (webview/parts.ts builds it meanwhile).
 */
export class OlderLoader {
  private loading = false;
  /** The first message on screen and its distance from the top, while messages are put above it. */
  private anchor: { el: Element; offset: number } | undefined;
  private label = "";
  private readonly observer: IntersectionObserver;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly top: HTMLElement,
    private readonly state: ChatState,
    private readonly post: (message: FromWebview) => void,
    /** Whether messages already loaded still wait to be put above the first one shown. */
    private readonly pending: () => boolean,
  ) {
    this.observer = new IntersectionObserver(() => this.check(), { root: scroller, rootMargin: `${AHEAD_PX}px 0px 0px 0px` });
    this.observer.observe(top);
  }

  /** Ask for the next older page if the top is near the screen and there is one. */
  check(): void {
    const session = this.state.session;
    const first = this.state.order[0];
    if (this.loading || this.pending() || !this.state.moreBefore || session === null || first === undefined) return;
    const near = this.top.getBoundingClientRect().bottom >= this.scroller.getBoundingClientRect().top - AHEAD_PX;
    if (!near) return;
    this.loading = true;
    this.post({ type: "loadOlder", sessionID: session.id, before: first });
    this.showLabel();
  }

  /** A page arrived (it is drawn from the next frame on). */
  arrived(): void {
    this.loading = false;
  }

  /**
   * Before a frame draws messages above the ones shown: remember the first message on screen. Read
   * at the start of the frame, when the layout is still clean, so it costs no layout of its own.
   */
  hold(): void {
    const box = this.scroller.getBoundingClientRect();
    // Only the boxes of the transcript's own children and of the page on screen are read: a message
    // in an older page off screen has no layout, and reading its box would make the browser lay
    // that whole page out.
    const onScreen = (el: Element): boolean => el.getBoundingClientRect().bottom > box.top;
    let el = [...this.scroller.children].find((c) => (c.classList.contains("message") || c.classList.contains("older-page")) && onScreen(c));
    if (el?.classList.contains("older-page") === true) el = [...el.children].find(onScreen);
    this.anchor = el === undefined ? undefined : { el, offset: el.getBoundingClientRect().top - box.top };
  }

  /** After a draw: keep the remembered message where it was, then load on if still near the top. */
  drawn(): boolean {
    const anchor = this.anchor;
    this.anchor = undefined;
    if (anchor !== undefined && anchor.el.isConnected) {
      const now = anchor.el.getBoundingClientRect().top - this.scroller.getBoundingClientRect().top;
      if (now !== anchor.offset) this.scroller.scrollTop += now - anchor.offset;
    }
    this.showLabel();
    if (!this.pending()) requestAnimationFrame(() => this.check());
    return anchor !== undefined;
  }

  /** Above the first message: a button while there are older ones, saying so while they come. */
  private showLabel(): void {
    const pending = this.pending();
    const label = !this.state.moreBefore && !pending ? "" : this.loading || pending ? "Loading older messages…" : "Load older messages";
    if (label === this.label) return;
    this.label = label;
    this.top.replaceChildren(...(label === "" ? [] : [button(label, () => this.check(), { class: "link older" })]));
  }
}
