// The extension host as a new user meets it, in one real VS Code per scenario (run by test_e2e_host.py):
//   "firstrun": no model configured → the first-run setup, a prompt kept when there is no model, the
//     key entered and used, Focus Chat and the default keybindings, the lightbulb only where there is a
//     problem and its turn shown in the view, the "proposed" diff tab closed with its dialog, rename and
//     delete of a session that is not the current one, a prompt restored when the server crashes.
//   "badpath": agentls.server.path pointing at another executable, then at nothing: one message each,
//     naming the path and the cause, and a typed prompt kept.
// Each phase records what it saw in `result.phases[name]`; the first failing phase stops the run.
// Usage: node e2e_host.mjs '{"scenario": ..., "url": ..., "folder": ..., "shots": ..., "trace": ..., "settings": ...}'
import * as fs from "node:fs";
import * as path from "node:path";
import { log, runPhases, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);

function traceEvents() {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

class Host {
  constructor(wb) {
    this.wb = wb;
    this.page = wb.page;
    this.chat = null;
  }

  async openChat() {
    await this.wb.command("agentls: Focus Chat");
    this.chat = await this.wb.chat();
  }

  promptValue() {
    return this.chat.$eval("#prompt-input", (el) => el.value);
  }

  notice() {
    return this.chat.$eval("#notice", (el) => (el.hidden ? "" : el.textContent));
  }

  async type(words) {
    await this.chat.click("#prompt-input");
    await this.chat.type("#prompt-input", words);
  }

  async answerText() {
    return this.chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
  }

  async waitIdle(timeout = 20000) {
    await until("the turn to end", async () => (await this.chat.$eval("#send", (b) => b.textContent)) === "Send", timeout);
  }

  /** Where the keyboard is: in the chat's prompt box, or elsewhere (named for the log). */
  focusInPrompt() {
    return this.chat.evaluate(() => document.hasFocus() && document.activeElement?.id === "prompt-input").catch(() => false);
  }

  /** The agentls notifications shown so far: toasts, or (once they hid) the notification center's list. */
  async agentlsNotifications({ center = false } = {}) {
    if (!center) return (await this.wb.notifications()).filter((n) => n.startsWith("agentls"));
    await this.wb.command("Notifications: Show Notifications");
    const all = await until("the notification center", () =>
      this.page.evaluate(() => {
        const c = document.querySelector(".notifications-center");
        return c && c.offsetHeight > 0 ? [...c.querySelectorAll(".notification-list-item-message")].map((m) => m.textContent) : null;
      }), 10000);
    await this.page.keyboard.press("Escape");
    return all.filter((n) => n.startsWith("agentls"));
  }

  async press(...keys) {
    for (const k of keys.slice(0, -1)) await this.page.keyboard.down(k);
    await this.page.keyboard.press(keys.at(-1));
    for (const k of keys.slice(0, -1).reverse()) await this.page.keyboard.up(k);
  }

  /** Put the cursor on line 1, column `column` (0-based) of the active editor. */
  async cursorAt(column) {
    await this.wb.focusEditor();
    await this.press("Control", "Home");
    for (let i = 0; i < column; i++) await this.page.keyboard.press("ArrowRight");
  }

  /** Ctrl+. (Quick Fix): the rows of the action menu, or [] when VS Code says there are none. */
  async quickFixRows() {
    await this.press("Control", ".");
    return until("the quick fix menu or its 'no code actions' message", () =>
      this.page.evaluate(() => {
        const widget = document.querySelector(".action-widget");
        const rows = widget ? [...widget.querySelectorAll(".monaco-list-row")].map((r) => r.textContent) : [];
        if (rows.length > 0) return rows;
        const message = [...document.querySelectorAll(".monaco-editor-overlaymessage")].map((m) => m.textContent).join(" ");
        return /no code actions/i.test(message) ? [] : null;
      }), 15000);
  }

  /** The title of the side bar's view container ("EXPLORER", "AGENTLS"). */
  sidebarTitle() {
    return this.page.evaluate(() => {
      const bar = document.querySelector(".part.sidebar");
      return bar && bar.offsetWidth > 0 ? bar.querySelector(".title-label h2")?.textContent ?? "" : "";
    });
  }

  tabs() {
    return this.page.$$eval(".tabs-container .tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") ?? ""));
  }

  async openSessions() {
    if (await this.chat.$eval("#sessions", (el) => el.hidden)) await this.chat.click(".session-title");
    await until("the session menu", async () => !(await this.chat.$eval("#sessions", (el) => el.hidden)));
  }

  sessionRows() {
    return this.chat.$$eval(".session-row", (rows) => rows.map((r) => ({ title: r.querySelector(".session-link")?.textContent ?? "", current: r.classList.contains("current") })));
  }
}

