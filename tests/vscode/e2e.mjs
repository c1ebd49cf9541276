// The end-to-end scenario in one real VS Code, as phases a user goes through in order: an edit with
// its permission and diff, undo; reject with feedback; "Always"; questions; `@` and selection
// attachments; abort; window reload; server killed; rename/fork/delete; the Fix command on another
// extension's diagnostic; a settings change reaching the server. Each phase records what it saw in
// `result.phases[name]`; the first failing phase stops the run (`result.failed`, `result.error`).
// Usage: node e2e.mjs '{"url": ..., "folder": ..., "shots": ..., "trace": ...}'  (run by test_e2e.py)
import * as fs from "node:fs";
import * as path from "node:path";
import { Workbench, log, until } from "./driver.mjs";

const args = JSON.parse(process.argv[2]);
const calc = path.join(args.folder, "calc.py");
const FEEDBACK = "Use a comment, not a docstring";

function traceEvents() {
  if (!fs.existsSync(args.trace)) return [];
  return fs.readFileSync(args.trace, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

async function text(frame, selector) {
  return frame.$$eval(selector, (els) => els.map((e) => e.textContent).join("\n"));
}

/** The text of `selector` inside the last user message of the transcript. */
async function lastUser(frame, selector) {
  return frame.$$eval(".message.user", (els, sel) => [...(els.at(-1)?.querySelectorAll(sel) ?? [])].map((e) => e.textContent).join("\n"), selector);
}

class Scenario {
  constructor(wb) {
    this.wb = wb;
    this.page = wb.page;
    this.chat = null;
  }

  async answerText() {
    return text(this.chat, ".message.assistant .md");
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

  async sessionTitle() {
    return this.chat.$eval(".session-title", (b) => b.textContent);
  }

  async sessionRows() {
    return this.chat.$$eval(".session-row .session-link", (els) => els.map((e) => e.textContent));
  }

  async openSessions() {
    if (await this.chat.$eval("#sessions", (el) => el.hidden)) await this.chat.click(".session-title");
    await until("the session menu", async () => !(await this.chat.$eval("#sessions", (el) => el.hidden)));
  }

  /** Type into the workbench's quick input (an input box or a quick pick) and press Enter: once it
   * is shown and VS Code has given it the focus (a widget still closing from an earlier dialog, or
   * one not yet focused, sent the words to the chat's prompt instead), and, given `placeholder`,
   * once it is the input that says so. */
  async quickInput(words, { replace = false, placeholder = "" } = {}) {
    const selector = ".quick-input-widget input";
    await this.page.waitForSelector(selector, { visible: true, timeout: 10000 });
    await until(`the quick input${placeholder ? ` "${placeholder}…"` : ""} to have the focus`, () =>
      this.page.$eval(selector, (el, prefix) => document.activeElement === el && (el.placeholder || "").startsWith(prefix), placeholder));
    if (replace) await this.page.$eval(selector, (el) => el.select());
    await this.page.keyboard.type(words);
    await this.page.keyboard.press("Enter");
  }

  /** In a multi-select quick pick: filter by `name` and tick its row (a click on a row ticks it). */
  async tickInQuickPick(name) {
    const input = await this.page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
    await input.evaluate((el) => el.select());
    await input.type(name);
    const row = `.quick-input-list .monaco-list-row[aria-label*="${name}"]`;
    await until(`the quick pick to list ${name}`, () => this.page.$(row), 10000);
    await until(`${name} ticked`, async () => {
      const checked = await this.page.$eval(row, (el) => el.getAttribute("aria-checked")).catch(() => null);
      if (checked === "true") return true;
      await this.page.click(`${row} label.quick-input-list-label`).catch(() => undefined);
      return false;
    }, 10000, 300);
  }

  async selectLines(count) {
    const keys = this.page.keyboard;
    await this.wb.focusEditor();
    await keys.down("Control");
    await keys.press("Home");
    await keys.up("Control");
    await keys.down("Shift");
    for (let i = 1; i < count; i++) await keys.press("ArrowDown");
    await keys.press("End");
    await keys.up("Shift");
  }
}

// --- the phases ----------------------------------------------------------------------------------

const phases = [];
const phase = (name, fn) => phases.push([name, fn]);

phase("edit", async (s, r) => {
  const { wb, page } = s;
  // styles.css first, so VS Code's CSS language server starts now (its diagnostic is used by "fix").
  await wb.openFile("styles.css");
  log("styles.css open");
  // A workspace file with an unsaved change.
  await wb.openFile("calc.py");
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("End");
  await page.keyboard.up("Control");
  await page.keyboard.type("# unsaved note");
  await until("calc.py to be dirty", async () => (await wb.dirtyTabs()).length === 1);
  log("calc.py edited");

  await wb.command("agentls: Focus Chat");
  s.chat = await wb.chat();
  log("chat view shown");
  await until("the model picker to fill", () => s.chat.$eval("#model-picker", (el) => el.options.length > 0));
  log("server ready");
  await s.prompt("Fix add() in calc.py");

  // Streamed text and a tool card.
  await until("streamed text", async () => (await s.answerText()).includes("Let me read calc.py"));
  await until("the read tool card", async () => (await text(s.chat, ".part.tool .tool-name")).includes("read"));
  await wb.shot("streamed-text-and-tool-card");

  // The edit permission: open its diff, then allow once.
  await s.chat.waitForSelector(".dialog.permission", { timeout: 20000 });
  await wb.shot("permission-dialog");
  await s.chat.click('.dialog.permission [data-action="diff"]');
  await page.waitForSelector(".monaco-diff-editor", { timeout: 10000 });
  const diffText = await until("the proposed side of the diff", async () => {
    const t = await page.$eval(".monaco-diff-editor", (el) => el.textContent.replace(/\u00a0/g, " "));
    return t.includes("a + b") ? t : null;
  });
  r.diffShowsProposal = diffText.includes("a + b") && diffText.includes("# unsaved note");
  await wb.shot("permission-diff");
  await s.chat.click('.dialog.permission [data-action="once"]');
  await until("the dialog to close", async () => (await s.chat.$(".dialog.permission")) === null);

  // The answer shows; the title the agent gave the session shows in the bar; the edit is saved.
  await s.waitAnswer("Fixed add");
  r.liveTitle = await until("the session title", async () => {
    const t = await s.sessionTitle();
    return t.includes("Fix add in calc.py") ? t : null;
  });
  await wb.shot("answer");
  await wb.command("View: Close Editor"); // the diff editor (it may have taken calc.py's preview tab)
  await wb.openFile("calc.py");
  r.bufferAfterEdit = await until("the edit in the buffer", async () => {
    const t = await wb.editorText();
    return t.includes("return a + b") ? t : null;
  });
  r.dirtyAfterEdit = await wb.dirtyTabs();
  r.diskAfterEdit = fs.readFileSync(calc, "utf8");
  r.notificationsAfterEdit = await wb.notifications();
  await wb.shot("edited-buffer");

  // Hostile Markdown rendered inert.
  r.hostile = await s.chat.evaluate(() => {
    const root = document.getElementById("transcript");
    return {
      scripts: root.querySelectorAll("script").length,
      handlers: [...root.querySelectorAll("*")].filter((el) => [...el.attributes].some((a) => a.name.startsWith("on"))).length,
      images: root.querySelectorAll("img").length,
      badLinks: [...root.querySelectorAll("a")].filter((a) => !/^(https?:|mailto:|#)/i.test(a.getAttribute("href") ?? "")).length,
      shownAsText: root.textContent.includes("<img src=x onerror="),
      pwned: window.__pwned === true,
    };
  });

  // One undo reverts the agent's edit (the user's unsaved note stays).
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("z");
  await page.keyboard.up("Control");
  r.bufferAfterUndo = await until("the undo", async () => {
    const t = await wb.editorText();
    return t.includes("return a - b") ? t : null;
  });
  await wb.shot("after-undo");
});

phase("feedback", async (s, r) => {
  await s.prompt("Document add()");
  await s.chat.waitForSelector(".dialog.permission", { timeout: 20000 });
  await s.chat.click('.dialog.permission [data-action="feedback"]');
  await s.wb.shot("feedback-input");
  await s.quickInput(FEEDBACK);
  await until("the dialog to close", async () => (await s.chat.$(".dialog.permission")) === null);
  await s.waitAnswer("Understood");
  r.buffer = await s.wb.editorText();
  r.disk = fs.readFileSync(calc, "utf8");
});

phase("always", async (s, r) => {
  // Every permission dialog the view shows from here on, by request id.
  await s.chat.evaluate(() => {
    window.__shownPermissions = new Set();
    const dialogs = document.getElementById("dialogs");
    new MutationObserver(() => {
      for (const el of dialogs.querySelectorAll(".dialog.permission")) window.__shownPermissions.add(el.dataset.request);
    }).observe(dialogs, { childList: true, subtree: true });
  });
  await s.prompt("Rename add to plus, then fix it");
  await s.chat.waitForSelector(".dialog.permission", { timeout: 20000 });
  await s.chat.click('.dialog.permission [data-action="always"]');
  await s.waitAnswer("Renamed add to plus");
  r.dialogsShown = await s.chat.evaluate(() => window.__shownPermissions.size);
  r.editCards = await s.chat.$$eval(".message.assistant .part.tool", (els) =>
    els.map((e) => ({ name: e.querySelector(".tool-name")?.textContent, title: e.querySelector(".tool-title")?.textContent, status: [...e.classList].find((c) => c.startsWith("status-")) })),
  );
  r.buffer = await until("both edits in the buffer", async () => {
    const t = await s.wb.editorText();
    return t.includes("def plus") && t.includes("return a + b") ? t : null;
  });
  await s.wb.shot("always-allowed");
});

phase("questions", async (s, r) => {
  const { chat, page, wb } = s;
  await s.prompt("Set up the tests");
  await chat.waitForSelector(".dialog.question-dialog", { timeout: 20000 });
  // A single choice (the second click replaces the first), several checks and a typed one.
  await chat.click('.question-dialog input[value="unittest"]');
  await chat.click('.question-dialog input[value="pytest"]');
  await chat.click('.question-dialog input[value="ruff"]');
  await chat.click('.question-dialog input[value="mypy"]');
  // The typed answer: Shift+Enter breaks the line (the dialog stays), Enter answers the dialog.
  const fields = await chat.$$(".question-dialog fieldset.question");
  const typed = await fields[1].$("textarea.other");
  await typed.type("pyright");
  await page.keyboard.down("Shift");
  await page.keyboard.press("Enter");
  await page.keyboard.up("Shift");
  await typed.type("strict");
  r.typedValue = await typed.evaluate((el) => el.value);
  r.openAfterShiftEnter = (await chat.$(".question-dialog")) !== null;
  r.inputs = await chat.$$eval(".question-dialog fieldset.question input", (els) => els.map((e) => ({ type: e.type, value: e.value })));
  await wb.shot("question");
  await page.keyboard.press("Enter");
  await until("the question to close", async () => (await chat.$(".question-dialog")) === null);
  await s.waitAnswer("Using pytest");

  // A question the server closes (the turn is aborted from the palette, not in the view).
  await s.prompt("Ask me once more");
  await chat.waitForSelector(".dialog.question-dialog", { timeout: 20000 });
  await wb.command("agentls: Abort");
  const closedAt = Date.now();
  await until("the question to close by itself", async () => (await chat.$(".question-dialog")) === null, 10000);
  r.closedMs = Date.now() - closedAt;
  await s.waitIdle();
  await wb.shot("question-closed-elsewhere");
});

phase("attach", async (s, r) => {
  const { chat, page, wb } = s;
  await wb.openFile("calc.py");
  await s.selectLines(2);
  await chat.click("#attach-selection");
  await until("the selection chip", async () => (await text(chat, ".chips .chip")).includes("calc.py:1-2"));
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", "What do ");
  await chat.type("#prompt-input", "@");
  // Two files from one pick: tick notes.md, filter again, tick styles.css, Enter.
  await s.tickInQuickPick("notes.md");
  await s.tickInQuickPick("styles.css");
  await wb.shot("pick-two-files");
  await page.keyboard.press("Enter");
  r.chips = await until("the file chips", async () => {
    const chips = await chat.$$eval(".chips .chip", (els) => els.map((e) => e.textContent.replace(/\s*×$/, "")));
    return chips.includes("notes.md") && chips.includes("styles.css") ? chips : null;
  });
  await chat.type("#prompt-input", "and these lines say?");
  r.promptText = await chat.$eval("#prompt-input", (el) => el.value);
  await wb.shot("attachments");
  await page.keyboard.press("Enter");
  await s.waitAnswer("I read both");
  r.userChips = await lastUser(chat, ".chip");
});

phase("image", async (s, r) => {
  const { chat, page, wb } = s;
  // "Image": the open dialog (code-server's own, a quick input taking a path) picks logo.png. It
  // fills in the folder's path once it has read the folder: type the file name after that.
  await chat.click("#attach-image");
  const dialog = await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: 10000 });
  await until("the open dialog to show the folder", () => dialog.evaluate((el, folder) => el.value === `${folder}/`, args.folder));
  await dialog.type("logo.png");
  await page.keyboard.press("Enter");
  await until("the logo chip", async () => (await text(chat, ".chips .chip.image")).includes("logo.png"));
  // `@`, a few letters, Enter: the highlighted file (an image here) is attached.
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", "What do @");
  await s.quickInput("diagram", { placeholder: "Files to attach" });
  await until("the diagram chip", async () => (await text(chat, ".chips .chip.image")).includes("diagram.png"));
  // A pasted image: the image goes on the browser's clipboard (as a screenshot tool puts it there),
  // then Ctrl+V in the prompt.
  await page.browserContext().overridePermissions(new URL(args.url).origin, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
  await chat.click("#prompt-input");
  const copied = await chat.evaluate(async (data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    try {
      await navigator.clipboard.write([new ClipboardItem({ "image/png": new Blob([bytes], { type: "image/png" }) })]);
      return "copied";
    } catch (err) {
      return String(err);
    }
  }, fs.readFileSync(args.pasteImage).toString("base64"));
  if (copied !== "copied") throw new Error(`could not put the image on the clipboard: ${copied}`);
  await page.keyboard.down("Control");
  await page.keyboard.press("v");
  await page.keyboard.up("Control");
  r.chips = await until("three image chips", async () => {
    const chips = await chat.$$eval(".chips .chip.image", (els) => els.map((e) => ({ label: e.textContent.replace(/\s*×$/, ""), thumb: e.querySelector("img.thumb")?.naturalWidth ?? 0 })));
    return chips.length === 3 && chips.every((c) => c.thumb > 0) ? chips : null;
  });
  await chat.type("#prompt-input", "and these show?");
  r.promptText = await chat.$eval("#prompt-input", (el) => el.value);
  await wb.shot("image-chips");
  await page.keyboard.press("Enter");
  await s.waitAnswer("three images");
  r.sentThumbs = await chat.$$eval(".message.user", (els) => [...(els.at(-1)?.querySelectorAll(".chip.image img.thumb") ?? [])].map((i) => i.naturalWidth));
  await wb.shot("image-sent");
});

phase("drop", async (s, r) => {
  const { chat, page, wb } = s;
  const uri = (file) => `file://${file.split("/").map(encodeURIComponent).join("/")}`;
  // A drop is dispatched in the chat view's frame with the data VS Code gives the view for a drag
  // of its own files (resourceurls holds them all; text/uri-list only the first) and, for a drop of
  // system files, File objects. What is exercised: the view's drop handling and the extension's
  // attach path in a real VS Code; not VS Code's own drag plumbing (CDP drags never reach a webview
  // in code-server).
  const drop = (items, image) =>
    chat.evaluate(
      (items, image) => {
        const data = new DataTransfer();
        for (const [type, value] of Object.entries(items)) data.setData(type, value);
        if (image) data.items.add(new File([Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0))], image.name, { type: "image/png" }));
        const input = document.querySelector("#prompt-input");
        const over = new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true });
        input.dispatchEvent(over);
        const highlighted = document.querySelector("#prompt").classList.contains("drop-target");
        input.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        return { accepted: over.defaultPrevented, highlighted, after: document.querySelector("#prompt").classList.contains("drop-target") };
      },
      items,
      image,
    );
  const files = [path.join(args.folder, "notes.md"), path.join(args.folder, "logo.png")];
  r.explorer = await drop({ resourceurls: JSON.stringify(files.map(uri)), "text/uri-list": uri(files[0]), "text/plain": files[0] });
  await until("the dropped files' chips", async () => (await text(chat, ".chips")).includes("logo.png"));
  // The project folder itself and a file outside it: one warning names both; nothing is attached.
  const before = (await wb.notifications()).length;
  r.refusedDrop = await drop({ codefiles: JSON.stringify([args.folder, path.join(path.dirname(args.folder), "elsewhere.txt")]) });
  r.warning = await until("the refusal", async () => (await wb.notifications()).slice(before).find((n) => n.includes("cannot attach")));
  // An image dragged from the system.
  r.system = await drop({}, { name: "drawn.png", data: fs.readFileSync(path.join(args.folder, "diagram.png")).toString("base64") });
  r.chips = await until("three chips", async () => {
    const chips = await chat.$$eval(".chips .chip", (els) => els.map((e) => e.textContent.replace(/\s*×$/, "")));
    return chips.length === 3 ? chips : null;
  });
  await chat.click("#prompt-input");
  await chat.type("#prompt-input", "What did I drop?");
  await wb.shot("dropped-files");
  await page.keyboard.press("Enter");
  await s.waitAnswer("You dropped");
});

