// The chat webview: receives state from the extension, applies protocol events to the reducer as they
// arrive, and draws at most once per animation frame (so a burst of deltas costs one redraw).
import type { ToWebview, FromWebview } from "../src/chat/messages.ts";
import { Chrome } from "./chrome.ts";
import { FirstRun } from "./firstrun.ts";
import { type Draft, PromptBox } from "./prompt.ts";
import { button, h, setMarkdown } from "./dom.ts";
import { LANGUAGES } from "./markdown.ts";
import { Transcript } from "./parts.ts";
import { QueueList } from "./queue.ts";
import { BackgroundList } from "./background.ts";
import { runSlash, SlashMenu } from "./slash.ts";
import { Pickers } from "./pickers.ts";
import { applyEvent, emptyDirty, initialState, loadSnapshot, setConfig, setDraftControls, setServer, setSessions } from "./state.ts";
import { OlderLoader, prependOlder } from "./virtual.ts";

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): { draft?: Draft } | undefined;
  setState(state: { draft?: Draft }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
// The view follows new content only while the user is at the bottom: sending a prompt goes there,
// and scrolling up (even at once after sending) stops following until the user is back at the end
// or presses "Jump to latest".
let follow = true;
const post = (message: FromWebview): void => {
  if (message.type === "prompt") follow = true;
  vscode.postMessage(message);
};
const state = initialState();
const focusPrompt = (): void => prompt.input.focus();
const chrome = new Chrome(post, focusPrompt, () => {
  state.dirty.sessions = true;
  schedule();
});
const transcript = new Transcript(post);
const firstRun = new FirstRun(post);
const prompt = new PromptBox(post, (draft) => vscode.setState({ draft }), vscode.getState()?.draft);
const queueList = new QueueList(post, focusPrompt);
const backgroundList = new BackgroundList(post);
const slash = new SlashMenu(prompt.input, prompt.root, post, (command, args, attachments) => runSlash(post, prompt, command, args, attachments));
prompt.root.insertBefore(slash.root, prompt.input);
prompt.intercept = (text, attachments) => slash.runTyped(text, attachments);
const pickers = new Pickers(post);
const jump = button("Jump to latest ↓", () => {
  follow = true;
  jump.hidden = true;
  transcript.root.scrollTop = transcript.root.scrollHeight;
}, { id: "jump-latest", hidden: true, title: "Scroll to the newest message and follow it again", "aria-label": "Jump to latest" });
const atBottom = (): boolean => transcript.root.scrollHeight - transcript.root.scrollTop - transcript.root.clientHeight < 24;
transcript.root.addEventListener("scroll", () => {
  follow = atBottom();
  if (follow) jump.hidden = true;
});
// A wheel or key scroll up stops following at once, before the frame that would scroll back down.
transcript.root.addEventListener("wheel", (event) => {
  if (event.deltaY < 0) follow = false;
});
transcript.root.addEventListener("keydown", (event) => {
  if (["ArrowUp", "PageUp", "Home"].includes(event.key)) follow = false;
});

// Frame statistics, read by the benchmark (bench/vscode_stream.mjs) through the page.
const stats = { frames: 0, events: 0, maxDrawMs: 0, totalDrawMs: 0, maxTranscriptMs: 0, maxScrollMs: 0, maxChromeMs: 0 };
(window as unknown as { agentlsStats: typeof stats }).agentlsStats = stats;

const older = new OlderLoader(transcript.root, transcript.top, state, post, () => transcript.above(state));
const app = document.getElementById("app") as HTMLElement;
chrome.holdInStatus(prompt.busyActions);
app.append(chrome.bar, pickers.root, chrome.sessionList, chrome.notice, firstRun.root, h("div", { id: "transcript-box" }, transcript.root, jump), chrome.panels, chrome.status, backgroundList.root, queueList.root, prompt.root);

let scheduled = false;
let retryTimer: number | undefined;

function draw(): void {
  scheduled = false;
  const start = performance.now();
  // Messages go above the ones shown this frame (an older page): what is on screen stays put.
  if (transcript.above(state)) older.hold();
  const heightBefore = transcript.root.scrollHeight;
  const d = state.dirty;
  state.dirty = emptyDirty();
  const view = { ...state, dirty: d };
  const chromeStart = performance.now();
  if (d.header || d.sessions) chrome.drawBar(view);
  if (d.sessions) chrome.drawSessions(view);
  if (d.header) {
    chrome.drawStatus(view);
    chrome.drawPanels(view);
    prompt.draw(view);
    pickers.draw(view.mode, view.effort);
    firstRun.draw(view.config);
  }
  stats.maxChromeMs = Math.max(stats.maxChromeMs, performance.now() - chromeStart);
  const transcriptStart = performance.now();
  transcript.draw(view);
  stats.maxTranscriptMs = Math.max(stats.maxTranscriptMs, performance.now() - transcriptStart);
  transcript.settle();
  if (d.dialogs) chrome.drawDialogs(transcript.dialogs, view);
  if (d.queue) queueList.draw(view.queue);
  if (d.background) backgroundList.draw(view.background);
  const scrollStart = performance.now();
  const prepended = older.drawn();
  if (follow && !prepended) transcript.root.scrollTop = transcript.root.scrollHeight;
  else if (transcript.root.scrollHeight !== heightBefore && !prepended) jump.hidden = false;
  stats.maxScrollMs = Math.max(stats.maxScrollMs, performance.now() - scrollStart);
  // An older page still being built goes on next frame.
  if (transcript.above(state)) {
    state.dirty.transcript = true;
    schedule();
  }
  // Long texts that got more stable Markdown than a frame's budget go on next frame.
  if (transcript.behind.size > 0) {
    for (const id of transcript.behind) state.dirty.parts.add(id);
    schedule();
  }
  // A retry shows a countdown: redraw the status line every second while it lasts.
  if (state.status.type === "retry" && retryTimer === undefined) {
    retryTimer = window.setInterval(() => {
      state.dirty.header = true;
      schedule();
    }, 1000);
  } else if (state.status.type !== "retry" && retryTimer !== undefined) {
    window.clearInterval(retryTimer);
    retryTimer = undefined;
  }
  const ms = performance.now() - start;
  stats.frames++;
  stats.totalDrawMs += ms;
  stats.maxDrawMs = Math.max(stats.maxDrawMs, ms);
}

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(draw);
  }
}