const scenarios = {};

// --- first run ---------------------------------------------------------------------------------

scenarios.firstrun = [
  ["setup-shown", async (s, r) => {
    await s.openChat();
    await until("the first-run setup", () => s.chat.$eval("#first-run", (el) => !el.hidden), 30000);
    r.providers = await until("the providers", async () => {
      const ids = await s.chat.$$eval("#setup-provider option", (os) => os.map((o) => o.value));
      return ids.length > 0 ? ids : null;
    });
    r.text = await s.chat.$eval("#first-run", (el) => el.innerText);
    r.keyType = await s.chat.$eval("#setup-key", (el) => el.type);
    r.modelPicker = await s.chat.$eval("#model-picker", (el) => el.selectedOptions[0]?.textContent ?? "");
    await s.wb.shot("first-run");
  }],
  ["no-model-prompt-kept", async (s, r) => {
    await s.type("hello first run");
    await s.page.keyboard.press("Enter");
    r.notice = await until("the notice about the model", async () => {
      const n = await s.notice();
      return n.includes("model") ? n : null;
    });
    r.promptValue = await s.promptValue();
    r.userMessages = await s.chat.$$eval(".message.user", (els) => els.length);
    await s.wb.shot("no-model-notice");
  }],
  ["setup-saved", async (s, r) => {
    await s.chat.select("#setup-provider", "openai");
    await s.chat.click("#setup-model");
    await s.chat.type("#setup-model", "gpt-4o-mini");
    await s.chat.click("#setup-key");
    await s.chat.type("#setup-key", args.apiKey);
    await s.wb.shot("first-run-filled");
    await s.chat.click("#setup-save");
    await until("the setup to close", () => s.chat.$eval("#first-run", (el) => el.hidden), 20000);
    r.noticeAfterSetup = await until("the old notice cleared", async () => ((await s.notice()) === "" ? "cleared" : null));
    r.picker = await until("the model picker", async () => {
      const v = await s.chat.$eval("#model-picker", (el) => el.value);
      return v === "openai/gpt-4o-mini" ? v : null;
    });
    // The prompt kept in the box goes now.
    r.promptBeforeSend = await s.promptValue();
    await s.chat.click("#prompt-input");
    await s.page.keyboard.press("Enter");
    await until("the answer", async () => (await s.answerText()).includes("Hello from the first run"), 20000);
    await s.waitIdle();
    r.promptAfterSend = await s.promptValue();
    await s.wb.shot("first-answer");
  }],
  ["keyboard", async (s, r) => {
    await s.wb.openFile("calc.py");
    await s.wb.focusEditor();
    r.focusBefore = await s.focusInPrompt();
    await s.press("Control", "Alt", "a");
    r.keybinding = await until("the focus in the prompt (Ctrl+Alt+A)", () => s.focusInPrompt(), 10000);
    await s.page.keyboard.type("typed after ctrl+alt+a");
    r.typed = await s.promptValue();
    await s.chat.$eval("#prompt-input", (el) => { el.value = ""; });
    await s.wb.focusEditor();
    await s.wb.command("agentls: Focus Chat");
    r.command = await until("the focus in the prompt (Focus Chat)", () => s.focusInPrompt(), 10000);
    await s.wb.shot("focus-chat");
    const before = await s.chat.$eval(".session-title", (el) => el.textContent);
    await s.wb.focusEditor();
    await s.press("Control", "Alt", "n");
    r.newSession = await until("a new session (Ctrl+Alt+N)", async () => {
      const t = await s.chat.$eval(".session-title", (el) => el.textContent);
      const messages = await s.chat.$$eval(".message", (els) => els.length);
      return t !== before && messages === 0 ? t : null;
    }, 10000);
  }],
  ["lightbulb", async (s, r) => {
    // No diagnostic and no selection: no "Ask agent" action (there used to be one on every line).
    await s.wb.openFile("calc.py");
    await s.cursorAt(4);
    r.plainLine = await s.quickFixRows();
    await s.page.keyboard.press("Escape");
    // VS Code's CSS server (not agentls) reports the misspelled property; the view is hidden.
    await s.wb.openFile("styles.css");
    await s.page.waitForSelector(".editor-instance .squiggly-warning, .editor-instance .squiggly-error", { timeout: 30000 });
    await s.wb.command("View: Show Explorer");
    r.sidebarBefore = await until("the Explorer in the side bar", async () => {
      const t = await s.sidebarTitle();
      return /explorer/i.test(t) ? t : null;
    });
    await s.cursorAt(8); // inside "colr"
    r.onProblem = await s.quickFixRows();
    await s.wb.shot("lightbulb-menu");
    const picked = await s.page.evaluateHandle(() => [...document.querySelectorAll(".action-widget .monaco-list-row")].find((row) => row.textContent.includes("Ask agent to fix")) ?? null);
    if (!picked.asElement()) throw new Error(`no agent fix in the menu: ${JSON.stringify(r.onProblem)}`);
    await picked.asElement().click();
    // The view comes back with the turn, and its permission dialog is on screen.
    s.chat = await s.wb.chat();
    await s.chat.waitForSelector(".dialog.permission", { timeout: 30000 });
    r.userText = await s.chat.$$eval(".message.user .user-text", (els) => els.at(-1)?.textContent ?? "");
    r.sidebarAfter = await s.sidebarTitle();
    await s.wb.shot("lightbulb-turn-in-view");
    // "Show diff" opens the proposed text; answering the dialog closes that tab.
    await s.chat.click('.dialog.permission [data-action="diff"]');
    r.tabsWithDiff = await until("the proposed diff tab", async () => {
      const tabs = await s.tabs();
      return tabs.some((t) => t.includes("proposed")) ? tabs : null;
    });
    await s.wb.shot("proposed-diff");
    await s.chat.click('.dialog.permission [data-action="once"]');
    r.tabsAfter = await until("the proposed diff tab closed", async () => {
      const tabs = await s.tabs();
      return tabs.some((t) => t.includes("proposed")) ? null : tabs;
    }, 10000);
    await until("the answer", async () => (await s.answerText()).includes("Renamed colr"), 20000);
    await s.waitIdle();
    await s.wb.shot("lightbulb-answer");
  }],
  ["sessions", async (s, r) => {
    await s.openSessions();
    r.before = await s.sessionRows();
    const other = r.before.find((row) => !row.current);
    if (other === undefined) throw new Error(`no session besides the current one: ${JSON.stringify(r.before)}`);
    await s.wb.shot("session-list");
    const row = (title) => s.chat.evaluateHandle((t) => [...document.querySelectorAll(".session-row")].find((el) => el.querySelector(".session-link")?.textContent === t), title);
    await (await row(other.title)).asElement().$(".row-rename").then((b) => b.click());
    await s.page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
    await until("the rename box to have the focus", () => s.page.$eval(".quick-input-widget input", (el) => document.activeElement === el));
    await s.page.$eval(".quick-input-widget input", (el) => el.select());
    await s.page.keyboard.type("Renamed elsewhere");
    await s.page.keyboard.press("Enter");
    r.afterRename = await until("the renamed row", async () => {
      const rows = await s.sessionRows();
      return rows.some((x) => x.title === "Renamed elsewhere" && !x.current) ? rows : null;
    });
    await s.openSessions();
    await (await row("Renamed elsewhere")).asElement().$(".row-delete").then((b) => b.click());
    await s.page.waitForSelector(".monaco-dialog-box", { visible: true, timeout: 10000 });
    for (const b of await s.page.$$(".monaco-dialog-box .dialog-buttons .monaco-button")) if ((await b.evaluate((el) => el.textContent)) === "Delete") await b.click();
    r.afterDelete = await until("the row gone", async () => {
      const rows = await s.sessionRows();
      return rows.some((x) => x.title === "Renamed elsewhere") ? null : rows;
    });
    r.currentAfter = (await s.sessionRows()).find((x) => x.current)?.title ?? null;
    await s.openSessions();
    await s.wb.shot("sessions-after");
    await s.chat.click(".session-title");
  }],
  ["failed-turn-restores-prompt", async (s, r) => {
    await s.type("This one will fail");
    await s.page.keyboard.press("Enter");
    r.promptAfter = await until("the prompt back in the box", async () => {
      const v = await s.promptValue();
      return v === "This one will fail" ? v : null;
    }, 20000);
    // The prompt comes back when the prompt's request fails; the turn's error notice with the
    // session's error event, which may land a moment later on a loaded machine: wait for it.
    r.notice = await until("the turn's error notice", async () => {
      const n = await s.notice();
      return n.includes("The turn failed") ? n : null;
    }, 20000).catch(async () => s.notice());
    await s.wb.shot("failed-turn-prompt-restored");
    await s.chat.$eval("#prompt-input", (el) => { el.value = ""; });
  }],
  ["crash-restores-prompt", async (s, r) => {
    await s.type("Tell me a long story");
    await s.page.keyboard.press("Enter");
    await until("the story to start", async () => (await s.answerText()).includes("Once upon"), 20000);
    r.promptWhileRunning = await s.promptValue();
    const victim = traceEvents().filter((e) => e.event === "serverInitialized").at(-1).pid;
    process.kill(victim, "SIGKILL");
    r.promptAfterCrash = await until("the prompt back in the box", async () => {
      const v = await s.promptValue();
      return v.includes("Tell me a long story") ? v : null;
    }, 20000);
    r.notice = await s.notice();
    await s.wb.shot("crash-prompt-restored");
  }],
];