phase("abort", async (s, r) => {
  await s.prompt("Now write a long essay about it");
  await until("the essay to stream", async () => (await s.answerText()).includes("Essay part"), 20000);
  await s.wb.shot("streaming-essay");
  const stopAt = Date.now();
  await s.page.keyboard.press("Escape");
  await until("the turn to stop", async () => (await s.chat.$eval("#send", (b) => b.textContent)) === "Send", 5000, 20);
  r.abortMs = Date.now() - stopAt;
  await until("the stopped marker", async () => (await text(s.chat, ".message.assistant .stopped")).includes("Stopped"), 5000);
  await s.wb.shot("aborted");
});

phase("reload", async (s, r) => {
  const reloaded = s.page.waitForNavigation({ waitUntil: "domcontentloaded", timeout: 30000 });
  await s.wb.command("Developer: Reload Window");
  await reloaded;
  await s.page.waitForSelector(".monaco-workbench", { timeout: 30000 });
  // The side bar comes back with the chat view open, as the user left it.
  s.chat = await s.wb.chat(40000);
  await until("the transcript after reload", async () => (await s.answerText()).includes("Fixed add"), 20000);
  await s.openSessions();
  r.sessions = await until("the session list", async () => {
    const rows = await s.sessionRows();
    return rows.length > 0 ? rows : null;
  });
  r.title = await s.sessionTitle();
  await s.wb.shot("after-reload");
});