window.addEventListener("message", (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case "events":
      stats.events += message.events.length;
      for (const e of message.events) applyEvent(state, e);
      break;
    case "snapshot":
      // Another session (or this one again) opens at its latest message, whatever the last one did.
      follow = true;
      jump.hidden = true;
      transcript.reset();
      loadSnapshot(state, message.snapshot);
      break;
    case "draftControls":
      setDraftControls(state, message.mode, message.effort);
      break;
    case "sessions":
      setSessions(state, message.sessions, message.append, message.more);
      break;
    case "config":
      setConfig(state, message.config);
      break;
    case "server":
      setServer(state, message.phase, message.message);
      break;
    case "attach":
      prompt.attach(message.attachments, message.mention === true);
      break;
    case "editorContext":
      prompt.editorChip.set(message.chip);
      break;
    case "focusPrompt":
      // From the host ("agentls: Focus Chat", a context-menu ask): the prompt takes the keys, with
      // `text` put in it when given.
      if (message.text !== undefined) prompt.setText(message.text);
      prompt.input.focus();
      break;
    case "firstRun":
      firstRun.setInfo(message.info);
      break;
    case "restorePrompt":
      prompt.restore(message.text, message.attachments);
      break;
    case "olderMessages":
      older.arrived();
      prependOlder(state, message.sessionID, message.messages, message.more);
      break;
    case "searchResults":
      chrome.search.results(message.query, message.hits, message.error);
      break;
    case "commands":
      slash.setCommands(message.commands, message.errors);
      break;
    case "review":
      state.reviewPending = message.pending;
      state.dirty.header = true;
      break;
  }
  schedule();
});

// Links in model output never navigate the view: the extension opens web links, and only those.
document.addEventListener("click", (event) => {
  const link = (event.target as Element | null)?.closest?.("a");
  if (link) {
    event.preventDefault();
    const href = link.getAttribute("href");
    if (href) post({ type: "openLink", href });
  }
});

// Escape anywhere in the view stops the running turn.
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state.status.type !== "idle") {
    event.preventDefault();
    post({ type: "abort" });
    focusPrompt();
  }
});

// The first Markdown of an answer would pay for compiling the parser's and the highlighter's code and
// grammars (tens of ms, one frame): do it in idle time, one language at a time.
const warming = ["", ...LANGUAGES];
const warm = (deadline: IdleDeadline): void => {
  while (warming.length > 0 && deadline.timeRemaining() > 4) {
    setMarkdown(document.createElement("div"), `Warm *up* \`x\` [a](https://example.com)\n\n\`\`\`${warming.shift()}\nx = f(1) # "s"\n\`\`\`\n`);
  }
  if (warming.length > 0) requestIdleCallback(warm);
};
requestIdleCallback(warm);

post({ type: "ready" });
