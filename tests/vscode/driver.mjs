// Drives a real VS Code (code-server) in headless Chromium through puppeteer-core: the workbench, its
// command palette, editors and the agentls chat webview. Shared by the e2e test and the benchmark.
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const require = createRequire(path.join(process.env.AGENTLS_NODE_MODULES ?? "", "noop.js"));
const puppeteer = require("puppeteer-core");

export function log(...args) {
  console.log(`[${new Date().toISOString().slice(11, 23)}]`, ...args);
}

/** Poll `fn` until it returns a truthy value; fail with `what` after `timeout` ms. */
export async function until(what, fn, timeout = 15000, interval = 100) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

// frame.evaluate, not frame.$: after a window reload puppeteer's isolated world of a re-created
// webview frame can stay missing, so `$` finds nothing in a frame whose document has the element.
function hasPrompt(frame) {
  return frame.evaluate(() => document.getElementById("prompt-input") !== null).catch(() => false);
}

/** Type `words` into the next quick input (its placeholder / title as given) and pick the row. */
export async function quickInput(wb, words, { placeholder = "", title = "", list = true } = {}) {
  const selector = ".quick-input-widget input";
  await wb.page.waitForSelector(selector, { visible: true, timeout: 10000 });
  // The next quick input of a series opens a moment after the last one closed: wait for its own title.
  await until(`the quick input${placeholder ? ` "${placeholder}…"` : ""}${title ? ` titled ${title}` : ""} to have the focus`, () =>
    wb.page.$eval(selector, (el, [prefix, title]) => {
      const shown = document.querySelector(".quick-input-widget .quick-input-title")?.textContent ?? "";
      return document.activeElement === el && (el.placeholder || "").startsWith(prefix) && el.value === "" && shown.includes(title);
    }, [placeholder, title]));
  await wb.page.keyboard.type(words);
  const want = words.replace(/^@/, "").toLowerCase();
  if (list) await until(`the quick pick to list ${words}`, async () => (await wb.quickRows()).some((row) => row.toLowerCase().includes(want)), 10000);
  await wb.page.keyboard.press("Enter");
}

/** The prompt box's chips as the user reads them (without the × of each). */
export const chipsText = (chat) => chat.$$eval("#prompt .chip", (els) => els.filter((e) => !e.hidden).map((e) => e.textContent.replace(/\s*×$/, "").trim()));

/** Type ` @` in the prompt, pick `@kind` (then `then` answers its own pick): the new chips. */
export async function mention(wb, chat, kind, then = async () => {}) {
  const before = (await chipsText(chat)).length;
  // The caret at the end (a click would put it where the pointer is, inside the text).
  await chat.$eval("#prompt-input", (el) => {
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  });
  await chat.type("#prompt-input", " @");
  await quickInput(wb, `@${kind}`, { placeholder: "Files to attach" });
  await then();
  return until(`the @${kind} chip`, async () => {
    const chips = await chipsText(chat);
    return chips.length > before && chips.some((c) => c.startsWith(`@${kind}`) && / tok$/.test(c)) ? chips : null;
  }, 30000);
}

/** Wait for an answer holding `words` in the chat, then for its turn to end. */
export async function waitAnswer(chat, words) {
  await until(`the answer "${words}"`, async () => {
    const text = await chat.$$eval(".message.assistant .md", (els) => els.map((e) => e.textContent).join("\n"));
    return text.includes(words) ? text : null;
  }, 90000);
  await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", 30000);
}

export class Workbench {
  constructor(browser, page, shots) {
    this.browser = browser;
    this.page = page;
    this.shots = shots;
    this.shotCount = 0;
  }

  static async open(url, folder, shots) {
    const browser = await puppeteer.launch({
      executablePath: process.env.AGENTLS_CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"],
      defaultViewport: { width: 1400, height: 900 },
    });
    const page = await browser.newPage();
    page.on("pageerror", (err) => log("page error:", err.message));
    await page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(".monaco-workbench", { timeout: 30000 });
    fs.mkdirSync(shots, { recursive: true });
    return new Workbench(browser, page, shots);
  }

  async shot(name) {
    this.shotCount += 1;
    const file = path.join(this.shots, `${String(this.shotCount).padStart(2, "0")}-${name}.png`);
    await this.page.screenshot({ path: file });
    log("screenshot", file);
    return file;
  }