// --- a wrong agentls.server.path ----------------------------------------------------------------

scenarios.badpath = [
  ["another-executable", async (s, r) => {
    // The extension starts when used: opening its view starts it (and the server check).
    await s.wb.command("agentls: Focus Chat");
    r.notifications = await until("the setup error", async () => {
      const n = await s.agentlsNotifications();
      return n.some((x) => x.includes("agentls.server.path")) ? n : null;
    }, 30000);
    await s.openChat();
    r.notice = await until("the view's notice", async () => {
      const n = await s.notice();
      return n.includes("agentls.server.path") ? n : null;
    });
    await s.type("keep me please");
    await s.page.keyboard.press("Enter");
    r.noticeAfterPrompt = await until("the notice about the prompt", async () => {
      const n = await s.notice();
      return n.includes("back in the box") ? n : null;
    });
    r.promptValue = await s.promptValue();
    // Counted once everything above has happened: no restart loop added more.
    r.notificationsAfter = await s.agentlsNotifications({ center: true });
    await s.wb.shot("wrong-executable");
  }],
  ["no-such-file", async (s, r) => {
    // What a user does in the workspace's Settings (JSON); the remote machine's settings would
    // outrank the user's file in code-server.
    fs.mkdirSync(path.join(args.folder, ".vscode"), { recursive: true });
    fs.writeFileSync(path.join(args.folder, ".vscode", "settings.json"), JSON.stringify({ "agentls.server.path": "/nonexistent/agentls" }, null, 2));
    r.notifications = await until("the missing-file error", async () => {
      const n = await s.agentlsNotifications();
      return n.some((x) => x.includes("/nonexistent/agentls")) ? n : null;
    }, 30000);
    r.notice = await s.notice();
    r.promptValue = await s.promptValue();
    await s.wb.shot("missing-file");
  }],
];

scenarios.badpath.push(["bad-arguments", async (s, r) => {
  // agentls itself, with an argument it does not take: it exits before the handshake.
  const settings = { "agentls.server.path": args.agentls, "agentls.server.args": ["serve", "--no-such-flag"] };
  fs.writeFileSync(path.join(args.folder, ".vscode", "settings.json"), JSON.stringify(settings, null, 2));
  await until("the start failure", async () => (await s.notice()).includes("--no-such-flag"), 30000);
  r.notice = await s.notice();
  r.notifications = await s.agentlsNotifications({ center: true });
  r.restarts = traceEvents().filter((e) => e.event === "serverRestart").length;
  await s.wb.shot("bad-arguments");
}]);

await runPhases(args, scenarios[args.scenario], (wb) => new Host(wb));
