// Reading an answer in the real chat view, as phases a user goes through (run by test_e2e_reading.py):
// code blocks, inline code and tables in the light, dark and high-contrast themes, pixel-checked;
// a table streamed without its raw row flashing; Copy and Insert at cursor from the keyboard; the
// live log, status glyphs' text, focus rings, a dialog that takes and gives back the focus, focus
// after Stop; what the user answered on the cards; a failed and a crashed turn; scrolling up while
// an answer streams. Each phase records what it saw in `result.phases[name]`; the first failing
// phase stops the run. Usage: node reading.mjs '{"url", "folder", "shots", "trace", "feedback"}'
import * as fs from "node:fs";
import * as path from "node:path";
import { Workbench, log, until } from "./driver.mjs";
import { glyphVisibility, zoomed } from "./pixels.mjs";

const args = JSON.parse(process.argv[2]);
// The themes' names as VS Code 1.139's picker lists them (their ids: "Light Modern", "Dark Modern",
// "Default High Contrast").
const THEMES = { light: "Light Modern", dark: "Dark Modern", hc: "Dark High Contrast" };
const BODY_CLASS = { light: "vscode-light", dark: "vscode-dark", hc: "vscode-high-contrast" };

function traceEvents() {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

class Scenario {
  constructor(wb) {
    this.wb = wb;
    this.page = wb.page;
    this.chat = null;
  }

  async answerText() {
    return this.chat.$$eval(".message.assistant", (els) => els.map((e) => e.textContent).join("\n"));
  }

  async waitAnswer(what, timeout = 20000) {
    await until(`the answer "${what}"`, async () => (await this.answerText()).includes(what), timeout);
    await this.waitIdle();
  }

  async waitIdle(timeout = 15000) {
    await until("the turn to end", async () => (await this.chat.$eval("#send", (b) => b.textContent)) === "Send", timeout);
  }

  async prompt(words) {
    await this.chat.click("#prompt-input");
    await this.chat.type("#prompt-input", words);
    await this.page.keyboard.press("Enter");
  }

  /** The chat frame's focused element, as `tag#id.class[data-…]`. */
  focused() {
    return this.chat.evaluate(() => {
      const el = document.activeElement;
      if (!el) return "";
      const data = Object.entries(el.dataset ?? {}).map(([k, v]) => `[${k}=${v}]`).join("");
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${[...el.classList].map((c) => `.${c}`).join("")}${data}`;
    });
  }

  async setTheme(name) {
    if (await this.chat.evaluate((cls) => document.body.classList.contains(cls), BODY_CLASS[name])) return;
    // As a user does: Preferences: Color Theme, then the theme's name in its quick pick.
    const title = "Preferences: Color Theme";
    await this.wb.openQuickInput("F1", title, title, 20000);
    // Click the command itself: "Browse Color Themes in Marketplace" matches the words too.
    await until("the Color Theme command", async () => {
      const row = await this.page.evaluateHandle((t) => [...document.querySelectorAll(".quick-input-list .monaco-list-row")].find((r) => (r.getAttribute("aria-label") ?? "").startsWith(t) && !(r.getAttribute("aria-label") ?? "").includes("Browse")) ?? null, title);
      if (!row.asElement()) return false;
      await row.asElement().click();
      return true;
    }, 10000);
    const input = ".quick-input-widget input";
    await until("the theme picker", async () => (await this.page.$eval(input, (el) => document.activeElement === el)) && (await this.wb.quickRows()).some((row) => row.startsWith("Light Modern")), 10000);
    await this.page.keyboard.type(THEMES[name]);
    await until(`the theme picker to list ${THEMES[name]}`, async () => (await this.wb.quickRows()).some((row) => row.startsWith(THEMES[name])), 10000);
    await this.page.keyboard.press("Enter");
    await until(`the ${name} theme in the chat view`, () => this.chat.evaluate((cls) => document.body.classList.contains(cls), BODY_CLASS[name]), 20000);
    // The picker may have moved the focus: back to the chat view (its frame may be a new one).
    await this.wb.command("agentls: Focus Chat");
    this.chat = await this.wb.chat();
    await until(`the ${name} theme in the chat view`, () => this.chat.evaluate((cls) => document.body.classList.contains(cls), BODY_CLASS[name]), 20000);
    // The theme's colours arrive with the class; give the view a frame to paint them.
    await this.chat.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }

  /** A screenshot of one element of the chat view, zoomed 3× (as a reader looks at underscores and focus rings). */
  async zoomShot(selector, name) {
    const handle = await this.chat.$(selector);
    if (!handle) return;
    await handle.evaluate((el) => el.scrollIntoView({ block: "center" }));
    this.wb.shotCount += 1;
    const file = path.join(args.shots, `${String(this.wb.shotCount).padStart(2, "0")}-${name}.png`);
    fs.writeFileSync(file, await zoomed(this.page, handle, 3));
    log("screenshot", file);
  }
}

const phases = [];
const phase = (name, fn) => phases.push([name, fn]);

phase("answer", async (s, r) => {
  const { wb } = s;
  await wb.command("agentls: Focus Chat");
  s.chat = await wb.chat();
  await until("the model picker to fill", () => s.chat.$eval("#model-picker", (el) => el.options.length > 0));
  // Every state the transcript goes through: does a paragraph ever show a raw table row?
  await s.chat.evaluate(() => {
    window.__rawRows = [];
    const root = document.getElementById("transcript");
    new MutationObserver(() => {
      for (const p of root.querySelectorAll(".message.assistant .md p")) {
        if (/^\s*\|/.test(p.textContent)) window.__rawRows.push(p.textContent);
      }
    }).observe(root, { childList: true, subtree: true, characterData: true });
  });
  await s.prompt("Show me the tests and the results");
  await s.waitAnswer("Done.");
  r.rawRows = await s.chat.evaluate(() => window.__rawRows);
  r.table = await s.chat.evaluate(() => {
    const cell = document.querySelector(".message.assistant .md td");
    const style = cell ? getComputedStyle(cell) : null;
    return {
      headers: [...document.querySelectorAll(".message.assistant .md th")].map((c) => c.textContent),
      cells: [...document.querySelectorAll(".message.assistant .md td")].map((c) => c.textContent),
      border: style ? { width: style.borderTopWidth, style: style.borderTopStyle, color: style.borderTopColor } : null,
    };
  });
  await wb.shot("answer");
});

phase("themes", async (s, r) => {
  // At device scale 1: a webview scales its content with the device scale in code-server, which
  // moves the element boxes puppeteer clips screenshots to. Zoom the element shots to look at them.
  for (const theme of ["light", "dark", "hc"]) {
    await s.setTheme(theme);
    const seen = {};
    // The side bar's width is the workbench's to change at any time; a measurement it moved under
    // (the two screenshots differ in size) is taken again, once.
    const measure = async (selector) => {
      try {
        return await glyphVisibility(s.page, s.chat, selector);
      } catch (err) {
        if (!String(err).includes("changed size")) throw err;
        log("measured again:", String(err));
        (r.remeasured ??= []).push(`${theme} ${selector}`);
        return glyphVisibility(s.page, s.chat, selector);
      }
    };
    seen.codeBlock = await measure(".message.assistant .md pre.hljs");
    seen.inlineCode = await measure(".message.assistant .md p > code");
    seen.table = await measure(".message.assistant .md table");
    // The secondary buttons (Copy, Insert) stand out from the side bar: a border or a background.
    seen.secondary = await s.chat.evaluate(() => {
      const b = document.querySelector('[data-action="copy-code"]');
      if (b === null) return null;
      const style = getComputedStyle(b);
      // How far the border's colour (over the side bar) is from the side bar's: the sum of the RGB differences.
      const rgba = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const [sr, sg, sb] = rgba(getComputedStyle(document.body).backgroundColor);
      const [r, g, bl, a = 1] = rgba(style.borderTopColor);
      const contrast = Math.round(Math.abs(r * a + sr * (1 - a) - sr) + Math.abs(g * a + sg * (1 - a) - sg) + Math.abs(bl * a + sb * (1 - a) - sb));
      return { background: style.backgroundColor, border: `${style.borderTopWidth} ${style.borderTopStyle} ${style.borderTopColor}`, side: getComputedStyle(document.body).backgroundColor, contrast };
    });
    r[theme] = seen;
    await s.zoomShot(".message.assistant .md pre.hljs", `${theme}-code-block`);
    await s.zoomShot(".message.assistant .md p > code", `${theme}-inline-code`);
    await s.zoomShot(".message.assistant .md table", `${theme}-table`);
  }
  await s.setTheme("dark");
});

phase("copy-insert", async (s, r) => {
  const { wb, page } = s;
  await page.browserContext().overridePermissions(new URL(args.url).origin, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
  r.buttons = await s.chat.$$eval(".message.assistant .code-actions button", (els) => els.map((b) => ({ tag: b.tagName, name: b.getAttribute("aria-label") })));
  // Copy from the keyboard: focus the button, Enter.
  await s.chat.focus('[data-action="copy-code"]');
  r.copyFocusRing = await s.chat.evaluate(() => {
    const style = getComputedStyle(document.activeElement);
    return { focusVisible: document.activeElement.matches(":focus-visible"), outline: `${style.outlineWidth} ${style.outlineStyle}` };
  });
  await page.keyboard.press("Enter");
  r.clipboard = await until("the code on the clipboard", async () => {
    const text = await page.evaluate(() => navigator.clipboard.readText());
    return text.includes("def test_add_neg") ? text : null;
  });
  // Insert at the cursor: select the first line of calc.py, then Insert from the chat.
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("Home");
  await page.keyboard.up("Control");
  await page.keyboard.down("Shift");
  await page.keyboard.press("End");
  await page.keyboard.up("Shift");
  // Into the chat with a click on a label (a palette command would press Escape, which clears the
  // editor's selection), then the keyboard.
  await s.chat.click(".message.user .who");
  await s.chat.focus('[data-action="insert-code"]');
  await page.keyboard.press("Enter");
  r.afterInsert = await until("the code in the editor", async () => {
    const text = await wb.editorText();
    return text.includes("def test_add_neg") ? text : null;
  });
  r.inserted = traceEvents().filter((e) => e.event === "codeInserted");
  await wb.shot("inserted");
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("z");
  await page.keyboard.up("Control");
  // The editor shows the file as it is on disk again (read from Monaco's lines, which it re-creates
  // over a few frames: a read in between can hold a line of the block that went).
  const original = fs.readFileSync(path.join(args.folder, "calc.py"), "utf8");
  r.afterUndo = await until("one undo to take the insert back", async () => {
    const text = await wb.editorText();
    return text.trim() === original.trim() ? text : null;
  }).catch(async (err) => `${err.message}; the editor shows:\n${await wb.editorText()}`);
});

phase("focus", async (s, r) => {
  const { wb, page } = s;
  await wb.command("agentls: Focus Chat");
  s.chat = await wb.chat();
  r.log = await s.chat.$eval("#transcript", (el) => ({ role: el.getAttribute("role"), live: el.getAttribute("aria-live"), relevant: el.getAttribute("aria-relevant") }));
  r.sessionButton = await s.chat.$eval(".session-title", (el) => ({ name: el.getAttribute("aria-label"), expanded: el.getAttribute("aria-expanded") }));
  // An edit: a permission dialog arrives while the focus is in the prompt.
  await s.prompt("Fix add()");
  await s.chat.waitForSelector(".dialog.permission", { timeout: 20000 });
  r.dialogFocus = await until("the dialog to take the focus", async () => {
    const f = await s.focused();
    return f.includes("dialog") ? f : null;
  }, 5000);
  r.dialogRole = await s.chat.$eval(".dialog.permission", (el) => ({ role: el.getAttribute("role"), name: document.getElementById(el.getAttribute("aria-labelledby") ?? "")?.textContent }));
  await wb.shot("dialog-focused");
  // Enter on the focused dialog (a key the user was already pressing) answers nothing: a key that
  // activates a button clicks it while the key is dispatched, so the clicks seen by then are all.
  await s.chat.evaluate(() => {
    window.__dialogClicks = [];
    document.addEventListener("click", (e) => window.__dialogClicks.push(e.target?.dataset?.action ?? e.target?.tagName), true);
  });
  await page.keyboard.press("Enter");
  r.clicksAfterEnter = await s.chat.evaluate(() => window.__dialogClicks);
  r.openAfterEnter = (await s.chat.$(".dialog.permission")) !== null;
  // Tab to "Allow once" and press Enter: answered from the keyboard; the focus goes back to the prompt.
  for (let i = 0; i < 4 && !(await s.focused()).includes("[action=once]"); i++) await page.keyboard.press("Tab");
  r.allowFocused = await s.focused();
  r.allowRing = await s.chat.evaluate(() => `${getComputedStyle(document.activeElement).outlineStyle}:${document.activeElement.matches(":focus-visible")}`);
  await s.zoomShot(".dialog.permission", "dialog-focus-ring");
  await page.keyboard.press("Enter");
  await until("the dialog to close", async () => (await s.chat.$(".dialog.permission")) === null);
  r.focusAfterAnswer = await until("the focus back in the prompt", async () => {
    const f = await s.focused();
    return f.includes("prompt-input") ? f : null;
  }, 5000).catch(() => s.focused());
  await s.waitAnswer("Fixed it.");
  // Status glyphs carry text for a screen reader.
  r.glyphs = await s.chat.$$eval(".part.tool .tool-head", (els) => els.map((e) => ({ hidden: e.querySelector(".icon")?.getAttribute("aria-hidden"), text: e.querySelector(".sr-only")?.textContent })));
  r.busyAfter = await s.chat.$$eval(".message.assistant", (els) => els.map((e) => e.getAttribute("aria-busy")));

  // Stop with the mouse: the keys go back to the prompt.
  await s.prompt("Write an essay");
  await until("the essay streaming", async () => (await s.answerText()).includes("Essay part 3"));
  await s.chat.click("#send");
  await s.waitIdle();
  r.focusAfterStop = await s.focused();
  r.stoppedText = await s.chat.$$eval(".msg-footer", (els) => els.map((e) => e.textContent));
});

phase("cards", async (s, r) => {
  const { page } = s;
  // A question, answered: its card says what the user chose.
  await s.prompt("Ask me about the runner");
  await s.chat.waitForSelector(".dialog.question-dialog", { timeout: 20000 });
  await s.chat.click('.dialog.question-dialog input[value="pytest"]');
  await s.chat.click('.dialog.question-dialog [data-action="answer"]');
  await s.waitAnswer("Using pytest.");
  r.questionCard = await s.chat.$$eval(".part.tool .tool-said", (els) => els.map((e) => e.textContent));
  // An edit rejected with feedback: its card says what the user said.
  await s.prompt("Document add()");
  await s.chat.waitForSelector(".dialog.permission", { timeout: 20000 });
  await s.chat.click('.dialog.permission [data-action="feedback"]');
  const selector = ".quick-input-widget input";
  await page.waitForSelector(selector, { visible: true, timeout: 10000 });
  await until("the feedback box to have the focus", () => page.$eval(selector, (el) => document.activeElement === el));
  await page.keyboard.type(args.feedback);
  await page.keyboard.press("Enter");
  await s.waitAnswer("A comment, then.");
  r.rejectionCard = await s.chat.$$eval(".part.tool .tool-said", (els) => els.map((e) => e.textContent));
  await s.wb.shot("cards");
  await s.zoomShot(".message.assistant:last-of-type", "rejection-card");
});

phase("errors", async (s, r) => {
  // A turn that fails: its error is in the transcript, and stays there after the next turn clears the notice.
  await s.prompt("This one fails");
  r.failed = await until("the error under the answer", async () => {
    const footers = await s.chat.$$eval(".msg-footer.error", (els) => els.map((e) => e.textContent));
    return footers.length > 0 ? footers : null;
  });
  await s.waitIdle();
  await s.prompt("Try again");
  await s.waitAnswer("Worked this time.");
  r.afterNext = await s.chat.$$eval(".msg-footer.error", (els) => els.map((e) => e.textContent));
  r.notice = await s.chat.$eval("#notice", (el) => (el.hidden ? "" : el.textContent));
  // The server dies mid-turn: the turn reads as interrupted, an error, not as stopped by the user.
  const started = () => traceEvents().filter((e) => e.event === "serverInitialized");
  const before = started().length;
  await s.prompt("A long answer please");
  await until("the long answer streaming", async () => (await s.answerText()).includes("Long part 3"));
  process.kill(started().at(-1).pid, "SIGKILL");
  await until("the server to be restarted", () => started().length > before, 30000);
  r.crashed = await until("the interrupted turn's ending", async () => {
    const footers = await s.chat.$$eval(".msg-footer", (els) => els.map((e) => `${e.className}: ${e.textContent}`));
    return footers.some((f) => f.includes("interrupted")) ? footers : null;
  }, 20000);
  await s.wb.shot("crashed-turn");
  // The view was rebuilt from the server (quietly): its live region speaks again afterwards.
  r.liveAfterReload = await until("the live region back on", () => s.chat.$eval("#transcript", (el) => (el.getAttribute("aria-live") === "polite" ? "polite" : null)), 5000).catch(() => "off");
});

phase("scroll", async (s, r) => {
  const sent = Date.now();
  await s.prompt("Stream a long answer");
  await until("the first half", async () => (await s.answerText()).includes("First half 39"));
  // The user scrolls up with the wheel, at once (well within 1.5 s of sending).
  const box = await (await s.chat.$("#transcript")).boundingBox();
  await s.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await s.page.mouse.wheel({ deltaY: -600 });
  r.wheelMs = Date.now() - sent;
  r.secondHalfAtWheel = (await s.answerText()).includes("Second half");
  await s.waitAnswer("Second half 39");
  r.fromBottom = await s.chat.$eval("#transcript", (el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  r.jumpShown = await s.chat.$eval("#jump-latest", (el) => !el.hidden);
  await s.wb.shot("scrolled-up-with-jump");
  await s.zoomShot("#transcript-box", "jump-to-latest");
  r.jumpBackground = await s.chat.$eval("#jump-latest", (el) => getComputedStyle(el).backgroundColor);
  await s.chat.click("#jump-latest");
  r.afterJump = await until("the view at the bottom", async () => {
    const d = await s.chat.$eval("#transcript", (el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    return d < 24 ? d + 1 : null;
  }) - 1;
  r.jumpHidden = await s.chat.$eval("#jump-latest", (el) => el.hidden);
});

async function main() {
  const result = { phases: {} };
  const wb = await Workbench.open(args.url, args.folder, args.shots);
  const scenario = new Scenario(wb);
  try {
    for (const [name, fn] of phases) {
      const r = {};
      const began = Date.now();
      result.phases[name] = r;
      log("phase", name);
      try {
        await fn(scenario, r);
      } catch (err) {
        result.failed = name;
        result.error = String(err?.stack ?? err);
        r.error = result.error;
        await wb.shot(`failure-${name}`).catch(() => {});
        log("workbench at failure:", JSON.stringify(await wb.state().catch((e) => String(e))));
        // `keepGoing` (for a run against an older build, to see which checks fail): the next phases
        // run anyway, though a phase that failed half-way may leave them a different state.
        if (!args.keepGoing) break;
        await wb.page.keyboard.press("Escape").catch(() => {});
        continue;
      }
      r.ok = true;
      r.ms = Date.now() - began;
      log("phase", name, "done in", r.ms, "ms");
    }
  } finally {
    await wb.close();
  }
  result.ok = result.failed === undefined;
  return result;
}

const result = await main();
console.log("RESULT " + JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