phase("restart", async (s, r) => {
  const started = () => traceEvents().filter((e) => e.event === "serverInitialized");
  const before = started().length;
  const victim = started().at(-1).pid;
  process.kill(victim, "SIGKILL");
  await until("the server to be restarted", () => started().length > before, 30000);
  await until("the transcript rebuilt after the restart", async () => (await s.answerText()).includes("Fixed add"), 20000);
  await until("the restart notice", async () => (await s.wb.notifications()).some((n) => n.includes("restarting")), 10000);
  r.notices = (await s.wb.notifications()).filter((n) => n.includes("restarting")).length;
  r.restartedPid = started().at(-1).pid;
  r.killedPid = victim;
  await s.prompt("Are you back?");
  await s.waitAnswer("Back after the restart");
  await s.wb.shot("after-server-restart");
});

phase("sessions", async (s, r) => {
  const { chat, page, wb } = s;
  await s.openSessions();
  await chat.click('[aria-label="Rename session"]');
  await s.quickInput("Calc work", { replace: true });
  await until("the new title", async () => (await s.sessionTitle()).includes("Calc work"));
  r.afterRename = await until("the renamed row", async () => {
    const rows = await s.sessionRows();
    return rows.includes("Calc work") ? rows : null;
  });

  await chat.click('[aria-label="Fork session"]');
  r.forkTitle = await until("the fork to be current", async () => {
    const t = await s.sessionTitle();
    return t.includes("(fork)") ? t : null;
  });
  r.afterFork = await until("the fork in the list", async () => {
    const rows = await s.sessionRows();
    return rows.some((t) => t.includes("(fork)")) ? rows : null;
  });
  r.forkTranscript = await until("the fork's transcript", async () => {
    const t = await s.answerText();
    return t.includes("Fixed add") ? t.length : null;
  });
  await wb.shot("forked");

  await chat.click('[aria-label="Delete session"]');
  await page.waitForSelector(".monaco-dialog-box", { visible: true, timeout: 10000 });
  await wb.shot("delete-confirm");
  const buttons = await page.$$(".monaco-dialog-box .dialog-buttons .monaco-button");
  for (const b of buttons) if ((await b.evaluate((el) => el.textContent)) === "Delete") await b.click();
  r.afterDelete = await until("the fork gone from the list", async () => {
    const rows = await s.sessionRows();
    return rows.length > 0 && !rows.some((t) => t.includes("(fork)")) ? rows : null;
  });
  r.titleAfterDelete = await s.sessionTitle();

  // Back to the renamed session.
  await s.openSessions();
  await chat.$$eval(".session-row .session-link", (els) => els.find((e) => e.textContent === "Calc work")?.click());
  await until("the renamed session again", async () => (await s.sessionTitle()).includes("Calc work") && (await s.answerText()).includes("Fixed add"));
  await wb.shot("sessions-after-delete");
});