  /**
   * Move the keyboard focus out of a webview (to the editor area) before a quick input opens.
   * A webview takes its focus back asynchronously: a quick input opened while the chat view had
   * the focus (the palette, then Go to File) lost it a moment later, closed, and the rest of the
   * typing landed in the chat's prompt box (seen: "Go to Fil" in the prompt, quick open gone).
   */
  async leaveWebview() {
    if (!(await this.page.evaluate(() => document.activeElement?.tagName === "IFRAME"))) return;
    // Wait for the focus to arrive in the editor area, not only to leave the webview: it moves there
    // in steps, and a quick input opened in between loses the focus again. On a busy machine the
    // webview can take the key before it hands keys to the workbench: the key is pressed again.
    const inEditor = () => this.page.evaluate(() => document.activeElement?.closest(".part.editor") != null);
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.down("Control");
      await this.page.keyboard.press("1"); // Focus First Editor Group, a workbench keybinding
      await this.page.keyboard.up("Control");
      try {
        return await until("the focus in the editor area", inEditor, 5000);
      } catch (err) {
        if (attempt === 3) throw err;
      }
    }
  }

  /** The rows of the quick input while it is shown (a closed one keeps its old rows in the page). */
  quickRows() {
    return this.page.evaluate(() => {
      const widget = document.querySelector(".quick-input-widget");
      if (!widget || widget.style.display === "none") return [];
      return [...widget.querySelectorAll(".quick-input-list .monaco-list-row")].map((r) => r.getAttribute("aria-label") ?? "");
    });
  }

  /** Open the palette or quick open (`key`), type `words` into it; retry if it closed meanwhile. */
  async openQuickInput(key, words, listed, timeout) {
    const deadline = Date.now() + timeout;
    for (;;) {
      await this.page.keyboard.press("Escape");
      await this.leaveWebview();
      if (key === "F1") await this.page.keyboard.press("F1");
      else {
        await this.page.keyboard.down("Control");
        await this.page.keyboard.press(key);
        await this.page.keyboard.up("Control");
      }
      // A webview that takes the keys late (the chat's prompt after "Focus Chat" on a first open)
      // closes the quick input again: open it again while there is time.
      const input = await this.page.waitForSelector(".quick-input-widget input:focus", { visible: true, timeout: Math.min(5000, Math.max(1000, deadline - Date.now())) })
        .catch((err) => {
          if (Date.now() >= deadline) throw err;
          log(`openQuickInput ${key}: no focused quick input; again`);
          return null;
        });
      if (input === null) continue;
      await input.type(words);
      try {
        await until(`the quick input to list "${listed}"`, async () => (await this.quickRows()).some((r) => r.toLowerCase().includes(listed.toLowerCase())),
          Math.min(3000, Math.max(100, deadline - Date.now())));
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
      }
    }
  }

  /** Run a command from the palette by its title (as the palette shows it). */
  async command(title, timeout = 20000) {
    // The palette lists the commands registered when it opened: right after start-up an extension's
    // commands may not be there yet, so open it again until they are.
    await this.openQuickInput("F1", title, title, timeout);
    await this.page.keyboard.press("Enter");
  }

  /** Open a workspace file: click its tab if it has one, else pick it in Quick Open (Ctrl+P). */
  async openFile(name) {
    const tab = await this.page.$(`.tab[aria-label*="${name}"]`);
    if (tab) {
      await tab.click();
      if (await until(`the ${name} tab`, () => this.page.$(`.tab.active[aria-label*="${name}"]`), 5000).catch(() => null)) return;
    }
    // Right after start-up the file index may not be ready: quick open then lists nothing for a while.
    await this.openQuickInput("p", name, name, 30000);
    // Click the row itself: Enter picks the focused row, which may still be an older result while
    // the list refreshes (seen: quick open closed on nothing and no editor opened).
    await until(`an editor for ${name}`, async () => {
      if (await this.page.$(`.tab.active[aria-label*="${name}"]`)) return true;
      const row = await this.page.evaluateHandle((n) => {
        const widget = document.querySelector(".quick-input-widget");
        if (!widget || widget.style.display === "none") return null;
        return [...widget.querySelectorAll(".quick-input-list .monaco-list-row")].find((r) => (r.getAttribute("aria-label") ?? "").includes(n)) ?? null;
      }, name);
      if (row.asElement()) await row.asElement().click().catch((err) => log(`openFile ${name}: click failed:`, String(err).slice(0, 200)));
      else {
        log(`openFile ${name}: quick open closed without opening it; again`, JSON.stringify(await this.state()));
        await this.openQuickInput("p", name, name, 10000);
      }
      return false;
    }, 30000, 500);
  }

  /** The text of the visible code editor (there is one when no diff editor is open). */
  async editorText() {
    return this.page.$eval(".editor-instance .monaco-editor:not(.original-in-monaco-diff-editor) .view-lines", (el) =>
      [...el.querySelectorAll(".view-line")]
        .map((line) => ({ top: parseFloat(line.style.top || "0"), text: line.textContent.replace(/\u00a0/g, " ") }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text)
        .join("\n"),
    );
  }

  async focusEditor() {
    // Monaco re-creates its line elements while it lays out: retry the click until one holds still.
    await until("a code editor to click into", () =>
      this.page.click(".editor-instance .monaco-editor .view-lines .view-line").then(() => true),
    );
  }

  async dirtyTabs() {
    return this.page.$$eval(".tabs-container .tab.dirty", (tabs) => tabs.map((t) => t.getAttribute("aria-label")));
  }

  async notifications() {
    return this.page.$$eval(".notification-list-item-message", (items) => items.map((i) => i.textContent));
  }

  /** The chat webview's inner frame (the one that holds the prompt box). */
  async chat(timeout = 20000) {
    return until("the agentls chat webview", async () => {
      // Walk the iframes from the page down (a webview is an iframe inside an iframe): puppeteer's flat
      // page.frames() list sometimes misses the inner one when the webview re-creates it.
      for (const outer of await this.page.$$("iframe")) {
        try {
          const outerFrame = await outer.contentFrame();
          for (const inner of (await outerFrame?.$$("iframe")) ?? []) {
            const frame = await inner.contentFrame();
            if (frame && (await hasPrompt(frame))) return frame;
          }
        } catch {
          // frames come and go while the workbench loads
        }
      }
      for (const frame of this.page.frames()) {
        try {
          if (await hasPrompt(frame)) return frame;
        } catch {
          // detached
        }
      }
      return null;
    }, timeout);
  }

  /** Run "agentls: Focus Chat" and wait for its prompt box to have the keys; the chat frame. */
  async focusChat() {
    await this.command("agentls: Focus Chat");
    const chat = await this.chat();
    await until("the focus in the chat's prompt", () => chat.evaluate(() => document.hasFocus() && document.activeElement?.id === "prompt-input").catch(() => false), 10000);
    return chat;
  }

  /** Send `words` from the chat's prompt box; the chat frame. */
  async prompt(words) {
    await this.command("agentls: Focus Chat");
    const chat = await this.chat();
    await until("the model picker to fill", () => chat.$eval("#model-picker", (el) => el.options.length > 0));
    await chat.click("#prompt-input");
    await chat.type("#prompt-input", words);
    await this.page.keyboard.press("Enter");
    return chat;
  }

  /** Wait for the chat's turn to end (Stop turns back into Send). */
  async waitIdle(chat, timeout = 30000) {
    await until("the turn to end", async () => (await chat.$eval("#send", (b) => b.textContent)) === "Send", timeout);
  }

  /** The CodeLens titles shown in the visible editor, top to bottom. */
  lenses() {
    return this.page.$$eval(".codelens-decoration a", (els) => els.map((e) => e.textContent.trim()));
  }

  /** The rows of the agentls Changes view (files and hunks), as their labels (the view is in the panel). */
  changesRows() {
    return this.page.$$eval(".part.panel .pane-body .monaco-list-row", (rows) =>
      [...new Set(rows)].filter((r) => r.closest(".pane")?.querySelector(".pane-header")?.textContent?.includes("Changes")).map((r) => r.getAttribute("aria-label") ?? r.textContent),
    );
  }

  async focusChanges() {
    await this.command("agentls Review: Focus on Changes View");
    await until("the Changes view", () => this.page.$(".part.panel .pane-header[aria-label*='Changes']"), 10000).catch(() => null);
  }

  /** The Changes view's title action `title` (in the panel's title bar, shown while the pointer is on it). */
  changesAction(title) {
    return until(`the ${title} action of the Changes view`, async () => {
      // A container of one view shows the view's actions in the panel's title bar, else in its header.
      for (const area of await this.page.$$(".part.panel .composite.title, .part.panel .pane-header")) {
        await area.hover().catch(() => {});
        const action = await area.$(`.action-label[aria-label^="${title}"]`);
        if (action) return action;
      }
      return null;
    }, 10000);
  }

  /** The number on the agentls Review panel's tab (the pending hunks), or null. */
  reviewBadge() {
    return this.page.$$eval(".part.panel .composite-bar .action-item, .part.panel .panel-switcher-container .action-item", (items) => {
      const item = items.find((i) => `${i.getAttribute("aria-label") ?? ""} ${i.querySelector("a")?.getAttribute("aria-label") ?? ""}`.toLowerCase().includes("agentls"));
      return item?.querySelector(".badge-content")?.textContent || null;
    });
  }

  /** The workbench's modal dialog (message, detail, buttons), or null when none is shown. */
  modal() {
    return this.page.evaluate(() => {
      const box = document.querySelector(".monaco-dialog-box");
      if (!box) return null;
      return {
        message: box.querySelector(".dialog-message-text")?.textContent ?? "",
        detail: box.querySelector(".dialog-message-detail")?.textContent ?? "",
        buttons: [...box.querySelectorAll(".dialog-buttons .monaco-button")].map((b) => b.textContent.trim()),
      };
    });
  }

  /** Click the modal dialog's button `label`. */
  async modalButton(label) {
    const button = await until(`the dialog button ${label}`, async () => {
      for (const b of await this.page.$$(".monaco-dialog-box .dialog-buttons .monaco-button")) {
        if ((await b.evaluate((e) => e.textContent.trim())) === label) return b;
      }
      return null;
    }, 10000);
    await button.click();
  }

  /** What the workbench shows, for the log of a failure: tabs, quick input, focus, notifications. */
  async state() {
    return this.page.evaluate(() => {
      const label = (el) => el.getAttribute("aria-label") ?? el.textContent;
      const quick = document.querySelector(".quick-input-widget");
      return {
        tabs: [...document.querySelectorAll(".tabs-container .tab")].map((t) => `${t.classList.contains("active") ? "*" : ""}${label(t)}`),
        quickInput: quick && quick.style.display !== "none" ? {
          value: quick.querySelector("input")?.value,
          rows: [...quick.querySelectorAll(".quick-input-list .monaco-list-row")].map(label).slice(0, 8),
        } : null,
        focus: `${document.activeElement?.tagName}.${document.activeElement?.className}`.slice(0, 160),
        notifications: [...document.querySelectorAll(".notification-list-item-message")].map((n) => n.textContent),
      };
    });
  }

  async close() {
    await this.browser.close();
  }
}

/**
 * Open the workbench at `args.url`/`args.folder`, run `phases` (`[name, async (wb, r) => …]`, or with
 * `context(wb)` — a scenario object — instead of `wb`) in order until one fails, and print the `RESULT {…}` line the Python side reads; exit 0 when all passed.
 * A failed phase leaves a screenshot and the workbench's state in the log.
 */
export async function runPhases(args, phases, context = (wb) => wb) {
  const result = { phases: {} };
  const wb = await Workbench.open(args.url, args.folder, args.shots);
  const scenario = context(wb);
  try {
    for (const [name, fn] of phases) {
      const r = {};
      result.phases[name] = r;
      log("phase", name);
      try {
        await fn(scenario, r);
      } catch (err) {
        result.failed = name;
        result.error = String(err?.stack ?? err);
        await wb.shot(`failure-${name}`).catch(() => {});
        log("workbench at failure:", JSON.stringify(await wb.state().catch((e) => String(e))));
        break;
      }
      r.ok = true;
      log("phase", name, "done", JSON.stringify(r).slice(0, 600));
    }
  } finally {
    await wb.close();
  }
  result.ok = result.failed === undefined;
  console.log("RESULT " + JSON.stringify(result));
  process.exit(result.ok ? 0 : 1);
}