phase("fix", async (s, r) => {
  const { page, wb } = s;
  await wb.openFile("styles.css");
  // VS Code's own CSS language server (not agentls) reports the unknown property.
  await page.waitForSelector(".editor-instance .squiggly-warning, .editor-instance .squiggly-error", { timeout: 30000 });
  await wb.focusEditor();
  await page.keyboard.down("Control");
  await page.keyboard.press("Home");
  await page.keyboard.up("Control");
  await wb.command("agentls: Fix");
  await s.waitAnswer("colr should be color");
  r.userText = await lastUser(s.chat, ".user-text");
  await wb.shot("fix");
});

phase("settings", async (s, r) => {
  const sent = () => traceEvents().filter((e) => e.event === "settingsSent").length;
  const initialized = () => traceEvents().filter((e) => e.event === "serverInitialized").length;
  const before = initialized();
  // What a user does in Settings (JSON): another model for this workspace.
  fs.mkdirSync(path.join(args.folder, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(args.folder, ".vscode", "settings.json"), JSON.stringify({ "agentls.model": "other/n" }, null, 2));
  await until("the new settings sent to the server", () => sent() > 0, 30000);
  r.picker = await until("the model picker to follow", async () => {
    const value = await s.chat.$eval("#model-picker", (el) => el.value);
    return value === "other/n" ? value : null;
  });
  await s.prompt("Which model are you?");
  await s.waitAnswer("the other model");
  r.serverStarts = initialized() - before; // the same server process applied them
  await s.wb.shot("other-model");
});

// --- the run -------------------------------------------------------------------------------------

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
        await wb.shot(`failure-${name}`).catch(() => {});
        log("workbench at failure:", JSON.stringify(await wb.state().catch((e) => String(e))));
        for (const frame of wb.page.frames()) {
          const probe = await frame.evaluate(() => [document.readyState, !!document.getElementById("prompt-input"), document.querySelectorAll("iframe").length]).catch((e) => String(e));
          log("frame", frame.url().slice(0, 160), JSON.stringify(probe));
        }
        break;
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
